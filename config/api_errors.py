"""One error shape for the whole API: ``{"detail", "code", "errors"?}``.

``errors`` maps each request field to what is wrong with it; ``detail`` says it in one line.
Domain errors become HTTP errors here, so views stay thin.
"""

from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from pipeline.sources.errors import SourceRejected, SourceUnavailable
from pipeline.transitions import TransitionError


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state."
    default_code = "conflict"


class UpstreamUnavailable(exceptions.APIException):
    status_code = status.HTTP_502_BAD_GATEWAY
    default_detail = "An upstream service failed."
    default_code = "upstream_unavailable"


def _translate(exc: Exception) -> Exception:
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
    if isinstance(exc, TransitionError):
        return Conflict(str(exc))
    return exc


def exception_handler(exc: Exception, context: dict) -> Response | None:
    exc = _translate(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        first = next(iter(errors.items()), None)
        summary = "The request is invalid"
        if first is not None:
            field, messages = first
            message = messages[0] if isinstance(messages, list) and messages else messages
            summary = f"{field}: {message}"
        response.data = {"detail": summary, "code": "invalid", "errors": errors}
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        response.data = {
            "detail": str(detail if not isinstance(detail, dict) else detail.get("detail", "")),
            "code": exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code,
        }
    return response
