"""Error classification: a small fixed set of classes (pipeline.error_classes), recorded on every
failed attempt and dead letter, counted in the metrics, named in outcomes — and deciding what is
retried, and against which budget.

Two kinds of retryable failure are kept apart:

* **Our infrastructure** (the database or the broker unavailable, a connection lost): nothing is
  wrong with the submission. It waits, with a floor on the backoff, until the infrastructure is
  back or its wait budget is spent (pipeline.services.retries); it never spends the submission's
  retry budget, and an author never reads "we failed" because our database restarted.
* **The world the submission depends on** (the git host, the judge's provider, a step running
  out of time): these count toward giving up, after ``SKILLGATE_STEP_MAX_RETRIES`` retries.

Anything else is a bug or a rule of the step: not retried.
"""

from __future__ import annotations

from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

from grading.errors import JudgeError, JudgeTimeout
from pipeline.error_classes import ErrorClass
from pipeline.sources.errors import SourceUnavailable
from pipeline.workflow import step_for_stage

INFRASTRUCTURE_EXCEPTIONS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    ConnectionError,
)
"""Our own database or broker failed: wait for it, never count it against the submission."""

SUBMISSION_TRANSIENT_EXCEPTIONS: tuple[type[BaseException], ...] = (
    JudgeError,
    SourceUnavailable,
    SoftTimeLimitExceeded,
    TimeoutError,
)
"""Failures of what the submission depends on: retried, and counted toward giving up."""

TRANSIENT_EXCEPTIONS = INFRASTRUCTURE_EXCEPTIONS + SUBMISSION_TRANSIENT_EXCEPTIONS


def is_infrastructure(exc: BaseException) -> bool:
    return isinstance(exc, INFRASTRUCTURE_EXCEPTIONS)


def classify(exc: BaseException, stage: str) -> ErrorClass:
    """The class of a failure in ``stage`` (the submission state the step was working on)."""
    if isinstance(exc, JudgeTimeout):
        return ErrorClass.JUDGE_TIMEOUT
    if isinstance(exc, JudgeError):
        return _known(exc.classification)
    if isinstance(exc, SourceUnavailable):
        return _known(exc.error_class)
    if isinstance(exc, SoftTimeLimitExceeded | TimeLimitExceeded | TimeoutError):
        step = step_for_stage(stage)
        return step.timeout_class if step is not None else ErrorClass.SCAN_TIMEOUT
    if is_infrastructure(exc):
        return ErrorClass.INFRASTRUCTURE
    return ErrorClass.UNKNOWN


def _known(name: str) -> ErrorClass:
    try:
        return ErrorClass(name)
    except ValueError:
        return ErrorClass.UNKNOWN
