"""Registry endpoints: the public catalogue, archives, advisories, and the version status
actions, thin adapters over registry.selectors, registry.services and registry.lifecycle.

Refusals map to HTTP here and in config.api_errors: an account that may not act gets 403
(VersionActionForbidden is Django's PermissionDenied), an action the status does not allow or a
lost race 409 (VersionStatusError), a missing reason 400, the archive of a quarantined version
410 Gone with its advisory.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from config.scopes import REVIEW, YANK
from registry import archives, lifecycle, selectors, services
from registry.api.serializers import (
    AdvisorySerializer,
    SearchQuerySerializer,
    SkillDetailSerializer,
    SkillFilterSerializer,
    SkillSummarySerializer,
    StatusChangeSerializer,
    VersionDetailSerializer,
)
from registry.models import Skill, VersionEvent


class SkillList(generics.ListAPIView):
    """Published skills, by owner and name."""

    permission_classes = [permissions.AllowAny]
    serializer_class = SkillSummarySerializer

    @extend_schema(
        summary="Published skills",
        description="Every skill with a published or yanked version, by owner and name, a page "
        "at a time (`limit`, `offset`). `name` and `owner` narrow it to exact values: "
        "`?name=weather-report` lists every owner's skill of that name.",
        parameters=[SkillFilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Skill]:
        wanted = _filters(self.request)
        queryset = selectors.published_skills().order_by("owner", "name")
        if "name" in wanted:
            queryset = queryset.filter(name=wanted["name"])
        if "owner" in wanted:
            queryset = queryset.filter(owner=wanted["owner"].lower())
        return queryset


class SkillSearch(generics.ListAPIView):
    """Published skills matching every word, best first."""

    permission_classes = [permissions.AllowAny]
    serializer_class = SkillSummarySerializer

    @extend_schema(
        summary="Search published skills",
        description="Every word of `q` must appear in the skill's name, owner or description "
        "(any part, ignoring case). The exact name comes first, then names starting with the "
        "first word, then names holding it, then the rest. A page at a time (`limit`, "
        "`offset`, with `count`).",
        parameters=[
            OpenApiParameter(
                "q",
                str,
                required=True,
                description="The words to look for.",
                examples=[OpenApiExample("A word", value="weather")],
            )
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not request.query_params.get("q", "").strip():
            raise serializers.ValidationError({"q": ["say what to look for: ?q=WORDS"]})
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Skill]:
        query = SearchQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.search_skills(query.validated_data["q"])


_SKILL_QUARANTINED = inline_serializer(
    "SkillQuarantinedError",
    fields={
        "detail": serializers.CharField(),
        "code": serializers.CharField(),
        "errors": serializers.DictField(),
        "advisories": AdvisorySerializer(many=True),
    },
)


class SkillDetail(generics.RetrieveAPIView):
    """One published skill with its published and yanked versions, newest first."""

    permission_classes = [permissions.AllowAny]
    serializer_class = SkillDetailSerializer

    @extend_schema(
        summary="One skill and its versions",
        description="The skill with its published and yanked versions, newest first, and "
        "`latest_version` (the newest published one). A skill whose every version is "
        "quarantined answers 410 Gone with the advisories that say why.",
        responses={
            200: SkillDetailSerializer,
            410: OpenApiResponse(
                _SKILL_QUARANTINED, description="Every version is quarantined; the advisories."
            ),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            return super().get(request, *args, **kwargs)
        except selectors.SkillQuarantined as gone:
            body = {
                "detail": str(gone),
                "code": "quarantined",
                "errors": {},
                "advisories": AdvisorySerializer(
                    gone.advisories, many=True, context={"request": request}
                ).data,
            }
            return Response(body, status=status.HTTP_410_GONE)

    def get_object(self) -> Skill:
        return selectors.skill_by_name(self.kwargs["owner"], self.kwargs["name"])


class SkillVersionDetail(generics.RetrieveAPIView):
    """One immutable version by its exact number: status, files, the bundle's sha256 and the
    archive's. A quarantined version answers too, with its advisory and without file contents."""

    permission_classes = [permissions.AllowAny]
    serializer_class = VersionDetailSerializer

    @extend_schema(
        summary="One version",
        description="A version by its exact number, whatever its status: every file (with its "
        "content, unless quarantined), the bundle's sha256 and the archive's, and the advisory "
        "when it is quarantined.",
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_object(self):
        return selectors.skill_version(
            self.kwargs["owner"], self.kwargs["name"], self.kwargs["version"]
        )


_QUARANTINED = inline_serializer(
    "QuarantinedError",
    fields={
        "detail": serializers.CharField(),
        "code": serializers.CharField(),
        "errors": serializers.DictField(),
        "advisory": AdvisorySerializer(allow_null=True),
    },
)


class SkillVersionArchive(generics.GenericAPIView):
    """The version's deterministic ``.tar.gz``; its sha256 is the version's ``archive_sha256``.
    Yanked versions download by their exact number; quarantined ones are 410 Gone."""

    permission_classes = [permissions.AllowAny]
    serializer_class = VersionDetailSerializer  # names the resource in a 404

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # The archive is bytes whatever the client accepts; errors are always JSON.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        summary="Download the version's archive",
        responses={
            (200, archives.MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.BINARY, description="The archive (deterministic .tar.gz)."
            ),
            410: OpenApiResponse(
                _QUARANTINED, description="The version is quarantined; the advisory says why."
            ),
        },
    )
    def get(self, request: Request, owner: str, name: str, version: str) -> HttpResponse:
        found = selectors.skill_version(owner, name, version)
        try:
            archive = services.download(found)
        except services.VersionQuarantined as refused:
            advisory = refused.advisory
            body: dict[str, Any] = {
                "detail": str(refused),
                "code": "quarantined",
                "errors": {},  # the API's error shape (config.api_errors), plus the advisory
                "advisory": AdvisorySerializer(advisory, context={"request": request}).data
                if advisory
                else None,
            }
            return Response(body, status=status.HTTP_410_GONE)
        response = HttpResponse(archive.content, content_type=archives.MEDIA_TYPE)
        response["Content-Disposition"] = (
            f'attachment; filename="{found.skill.name}-{found.version}{archives.SUFFIX}"'
        )
        response["ETag"] = f'"{archive.sha256}"'
        return response


