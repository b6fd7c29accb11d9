"""Operator endpoints: queue status, 24-hour metrics, dead letters (Operators group only)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config import scopes
from config.pagination import NewestFirstCursorPagination
from pipeline import monitoring
from pipeline.api.permissions import CanHandleDeadLetters, CanViewOperations
from pipeline.models import DeadLetter
from pipeline.services.dead_letters import replay


class QueueStatusView(APIView):
    """Stale submissions (no progress for 3 minutes; `stuck` once the recovery sweep acts,
    after 5) with stage, age, classification and recovery budget; counts per state; queue
    depths."""

    permission_classes = [CanViewOperations]

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="Queue status",
        description="Stale and stuck submissions with their stage, age, last classification "
        "and recovery budget; counts per state; in-flight attempts; queue depths.",
    )
    def get(self, request: Request) -> Response:
        return Response(monitoring.queue_status(timezone.now()))


class QueueMetricsView(APIView):
    """The last 24 hours, hourly: throughput, decision rates, stage latencies against the
    published targets (Tier 1 500 ms, Tier 2 15 s, publishing 5 s, end to end 30 s), queue
    depths, job failure rate and classified timeouts."""

    permission_classes = [CanViewOperations]

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="Queue metrics",
        description="The last 24 hours, hourly: received, published, rejected, decision "
        "rates, p50/p95 per stage against their targets, queue depths, failures and timeouts.",
    )
    def get(self, request: Request) -> Response:
        return Response(monitoring.queue_metrics(timezone.now()))


class DeadLetterSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeadLetter
        fields = ("id", "submission", "task_name", "task_id", "stage", "reason", "error_class",
                  "error_message", "payload", "created_at", "replayed_at", "replayed_by",
                  "replay_count")  # fmt: skip


@extend_schema_view(
    list=extend_schema(
        summary="Dead letters",
        description="Messages the pipeline gave up on, newest first, a page at a time by "
        "cursor (follow `next`), each with its error and payload.",
    ),
    retrieve=extend_schema(
        summary="One dead letter",
        description="A message the pipeline gave up on: task, stage, reason, error, payload "
        "and its replays.",
    ),
)
class DeadLetterViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Messages the pipeline gave up on, newest first, a page at a time by cursor (follow
    `next`); ``POST …/{id}/replay`` resumes the submission."""

    permission_classes = [CanHandleDeadLetters]
    token_scope = scopes.OPERATE
    serializer_class = DeadLetterSerializer
    pagination_class = NewestFirstCursorPagination
    queryset = DeadLetter.objects.all()

    @extend_schema(
        request=None,
        responses=OpenApiTypes.OBJECT,
        summary="Replay a dead letter",
        description="Resumes the submission from its current state; one that already ended "
        "answers 409 and says so. Operators, with the `operate` scope.",
    )
    @action(detail=True, methods=["post"])
    def replay(self, request: Request, pk: str | None = None) -> Response:
        result = replay(self.get_object(), actor=request.user.get_username())
        return Response(
            {"id": result.dead_letter_id, "replayed": result.replayed, "message": result.message},
            status=200 if result.replayed else 409,
        )
