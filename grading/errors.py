"""Why a judge could not produce a judgement.

Every error is raised to the pipeline, which retries the step with Celery (backoff, then
dead-letter); judges never sleep or retry themselves. ``classification`` is the error class the
pipeline records for the failed attempt (seed 001): ``judge_timeout``, ``judge_invalid_output``,
``provider_error``, or for a network failure what failed (``dns_failure``,
``connection_refused``, ``tls_error``, ``http_4xx``, ``http_5xx``, ``connection_failed``), as
``network_failure_class`` and ``http_status_class`` tell them apart.
"""

from __future__ import annotations

import socket
import ssl


class JudgeError(Exception):
    """Base class; ``classification`` feeds the pipeline's error classes (seed 001)."""

    classification = "provider_error"


class JudgeTimeout(JudgeError):
    """The endpoint did not answer within SKILLGATE_LLM_TIMEOUT_S."""

    classification = "judge_timeout"


class JudgeProviderError(JudgeError):
    """The endpoint answered with an error status (5xx, 4xx) or could not be reached."""

    classification = "provider_error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.classification = http_status_class(status)


class JudgeRateLimited(JudgeProviderError):
    """HTTP 429: the provider asks us to slow down; a later retry usually succeeds."""


class JudgeUnreachable(JudgeProviderError):
    """No HTTP answer at all: connection refused, DNS failure, TLS error; classified by the
    cause it is raised from."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.classification = network_failure_class(cause)


class JudgeOutputInvalid(JudgeError):
    """The answer was not valid JSON for the schema: garbage, wrong types, missing fields."""

    classification = "judge_invalid_output"


class JudgeOutputTruncated(JudgeOutputInvalid):
    """The model stopped at its token limit before finishing the JSON."""


class JudgeRefused(JudgeOutputInvalid):
    """The model (or the provider's filter) refused to answer."""


def http_status_class(status: int) -> str:
    """``http_4xx`` or ``http_5xx`` (any other status is the provider's error)."""
    if 400 <= status < 500:
        return "http_4xx"
    if 500 <= status < 600:
        return "http_5xx"
    return "provider_error"


_MESSAGE_HINTS = (
    ("dns_failure", ("name or service not known", "temporary failure in name resolution",
                     "nodename nor servname", "could not resolve", "no address associated")),
    ("connection_refused", ("connection refused",)),
    ("tls_error", ("ssl", "tls", "certificate")),
    ("judge_timeout", ("timed out",)),
)  # fmt: skip


def network_failure_class(exc: BaseException | None) -> str:
    """What failed when no HTTP answer came: the name did not resolve, the connection was
    refused, TLS failed, or it timed out; ``connection_failed`` otherwise. The exception's
    causes are searched (the HTTP client wraps the socket's error), then their messages."""
    chain: list[BaseException] = []
    while exc is not None and exc not in chain:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    for cause in chain:
        if isinstance(cause, socket.gaierror):
            return "dns_failure"
        if isinstance(cause, ConnectionRefusedError):
            return "connection_refused"
        if isinstance(cause, ssl.SSLError):
            return "tls_error"
        if isinstance(cause, TimeoutError | socket.timeout):
            return "judge_timeout"
    text = " ".join(str(cause) for cause in chain).lower()
    for classification, hints in _MESSAGE_HINTS:
        if any(hint in text for hint in hints):
            return classification
    return "connection_failed"
