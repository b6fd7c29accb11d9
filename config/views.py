"""The two front doors a newcomer opens first: the landing page ``/`` and the API root."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from config.health import readiness

# (path under /api/v1/, who may call it, what it is): the endpoints a client starts from.
API_ENDPOINTS: tuple[tuple[str, str, str], ...] = (
    ("submissions", "authors (token)", "submit a skill; list your submissions"),
    ("submissions/{id}", "authors (token)", "a submission's state, outcome, scans and version"),
    ("submissions/{id}/events", "authors (token)", "a submission's audit trail"),
    (
        "submissions/{id}/stream",
        "authors (token)",
        "follow a submission: its events as server-sent events",
    ),
    ("limits", "anyone", "what a submission may be (files, bytes, path length)"),
    ("submissions/{id}/transitions", "authors (token)", "states reachable from the current one"),
    ("skills", "anyone", "the public registry of published skills"),
    ("search?q=WORDS", "anyone", "published skills by name, owner or description"),
    ("skills/{owner}/{name}", "anyone", "one skill with its versions"),
    ("skills/{owner}/{name}/versions/{version}", "anyone", "one version: status, files, sha256"),
    ("skills/{owner}/{name}/versions/{version}/archive", "anyone", "the version's .tar.gz"),
    (
        "skills/{owner}/{name}/versions/{version}/{yank|unyank}",
        "the skill's owner (token)",
        "withdraw a version from 'latest', or take that back",
    ),
    (
        "skills/{owner}/{name}/versions/{version}/{quarantine|restore}",
        "Security (token)",
        "hide a version and refuse its archive, or lift that",
    ),
    ("advisories", "anyone", "quarantines and restorations, newest first (also .atom)"),
    ("account", "anyone with a token", "who the token belongs to"),
    ("tokens", "anyone with a token", "your API tokens: list, make (scoped, expiring), revoke"),
    ("reviews", "reviewers", "the review queue and the reviewer actions"),
    ("admin/queue/status", "operators", "stuck submissions, counts per state, queue depths"),
    ("admin/queue/metrics", "operators", "the last 24 hours, hourly"),
    ("admin/dead-letters", "operators", "messages the pipeline gave up on; replay"),
)


def home(request: HttpRequest) -> HttpResponse:
    """What runs here and where to go next."""
    return render(
        request,
        "skillgate/home.html",
        {
            "checks": readiness(),
            "flower_url": settings.SKILLGATE_FLOWER_URL,
            "endpoints": API_ENDPOINTS,
        },
    )


class ApiRoot(APIView):
    """The API's endpoints, with links to the schema and the interactive documentation."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="The API's endpoints",
        description="Where a client starts: each endpoint with who may call it and what it is, "
        "and links to this schema and its documentation.",
    )
    def get(self, request: Request) -> Response:
        base = reverse("api-root", request=request)
        return Response(
            {
                "documentation": reverse("docs", request=request),
                "schema": reverse("schema", request=request),
                "authentication": "Authorization: Token <your API token> (or Bearer <token>)",
                "endpoints": [
                    {"url": f"{base}{path}", "who": who, "what": what}
                    for path, who, what in API_ENDPOINTS
                ],
            }
        )
