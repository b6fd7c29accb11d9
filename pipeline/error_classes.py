"""The classes of failure a step can end in: a small fixed set, recorded on every failed attempt
and dead letter, counted per hour, named in the outcome an author reads, and named by each step
of the registry for its time-outs.

Network failures are told apart by what failed — the name did not resolve, nobody listened, the
TLS handshake failed, the server answered with an error status, or nothing came back in time —
because each asks for a different fix (a typo in a host name is not a slow server).
"""

from __future__ import annotations

from django.db.models import TextChoices


class ErrorClass(TextChoices):
    FETCH_TIMEOUT = "fetch_timeout", "the git host did not answer in time"
    SCAN_TIMEOUT = "scan_timeout", "the step ran out of time"
    JUDGE_TIMEOUT = "judge_timeout", "the judge did not answer in time"
    DNS_FAILURE = "dns_failure", "the host name could not be resolved"
    CONNECTION_REFUSED = "connection_refused", "the host refused the connection"
    TLS_ERROR = "tls_error", "the TLS handshake or certificate check failed"
    HTTP_4XX = "http_4xx", "the server answered with a client error (HTTP 4xx)"
    HTTP_5XX = "http_5xx", "the server answered with a server error (HTTP 5xx)"
    CONNECTION_FAILED = "connection_failed", "the connection failed"
    PROVIDER_ERROR = "provider_error", "the judge's provider failed"
    JUDGE_INVALID_OUTPUT = "judge_invalid_output", "the judge's answer was unusable"
    INFRASTRUCTURE = "infrastructure", "our database or broker was unavailable"
    WORKER_LOST = "worker_lost", "the worker process died"
    UNKNOWN = "unknown", "an unexpected error"


def describe(error_class: str) -> str:
    """The class in words, for messages people read ("the host name could not be resolved")."""
    try:
        return str(ErrorClass(error_class).label)
    except ValueError:
        return error_class
