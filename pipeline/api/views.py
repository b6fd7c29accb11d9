"""Submission endpoints: thin adapters over pipeline services and selectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from config import scopes
from config.accounts import signed_in
from config.openapi import STREAM_EVENT_SCHEMA
from config.pagination import NewestFirstCursorPagination
from pipeline import streams
from pipeline.api.serializers import (
    EventSerializer,
    SubmissionCreateSerializer,
    SubmissionDetailSerializer,
    SubmissionSummarySerializer,
)
from pipeline.models import Submission, SubmissionStateEvent
from pipeline.selectors import SCANS_WITH_RESULTS, for_listing, visible_submissions
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.states import reachable_from


class EventStreamRenderer(BaseRenderer):
    """Lets a client that accepts only ``text/event-stream`` reach the stream; an error on the
    way there (404, 401) is sent as one ``event: error`` with the API's error body."""

    media_type = streams.MEDIA_TYPE
    format = "sse"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        return streams.message(data, "error").encode("utf-8")


@extend_schema_view(
    list=extend_schema(
        summary="Your submissions",
        description="Your submissions (operators: everyone's), newest first, a page at a time "
        "by cursor: follow `next` until it is null; `limit` sets the page size. Each row has "
        "its state and outcome; read one submission for its scans and what decided it.",
    ),
    retrieve=extend_schema(
        summary="One submission",
        description="Its state, source, bundle sha256, outcome, `deciding` (each finding that "
        "decided the outcome with its file, line, the line itself and the fix), both tiers' "
        "scans, the review as its author may see it, the version it published and whether "
        "it is stale. Anyone else's submission answers 404.",
    ),
)
class SubmissionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your submissions (operators see all), newest first, a page at a time by cursor (follow
    `next`). Anyone else's submission answers 404."""

    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "submissions"
    token_scope = scopes.SUBMIT
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
        description="Either `files` (every file of the skill as text, `SKILL.md` at the top; "
        "see `GET /limits`) or `repo_url` with an optional `skill_path` and `ref` (fetched by "
        "a worker after this answer). Answers 201 with the submission and its `Location`; "
        "follow it with `GET /submissions/{id}/stream`. Needs a token with the `submit` scope.",
        examples=[
            OpenApiExample(
                "A skill of two files",
                value={
                    "files": {
                        "SKILL.md": "---\nname: hello-example\ndescription: Says hello.\n---\n"
                        "Greet the user with `scripts/hello.sh`.\n",
                        "scripts/hello.sh": "#!/bin/sh\necho hello\n",
                    }
                },
                request_only=True,
            ),
            OpenApiExample(
                "A skill in a folder of a git repository",
                value={
                    "repo_url": "https://github.com/obra/superpowers",
                    "skill_path": "skills/brainstorming",
                },
                request_only=True,
            ),
        ],
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
        description="Every state change with its trigger, actor and details. To an author, a "
        "reviewer's action is \"a reviewer\"'s unless the site shows reviewers' names.",
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request: Request, pk: str | None = None) -> Response:
        submission = self.get_object()
        events = EventSerializer(submission.events.all(), many=True, context={"request": request})
        return Response(events.data)

    @extend_schema(
        summary="Follow the submission as a server-sent event stream",
        description=(
            "`text/event-stream`: each audit event as `event: state` (its `id` is the "
            "event's), then `event: end` with the state and outcome once the submission is "
            "published, rejected or waiting for a person, and the stream closes. A stream "
            "lasts at most `SKILLGATE_STREAM_MAX_S` seconds (15 by default) and then closes "
            "with a comment: reconnect with the header `Last-Event-ID` (the last `id` "
            "received) and the stream goes on after it. `retry:` says how long to wait before "
            "reconnecting."
        ),
        parameters=[
            OpenApiParameter(
                "Last-Event-ID",
                OpenApiTypes.INT,
                OpenApiParameter.HEADER,
                description="Resume after this event (the last `id:` received).",
            )
        ],
        responses={
            (200, streams.MEDIA_TYPE): OpenApiResponse(
                STREAM_EVENT_SCHEMA,
                description="The event stream.",
                examples=[
                    OpenApiExample(
                        "A submission published while followed",
                        value=(
                            "retry: 1000\n\n"
                            'id: 41\nevent: state\ndata: {"from_state":null,'
                            '"to_state":"RECEIVED","trigger":"api-submission",…}\n\n'
                            'id: 45\nevent: end\ndata: {"state":"PUBLISHED","outcome":'
                            '{"kind":"verdict","code":"PUBLISHED","message":"Published as '
                            'alice/hello@1.0.0"}}\n\n'
                        ),
                    )
                ],
            )
        },
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer, EventStreamRenderer],
        pagination_class=None,
    )
    def stream(self, request: Request, pk: str | None = None) -> StreamingHttpResponse:
        submission = self.get_object()
        after = request.headers.get("Last-Event-ID", "0").strip() or "0"
        if not after.isdigit():
            raise serializers.ValidationError(
                {"Last-Event-ID": ["send the last event id received, a whole number"]}
            )
        context = {"request": request}

        def show(event: SubmissionStateEvent) -> dict[str, Any]:
            return dict(EventSerializer(event, context=context).data)

        response = StreamingHttpResponse(
            streams.follow(submission.pk, int(after), show),
            content_type=f"{streams.MEDIA_TYPE}; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy in front must not hold events back
        return response

    @extend_schema(
        responses=inline_serializer(
            "Transitions",
            {"state": serializers.CharField(), "transitions": serializers.ListField()},
        ),
        summary="States reachable from the current one",
        description="The states the state machine allows next, from the submission's current "
        "one: what can still happen to it.",
    )
    @action(detail=True, methods=["get"])
    def transitions(self, request: Request, pk: str | None = None) -> Response:
        submission = self.get_object()
        return Response(
            {"state": submission.state, "transitions": reachable_from(submission.state)}
        )


class SubmissionLimitsSerializer(serializers.Serializer):
    max_files = serializers.IntegerField(help_text="Files in one inline submission.")
    max_content_bytes = serializers.IntegerField(
        help_text="Bytes of all files together (UTF-8), inline."
    )
    max_path_length = serializers.IntegerField(help_text="Characters in one file's path.")
    git_max_bundle_bytes = serializers.IntegerField(help_text="Bytes of a skill fetched from git.")
    git_allowed_hosts = serializers.ListField(child=serializers.CharField())
    submission_rate = serializers.CharField(help_text="Submissions per account, e.g. 120/hour.")


class SubmissionLimits(APIView):
    """What a submission may be, so a client can check before it uploads."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=SubmissionLimitsSerializer,
        summary="The limits a submission must respect",
        description="`skillgate submit` reads these and refuses a folder that would break "
        "them before uploading anything.",
    )
    def get(self, request: Request) -> Response:
        return Response(
            {
                "max_files": settings.SKILLGATE_MAX_FILES,
                "max_content_bytes": settings.SKILLGATE_MAX_CONTENT_BYTES,
                "max_path_length": settings.SKILLGATE_MAX_PATH_LENGTH,
                "git_max_bundle_bytes": settings.SKILLGATE_GIT_MAX_BUNDLE_BYTES,
                "git_allowed_hosts": list(settings.SKILLGATE_GIT_ALLOWED_HOSTS),
                "submission_rate": api_settings.DEFAULT_THROTTLE_RATES["submissions"],
            }
        )
