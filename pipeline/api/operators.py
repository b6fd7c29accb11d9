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
from pipeline.services import dead_letters


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
                  "error_message", "attempts", "payload", "status", "closed_at", "closed_by",
                  "close_reason", "created_at", "replayed_at", "replayed_by",
                  "replay_count")  # fmt: skip


class DismissSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text="Why it needs nothing more.")


@extend_schema_view(
    list=extend_schema(
        summary="Dead letters",
        description="Messages the pipeline gave up on, newest first, a page at a time by "
        "cursor (follow `next`), each with its error, attempts, payload and life-cycle status; "
        "`?status=open` lists those still waiting for an operator.",
    ),
    retrieve=extend_schema(
        summary="One dead letter",
        description="A message the pipeline gave up on: task, stage, reason, error, attempts, "
        "payload, its replays and how it was closed.",
    ),
)
class DeadLetterViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Messages the pipeline gave up on, newest first, a page at a time by cursor (follow
    `next`); ``?status=open`` lists those still waiting. ``POST …/{id}/replay`` resumes the
    submission, ``…/dismiss`` (with a reason) closes it without acting, ``…/resolve`` closes it
    once its submission has ended; each answers 409 with the reason when it could do nothing."""

    permission_classes = [CanHandleDeadLetters]
    token_scope = scopes.OPERATE
    serializer_class = DeadLetterSerializer
    pagination_class = NewestFirstCursorPagination
    queryset = DeadLetter.objects.all()

    def get_queryset(self):
        status = self.request.query_params.get("status")
        queryset = super().get_queryset()
        return queryset.filter(status=status) if status else queryset

    @extend_schema(
        request=None,
        responses=OpenApiTypes.OBJECT,
        summary="Replay a dead letter",
        description="Resumes the submission from its current state; one that already ended "
        "answers 409 and says so. Operators, with the `operate` scope.",
    )
    @action(detail=True, methods=["post"])
    def replay(self, request: Request, pk: str | None = None) -> Response:
        result = dead_letters.replay(self.get_object(), actor=request.user.get_username())
        return _answer("replayed", result)

    @extend_schema(
        request=DismissSerializer,
        responses=OpenApiTypes.OBJECT,
        summary="Dismiss a dead letter",
        description="Closes an open dead letter without acting, with the reason on the record "
        "(its message leaves submission-dlq). Anything but an open one answers 409. Operators, "
        "with the `operate` scope.",
    )
    @action(detail=True, methods=["post"])
    def dismiss(self, request: Request, pk: str | None = None) -> Response:
        body = DismissSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = dead_letters.dismiss(
            self.get_object(), request.user.get_username(), body.validated_data["reason"]
        )
        return _answer("dismissed", result)

    @extend_schema(
        request=None,
        responses=OpenApiTypes.OBJECT,
        summary="Resolve a dead letter",
        description="Closes an open dead letter whose submission has ended; one whose "
        "submission still waits answers 409 (replay it instead). Operators, with the `operate` "
        "scope.",
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, pk: str | None = None) -> Response:
        result = dead_letters.resolve(self.get_object(), request.user.get_username())
        return _answer("resolved", result)


def _answer(done_key: str, result: dead_letters.ActionResult) -> Response:
    return Response(
        {"id": result.dead_letter_id, done_key: result.done, "message": result.message},
        status=200 if result.done else 409,
    )