class _VersionAction(generics.GenericAPIView):
    """POST one status change; answers the version as it is afterwards."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = VersionDetailSerializer
    version_action: ClassVar[str]

    def post(self, request: Request, owner: str, name: str, version: str) -> Response:
        found = selectors.skill_version(owner, name, version)
        body: StatusChangeSerializer = StatusChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            lifecycle.change_status(
                found.pk,
                self.version_action,
                lifecycle.Actor.account(request.user),
                body.validated_data.get("reason", ""),
            )
        except DjangoValidationError as invalid:
            raise serializers.ValidationError(invalid.message_dict) from invalid
        changed = selectors.skill_version(owner, name, version)
        return Response(VersionDetailSerializer(changed, context={"request": request}).data)


def _action_schema(summary: str, description: str, reason: str) -> Any:
    return extend_schema(
        request=StatusChangeSerializer,
        responses=VersionDetailSerializer,
        summary=summary,
        description=description,
        examples=[OpenApiExample("With a reason", value={"reason": reason}, request_only=True)],
    )


class QuarantineVersion(_VersionAction):
    """Security: hide the version, refuse its archive and publish an advisory (reason
    required)."""

    version_action = VersionEvent.Action.QUARANTINE
    token_scope = REVIEW

    @_action_schema(
        "Quarantine a version (Security; published or yanked → quarantined)",
        "Hides the version from listings, refuses its archive (410) and publishes an advisory "
        "with the reason. Security only, with a token holding the `review` scope.",
        "It sends the user's SSH keys to a paste site.",
    )
    def post(self, request: Request, owner: str, name: str, version: str) -> Response:
        return super().post(request, owner, name, version)


class RestoreVersion(_VersionAction):
    """Security: lift a quarantine after review (reason required); the version returns to the
    status it had before."""

    version_action = VersionEvent.Action.RESTORE
    token_scope = REVIEW

    @_action_schema(
        "Restore a quarantined version (Security)",
        "Lifts a quarantine after review: the version returns to the status it had before "
        "(so a restore never undoes its owner's yank). The reason is published.",
        "Reviewed: the upload goes to the user's own server, as the description says.",
    )
    def post(self, request: Request, owner: str, name: str, version: str) -> Response:
        return super().post(request, owner, name, version)


class YankVersion(_VersionAction):
    """The skill's owner: the version is never "latest" again but still installs by number."""

    version_action = VersionEvent.Action.YANK
    token_scope = YANK

    @_action_schema(
        "Yank a version (its owner; published → yanked)",
        "The version is never chosen as latest again but still installs by its exact number; "
        "the reason is shown to installers. The skill's owner, with the `yank` scope.",
        "Breaks on Windows; use 1.0.2.",
    )
    def post(self, request: Request, owner: str, name: str, version: str) -> Response:
        return super().post(request, owner, name, version)


class UnyankVersion(_VersionAction):
    """The skill's owner takes a yank back."""

    version_action = VersionEvent.Action.UNYANK
    token_scope = YANK

    @_action_schema(
        "Unyank a version (its owner; yanked → published)",
        "Takes a yank back: the version can be latest again. The skill's owner, with the "
        "`yank` scope.",
        "The Windows problem was in the installer, not here.",
    )
    def post(self, request: Request, owner: str, name: str, version: str) -> Response:
        return super().post(request, owner, name, version)


class AdvisoryList(generics.ListAPIView):
    """Every quarantine and restoration, newest first: which version, when, why, what to do."""

    permission_classes = [permissions.AllowAny]
    serializer_class = AdvisorySerializer

    @extend_schema(
        summary="Advisories",
        description="Every quarantine and restoration, newest first: which version, when, why "
        "and what to do now. `owner` and `name` narrow it to one skill's.",
        parameters=[SkillFilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[VersionEvent]:
        wanted = _filters(self.request)
        queryset = selectors.advisories()
        if "owner" in wanted:
            queryset = queryset.filter(version__skill__owner=wanted["owner"].lower())
        if "name" in wanted:
            queryset = queryset.filter(version__skill__name=wanted["name"])
        return queryset


def _filters(request: Request) -> dict[str, str]:
    """The exact filters asked for, checked (400 for a NUL character or an over-long value)."""
    query = SkillFilterSerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return {key: value for key, value in query.validated_data.items() if value}


class AdvisoryDetail(generics.RetrieveAPIView):
    """One advisory."""

    permission_classes = [permissions.AllowAny]
    serializer_class = AdvisorySerializer

    @extend_schema(
        summary="One advisory",
        description="A quarantine or a restoration: the version, when, why, who issued it and "
        "what to do about it today (computed when read).",
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[VersionEvent]:
        return selectors.advisories()
