"""Review endpoints: the queue and the reviewer actions, thin adapters over reviews.services.

Refusals map to HTTP here and in config.api_errors: a non-reviewer or the author gets 403
(ReviewForbidden is Django's PermissionDenied), an action the state does not allow 409
(ActionUnavailable and TransitionConflict are TransitionErrors), invalid input 400 with the
field that is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast
from uuid import UUID

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import filters, mixins, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import scopes
from pipeline.selectors import visible_submissions
from reviews import appeals, selectors, services
from reviews.api.permissions import IsReviewer, IsSecurity
from reviews.api.serializers import (
    AppealRequestSerializer,
    AppealSerializer,
    AssignSerializer,
    AuthorAppealSerializer,
    CannedReasonSerializer,
    DecisionReasonSerializer,
    NoteSerializer,
    QueueQuerySerializer,
    ReasonSerializer,
    ReviewSerializer,
)
from reviews.models import Appeal, CannedReason, Review
from reviews.services import Action

_UUID = r"[0-9a-fA-F-]{32,36}"


@extend_schema_view(
    retrieve=extend_schema(
        summary="One review",
        description="A review of the queue by its submission's id: state, status, due date, "
        "assignee, escalation and decision.",
    )
)
class ReviewViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The Tier 3 review queue (overdue first, then by due date and priority) and its actions.
    Reviewers and Security only."""

    permission_classes = [IsReviewer]
    token_scope = scopes.REVIEW
    serializer_class = ReviewSerializer
    lookup_url_kwarg = "submission_id"
    lookup_value_regex = _UUID
    filter_backends = [filters.SearchFilter]
    search_fields = (
        "submission__skill_owner",
        "submission__skill_name",
        "submission__submitter__username",
    )

    def get_queryset(self) -> QuerySet[Review]:
        queryset = selectors.review_queue()
        if self.action != "list":
            return queryset
        query = QueueQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        return selectors.filter_queue(
            queryset,
            cast(User, self.request.user),  # IsReviewer lets reviewers in, nobody anonymous
            state=params.get("state", selectors.OPEN),
            assignee=params.get("assignee"),
            overdue_only=params.get("overdue"),
            is_escalated=params.get("escalated"),
            category=params.get("category"),
        )

    @extend_schema(
        parameters=[QueueQuerySerializer],
        summary="The review queue",
        description="Open reviews first: overdue ones, then by due date and priority; "
        "filtered by state, assignee, overdue, escalated or finding category.",
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=AssignSerializer,
        responses=ReviewSerializer,
        summary="Assign to a reviewer for Tier 3 review (NEEDS_REVIEW → TIER3_REVIEW)",
        description="Gives the review to a reviewer (yourself, usually). Nobody reviews their "
        "own submission; an escalated review goes to a member of Security.",
        examples=[OpenApiExample("To a reviewer", value={"assignee": "rita"}, request_only=True)],
    )
    @action(detail=True, methods=["post"])
    def assign(self, request: Request, submission_id: str) -> Response:
        return self._act(services.assign, AssignSerializer)

    @extend_schema(
        request=NoteSerializer,
        responses=ReviewSerializer,
        summary="Unassign (TIER3_REVIEW → NEEDS_REVIEW)",
        description="Puts the review back in the queue, unassigned; a note is optional.",
        examples=[
            OpenApiExample("With a note", value={"reason": "Out until Monday."}, request_only=True)
        ],
    )
    @action(detail=True, methods=["post"])
    def unassign(self, request: Request, submission_id: str) -> Response:
        return self._act(services.unassign, NoteSerializer)

    @extend_schema(
        request=NoteSerializer,
        responses=ReviewSerializer,
        summary="Approve and publish (TIER3_REVIEW → PUBLISHED); assignee only",
        description="Publishes the skill, its version numbered as for automatic publishing; "
        "only the reviewer holding the review may.",
        examples=[
            OpenApiExample(
                "With a note",
                value={"reason": "The cron job only cleans the skill's own cache."},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, submission_id: str) -> Response:
        return self._act(services.approve, NoteSerializer)

    @extend_schema(
        request=DecisionReasonSerializer,
        responses=ReviewSerializer,
        summary="Reject with a reason (NEEDS_REVIEW or TIER3_REVIEW → REJECTED)",
        description="Ends the submission; the reason becomes the author's verdict. It is a "
        "canned reason (`canned_reason`, see /canned-reasons), words of your own (`reason`), "
        "or both. Refused (409) while these exact files are published in this skill.",
        examples=[
            OpenApiExample(
                "With a reason",
                value={"reason": "The script deletes files outside its own folder."},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, submission_id: str) -> Response:
        return self._decide_with_reason(services.reject, Action.REJECT)

    @extend_schema(
        request=DecisionReasonSerializer,
        responses=ReviewSerializer,
        summary="Request changes (→ REJECTED with the verdict CHANGES_REQUESTED)",
        description="The author is told what to change and submits the skill again. The "
        "reason as for reject.",
    )
    @action(detail=True, methods=["post"], url_path="request-changes")
    def request_changes(self, request: Request, submission_id: str) -> Response:
        return self._decide_with_reason(services.request_changes, Action.REQUEST_CHANGES)

    def _decide_with_reason(self, service: Callable[..., Review], chosen: Action) -> Response:
        review = self.get_object()
        payload = DecisionReasonSerializer(data=self.request.data)
        payload.is_valid(raise_exception=True)
        try:
            reason = services.compose_reason(
                chosen, payload.validated_data["canned_reason"], payload.validated_data["reason"]
            )
            done = service(review.pk, self.request.user, reason)
        except DjangoValidationError as invalid:
            raise serializers.ValidationError(invalid.message_dict) from invalid
        return Response(self.get_serializer(self.get_queryset().get(pk=done.pk)).data)

    @extend_schema(
        request=ReasonSerializer,
        responses=ReviewSerializer,
        summary="Escalate to security with a reason (TIER3_REVIEW → NEEDS_REVIEW, escalated)",
        description="Hands the review to the Security group, which alone decides it from now "
        "on; the reason stays with the reviewers.",
        examples=[
            OpenApiExample(
                "With a reason",
                value={"reason": "Looks like a wiper: needs Security."},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def escalate(self, request: Request, submission_id: str) -> Response:
        return self._act(services.escalate, ReasonSerializer)

    def _act(
        self,
        service: Callable[..., Review],
        body: type[serializers.Serializer],
    ) -> Response:
        review = self.get_object()
        payload = body(data=self.request.data)
        payload.is_valid(raise_exception=True)
        try:
            done = service(review.pk, self.request.user, **payload.validated_data)
        except DjangoValidationError as invalid:
            raise serializers.ValidationError(invalid.message_dict) from invalid
        return Response(self.get_serializer(self.get_queryset().get(pk=done.pk)).data)


@extend_schema_view(
    list=extend_schema(
        summary="Canned reasons",
        description="The reasons Security keeps for reject and request-changes, in their "
        "order; pass one's id as `canned_reason`.",
    )
)
class CannedReasonViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """The reasons reviewers may pick for reject and request-changes (kept by Security)."""

    permission_classes = [IsReviewer]
    serializer_class = CannedReasonSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[CannedReason]:
        return CannedReason.objects.filter(active=True)


@extend_schema_view(
    list=extend_schema(
        summary="Appeals",
        description="Authors' appeals of reviewers' rejections, open ones first (oldest first), "
        "each with the rejection it appeals. Security only.",
    ),
    retrieve=extend_schema(
        summary="One appeal",
        description="An appeal by its submission's id: the author's reason, the rejection, "
        "and Security's decision once taken.",
    ),
)
class AppealViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Authors' appeals of reviewers' rejections, open ones first (oldest first), for the
    Security group, which grants (the skill is published) or denies them with a reason."""

    permission_classes = [IsSecurity]
    token_scope = scopes.REVIEW
    serializer_class = AppealSerializer
    lookup_url_kwarg = "submission_id"
    lookup_value_regex = _UUID

    def get_queryset(self) -> QuerySet[Appeal]:
        return Appeal.objects.select_related(
            "review__submission", "review__decided_by", "author", "decided_by"
        ).order_by("-status", "filed_at")

    @extend_schema(
        request=ReasonSerializer,
        responses=AppealSerializer,
        summary="Grant: the submission is published (REJECTED → TIER3_REVIEW → PUBLISHED)",
        description="The submission goes back to Tier 3 review, held by you, and is approved; "
        "identical rejected submissions of the skill are published with it. Not by the author "
        "or the reviewer who rejected it.",
    )
    @action(detail=True, methods=["post"])
    def grant(self, request: Request, submission_id: str) -> Response:
        return self._decide(appeals.grant)

    @extend_schema(
        request=ReasonSerializer,
        responses=AppealSerializer,
        summary="Deny: the rejection stands",
        description="The rejection stands and no state changes; your reason is shown to the "
        "author. Final.",
    )
    @action(detail=True, methods=["post"])
    def deny(self, request: Request, submission_id: str) -> Response:
        return self._decide(appeals.deny)

    def _decide(self, decision: Callable[..., Appeal]) -> Response:
        appeal = self.get_object()
        payload = ReasonSerializer(data=self.request.data)
        payload.is_valid(raise_exception=True)
        try:
            done = decision(appeal.pk, self.request.user, payload.validated_data["reason"])
        except DjangoValidationError as invalid:
            raise serializers.ValidationError(invalid.message_dict) from invalid
        return Response(self.get_serializer(done).data)


class FileAppealView(APIView):
    """The author of a submission a reviewer rejected appeals, once, with a reason."""

    permission_classes = [permissions.IsAuthenticated]
    token_scope = scopes.SUBMIT

    @extend_schema(
        request=AppealRequestSerializer,
        responses={201: AuthorAppealSerializer},
        summary="Appeal a reviewer's rejection of your submission (once)",
        description="The appeal goes to the Security group with the review attached; its "
        "outcome appears here and on GET /submissions/{id} (`review.appeal`). 409 when the "
        "submission was not rejected by a reviewer, or was appealed already.",
    )
    def post(self, request: Request, submission_id: UUID) -> Response:
        visible = visible_submissions(request.user).filter(pk=submission_id).exists()
        if not visible:
            raise Http404("no such submission of yours")
        payload = AppealRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            appeal = appeals.file_appeal(
                submission_id, cast(User, request.user), payload.validated_data["reason"]
            )
        except DjangoValidationError as invalid:
            raise serializers.ValidationError(invalid.message_dict) from invalid
        return Response(selectors.appeal_for_author(appeal.review), status=201)
