"""Why a submission's source was refused. Each says what to fix; the API maps them to 4xx."""

from __future__ import annotations


class SourceRejected(Exception):
    """The source is invalid; ``field`` names the request field to fix (HTTP 400)."""

    status_code = 400

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class ContentTooLarge(SourceRejected):
    """The skill's content is over a size limit (HTTP 413)."""

    status_code = 413


class SourceUnavailable(Exception):
    """The git host could not be reached or timed out: not the author's fault, try again
    (HTTP 502/504). ``error_class`` says what failed (``dns_failure``, ``connection_refused``,
    ``tls_error``, ``http_4xx``, ``http_5xx``, ``fetch_timeout``, ``connection_failed``)."""

    def __init__(
        self, message: str, *, timed_out: bool = False, error_class: str = "connection_failed"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = 504 if timed_out else 502
        self.error_class = "fetch_timeout" if timed_out else error_class
