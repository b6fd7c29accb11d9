"""Error classification (seed 001 ``classifyError``): a small fixed set, recorded on every failed
attempt, counted in the metrics, and deciding what is retried."""

from __future__ import annotations

from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.db import DatabaseError, InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

from grading.errors import JudgeError, JudgeTimeout
from pipeline.error_classes import ErrorClass
from pipeline.sources.errors import SourceUnavailable
from pipeline.workflow import step_for_stage

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
        step = step_for_stage(stage)
        return step.timeout_class if step is not None else ErrorClass.SCAN_TIMEOUT
    if isinstance(exc, DatabaseError | BrokerOperationalError | ConnectionError):
        return ErrorClass.INFRASTRUCTURE
    return ErrorClass.UNKNOWN
