"""Submission endpoints: thin adapters over pipeline services and selectors."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from config.accounts import signed_in
from config.pagination import NewestFirstCursorPagination
from pipeline.api.serializers import (
    EventSerializer,
    SubmissionCreateSerializer,
    SubmissionDetailSerializer,
    SubmissionSummarySerializer,
)
from pipeline.models import Submission
from pipeline.selectors import SCANS_WITH_RESULTS, for_listing, visible_submissions
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.states import reachable_from


class SubmissionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your submissions (operators see all), newest first, a page at a time by cursor (follow
    `next`). Anyone else's submission answers 404."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "submissions"
    pagination_class = NewestFirstCursorPagination

    def get_queryset(self) -> QuerySet[Submission]:
        queryset = visible_submissions(self.request.user)
        if self.action == "retrieve":
            return queryset.select_related(
                "review__assignee", "review__decided_by"
            ).prefetch_related(SCANS_WITH_RESULTS)
        if self.action == "list":
            return for_listing(queryset)
        return queryset

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        if self.action == "create":
            return SubmissionCreateSerializer
        if self.action == "list":
            return SubmissionSummarySerializer
        return SubmissionDetailSerializer

    def get_throttles(self) -> list[BaseThrottle]:
        return super().get_throttles() if self.action == "create" else []

    @extend_schema(
        request=SubmissionCreateSerializer,
        responses={201: SubmissionDetailSerializer},
        summary="Submit a skill (inline files or a git repository)",
    )
    def create(self, request: Request) -> Response:
        serializer = SubmissionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        submission = create_submission(
            signed_in(request.user),
            SubmissionRequest(**serializer.validated_data),
            trigger="api-submission",
        )
        submission = self.get_queryset().prefetch_related(SCANS_WITH_RESULTS).get(pk=submission.pk)
        body = SubmissionDetailSerializer(submission, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})

    @extend_schema(
        responses=EventSerializer(many=True),
        summary="The audit trail, oldest first (complete: a submission has a handful of events)",
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request: Request, pk: str | None = None) -> Response:
        submission = self.get_object()
        return Response(EventSerializer(submission.events.all(), many=True).data)

    @extend_schema(
        responses=inline_serializer(
            "Transitions",
            {"state": serializers.CharField(), "transitions": serializers.ListField()},
        ),
        summary="States reachable from the current one",
    )
    @action(detail=True, methods=["get"])
    def transitions(self, request: Request, pk: str | None = None) -> Response:
        submission = self.get_object()
        return Response(
            {"state": submission.state, "transitions": reachable_from(submission.state)}
        )
