"""In-flight attempts (seed 001's ``inflight:{id}`` records, as rows): which step runs on which
submission, where, since when, and how the last one failed."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from pipeline.errors import ErrorClass, classify
from pipeline.models import ProcessingAttempt, Submission
from pipeline.services.timeouts import record_timeout

logger = logging.getLogger(__name__)

# A message whose worker died this many times is a poison pill, not bad luck.
MAX_LOST_DELIVERIES = 3


@dataclass(frozen=True)
class StepContext:
    """Where a step runs: filled from the Celery request by the task adapter."""

    task_name: str
    task_id: str = ""
    worker: str = ""
    attempt: int = 1
    redelivered: bool = False


class CrashLoopDetected(Exception):
    """The worker process died on this message again and again: stop redelivering it."""


@contextmanager
def tracked_attempt(submission: Submission, context: StepContext) -> Iterator[ProcessingAttempt]:
    """Record the attempt as running, then as succeeded or failed with its error class."""
    lost = _mark_lost_deliveries(context.task_id) if context.redelivered else 0
    if lost >= MAX_LOST_DELIVERIES:
        raise CrashLoopDetected(
            f"the worker died {lost} times running {context.task_name} on this submission"
        )
    with transaction.atomic():
        _without_waiting_for_disk()
        attempt = ProcessingAttempt.objects.create(
            submission=submission,
            stage=submission.state,
            task_name=context.task_name,
            task_id=context.task_id,
            worker=context.worker,
            attempt=context.attempt,
            started_at=timezone.now(),
        )
    try:
        yield attempt
    except BaseException as exc:
        _finish(attempt, ProcessingAttempt.Status.FAILED, classify(exc, attempt.stage), str(exc))
        raise
    if attempt.status == ProcessingAttempt.Status.RUNNING:
        _finish(attempt, ProcessingAttempt.Status.SUCCEEDED)


def succeed_with(attempt: ProcessingAttempt) -> None:
    """Mark the attempt succeeded inside the step's own transaction: one commit instead of
    two, and the attempt ends exactly when the step's result becomes visible."""
    finished_at = timezone.now()
    ProcessingAttempt.objects.filter(pk=attempt.pk).update(
        status=ProcessingAttempt.Status.SUCCEEDED, finished_at=finished_at
    )
    attempt.status = ProcessingAttempt.Status.SUCCEEDED
    attempt.finished_at = finished_at


def _without_waiting_for_disk() -> None:
    """The in-flight record is a hint, not a fact (seed 001: "informational, not
    authoritative"): on PostgreSQL its commit need not wait for the disk. A crash loses at most
    the last fraction of a second of hints; the step's own transaction stays fully durable."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def latest_attempt(submission: Submission) -> ProcessingAttempt | None:
    return submission.attempts.order_by("-started_at").first()


def _mark_lost_deliveries(task_id: str) -> int:
    """A redelivered message keeps its task id: an attempt of it still 'running' died with its
    worker. Mark those, and return how many deliveries of this message were lost so far."""
    lost_now = ProcessingAttempt.objects.filter(
        task_id=task_id, status=ProcessingAttempt.Status.RUNNING
    ).update(
        status=ProcessingAttempt.Status.FAILED,
        error_class=ErrorClass.WORKER_LOST,
        error_message="the worker process died or lost its broker connection mid-step",
        finished_at=timezone.now(),
    )
    if lost_now == 0:
        return 0
    for _ in range(lost_now):
        record_timeout(ErrorClass.WORKER_LOST, 0.0)
    return ProcessingAttempt.objects.filter(
        task_id=task_id, error_class=ErrorClass.WORKER_LOST
    ).count()


def _finish(
    attempt: ProcessingAttempt, status: str, error_class: str = "", error_message: str = ""
) -> None:
    finished_at = timezone.now()
    try:
        ProcessingAttempt.objects.filter(pk=attempt.pk).update(
            status=status,
            error_class=error_class,
            error_message=error_message[:2000],
            finished_at=finished_at,
        )
        if error_class:
            elapsed_ms = (finished_at - attempt.started_at).total_seconds() * 1000
            record_timeout(error_class, elapsed_ms, finished_at)
    except DatabaseError:
        # The database itself failed (the usual reason we are here): drop the broken
        # connection; the step is retried and the next attempt marks this one.
        logger.warning("could not record the end of attempt %s", attempt.pk, exc_info=True)
        connection.close()
