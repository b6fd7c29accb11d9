"""Operators start and follow re-scan campaigns: ``POST/GET /api/v1/admin/rescans``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.scopes import OPERATE
from registry import rescans
from registry.models import RescanCampaign


class MayRunRescans(permissions.BasePermission):
    """Reading campaigns needs their view permission, starting one ``registry.start_rescan``
    (the Operators group holds both; the admin checks the same)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if request.method in permissions.SAFE_METHODS:
            return bool(user.has_perm("registry.view_rescancampaign"))
        return bool(user.has_perm("registry.start_rescan"))


class RescanStartSerializer(serializers.Serializer):
    """Which versions: all published (``all``), one owner's, or those published since a day."""

    all = serializers.BooleanField(required=False, default=False)
    owner = serializers.CharField(required=False, allow_blank=False, max_length=100)
    since = serializers.DateField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        chosen = attrs["all"] or "owner" in attrs or "since" in attrs
        if not chosen:
            raise serializers.ValidationError(
                {"all": ["say which versions: all=true, an owner, or since (a day)"]}
            )
        if attrs["all"] and ("owner" in attrs or "since" in attrs):
            raise serializers.ValidationError({"all": ["all=true takes no owner or since"]})
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError({field: ["unknown field"] for field in unknown})
        return attrs

    def scope(self) -> rescans.RescanScope:
        data = self.validated_data
        return rescans.RescanScope(owner=data.get("owner", ""), since=data.get("since"))


class RescanCampaignSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()

    class Meta:
        model = RescanCampaign
        fields = (
            "id",
            "status",
            "scope",
            "catalogue_version",
            "judge_version",
            "total",
            "done",
            "changed",
            "failed",
            "progress",
            "started_by",
            "started_at",
            "finished_at",
        )

    def get_progress(self, campaign: RescanCampaign) -> dict[str, Any]:
        """Share done and the estimated seconds left at the rate so far (null when unknown)."""
        figures = rescans.progress(campaign)
        finished = figures.done + figures.failed
        return {
            "share_done": round(finished / figures.total, 4) if figures.total else 1.0,
            "eta_s": None if figures.eta is None else round(figures.eta.total_seconds(), 1),
        }


@extend_schema_view(
    list=extend_schema(
        summary="Re-scan campaigns",
        description="Every campaign, newest first, with its progress: total, done, changed, "
        "failed and an estimate of when it ends.",
    ),
    retrieve=extend_schema(
        summary="One re-scan campaign",
        description="A campaign's scope, catalogue and judge versions, and its progress.",
    ),
)
class RescanCampaignViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Re-scan campaigns, newest first; ``POST`` starts one."""

    permission_classes = [MayRunRescans]
    token_scope = OPERATE
    serializer_class = RescanCampaignSerializer
    queryset = RescanCampaign.objects.order_by("-started_at")

    @extend_schema(
        request=RescanStartSerializer,
        responses={201: RescanCampaignSerializer},
        summary="Start a re-scan campaign",
        description="Grades published and yanked versions again with today's rules and judge: "
        "all of them, one owner's, or those published since a date. Operators, with the "
        "`operate` scope.",
        examples=[OpenApiExample("Everything", value={"all": True}, request_only=True)],
    )
    def create(self, request: Request) -> Response:
        body = RescanStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        campaign = rescans.start_campaign(body.scope(), request.user.get_username())
        return Response(RescanCampaignSerializer(campaign).data, status=status.HTTP_201_CREATED)
