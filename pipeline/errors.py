"""Error classification (seed 001 ``classifyError``): a small fixed set, recorded on every failed
attempt, counted in the metrics, and deciding what is retried."""

from __future__ import annotations

from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.db import DatabaseError, InterfaceError, OperationalError
from django.db.models import TextChoices
from kombu.exceptions import OperationalError as BrokerOperationalError

from grading.errors import JudgeError, JudgeTimeout
from pipeline.sources.errors import SourceUnavailable
from pipeline.states import State


class ErrorClass(TextChoices):
    FETCH_TIMEOUT = "fetch_timeout"
    SCAN_TIMEOUT = "scan_timeout"
    JUDGE_TIMEOUT = "judge_timeout"
    PROVIDER_ERROR = "provider_error"
    JUDGE_INVALID_OUTPUT = "judge_invalid_output"
    INFRASTRUCTURE = "infrastructure"
    WORKER_LOST = "worker_lost"
    UNKNOWN = "unknown"


# What a step may retry: failures of the world around it, never its own bugs.
TRANSIENT_EXCEPTIONS: tuple[type[BaseException], ...] = (
    JudgeError,
    SourceUnavailable,
    SoftTimeLimitExceeded,
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    ConnectionError,
    TimeoutError,
)


def classify(exc: BaseException, stage: str) -> ErrorClass:
    """The class of a failure in ``stage`` (the submission state the step was working on)."""
    if isinstance(exc, JudgeTimeout):
        return ErrorClass.JUDGE_TIMEOUT
    if isinstance(exc, JudgeError):
        return ErrorClass(exc.classification)
    if isinstance(exc, SourceUnavailable):
        return ErrorClass.FETCH_TIMEOUT
    if isinstance(exc, SoftTimeLimitExceeded | TimeLimitExceeded | TimeoutError):
        return (
            ErrorClass.JUDGE_TIMEOUT if stage == State.TIER2_SCANNING else ErrorClass.SCAN_TIMEOUT
        )
    if isinstance(exc, DatabaseError | BrokerOperationalError | ConnectionError):
        return ErrorClass.INFRASTRUCTURE
    return ErrorClass.UNKNOWN
