"""One error shape for the whole API: ``{"detail", "code", "errors"}``.

``detail`` says what is wrong in one line, ``code`` is stable for programs, ``errors`` maps each
request field to what is wrong with it (empty when no field is to blame). Domain errors,
Django's own 404/403 and an unavailable database all become that shape here, so views stay thin
and no message names an internal model.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from pipeline.sources.errors import SourceRejected, SourceUnavailable
from pipeline.transitions import TransitionError
from registry.lifecycle import VersionStatusError
from registry.namespaces import NameTaken

API_PREFIX = "/api/"
RETRY_AFTER_S = 10
SEND_JSON = "send JSON with Content-Type: application/json"
SEND_TOKEN = "authenticate with the header 'Authorization: Token <your API token>'"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class UpstreamUnavailable(exceptions.APIException):
    status_code: int = status.HTTP_502_BAD_GATEWAY  # 504 when the upstream timed out: set per error
    default_detail = "An upstream service failed."
    default_code = "upstream_unavailable"


class ServiceUnavailable(exceptions.APIException):
    """Our own dependency (the database) is down: nothing was stored, retry later."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = (
        "The registry's database is unavailable right now; nothing was stored. "
        f"Retry in {RETRY_AFTER_S} seconds."
    )
    default_code = "unavailable"


DATABASE_DOWN = (OperationalError, InterfaceError)


def _resource_name(view: Any) -> str:
    """What the view serves, in words ("submission", "skill version"), for a 404 message."""
    get_serializer_class = getattr(view, "get_serializer_class", None)
    serializer = get_serializer_class() if get_serializer_class else None
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    return str(model._meta.verbose_name) if model is not None else "resource"


def _translate(exc: Exception, context: dict[str, Any]) -> Exception:
    if isinstance(exc, Http404):
        return exceptions.NotFound(f"{_resource_name(context.get('view'))} not found")
    if isinstance(exc, PermissionDenied):
        return exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, exceptions.NotAuthenticated):
        return exceptions.NotAuthenticated(f"No credentials were sent: log in, or {SEND_TOKEN}.")
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return exceptions.UnsupportedMediaType(
            str(exc.detail), detail=f"This endpoint takes JSON: {SEND_JSON}."
        )
    if isinstance(exc, exceptions.ParseError):
        return exceptions.ParseError(f"The body is not valid JSON ({exc.detail}); {SEND_JSON}.")
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge("The request body is larger than this server accepts.")
    if isinstance(exc, SourceRejected):
        if exc.status_code == status.HTTP_413_REQUEST_ENTITY_TOO_LARGE:
            return PayloadTooLarge(exc.message)
        return exceptions.ValidationError({exc.field: [exc.message]})
    if isinstance(exc, SourceUnavailable):
        error = UpstreamUnavailable(f"{exc.message}; try again later")
        error.status_code = exc.status_code
        return error
    if isinstance(exc, TransitionError | VersionStatusError | NameTaken):
        return Conflict(str(exc))
    if isinstance(exc, DATABASE_DOWN):
        return ServiceUnavailable()
    return exc


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    exc = _translate(exc, context)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"detail": _summary(errors), "code": "invalid", "errors": errors}
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        codes = exc.get_codes()
        response.data = {
            "detail": str(detail if not isinstance(detail, dict) else detail.get("detail", "")),
            "code": codes if isinstance(codes, str) else exc.default_code,
            "errors": {},
        }
    if isinstance(exc, ServiceUnavailable):
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def _summary(errors: dict[str, Any]) -> str:
    first = next(iter(errors.items()), None)
    if first is None:
        return "The request is invalid"
    field, messages = first
    if isinstance(messages, dict):
        return f"{field}.{_summary(messages)}"
    message = messages[0] if isinstance(messages, list) and messages else messages
    return f"{field}: {message}"


def error_body(detail: str, code: str) -> dict[str, Any]:
    return {"detail": detail, "code": code, "errors": {}}


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 for a path no view matches: the API's shape under /api/, a page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            error_body(
                f"There is no endpoint at {request.path}; the API's endpoints are listed at "
                "/api/v1/ and documented at /api/docs/.",
                "not_found",
            ),
            status=404,
        )
    return defaults.page_not_found(request, exception or Http404())


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            error_body("An unexpected error occurred; it has been logged.", "server_error"),
            status=500,
        )
    return defaults.server_error(request)


class DatabaseUnavailableMiddleware:
    """Outside DRF views (the admin, /metrics, health pages) a database outage answers 503 with
    ``Retry-After`` too, instead of a bare 500."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_DOWN):
            return None
        body = error_body(str(ServiceUnavailable.default_detail), "unavailable")
        if request.path.startswith(API_PREFIX):
            response: HttpResponse = JsonResponse(body, status=503)
        else:
            response = HttpResponse(body["detail"], status=503, content_type="text/plain")
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
