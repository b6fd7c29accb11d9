"""In-flight attempts (seed 001's ``inflight:{id}`` records, as rows): which step runs on which
submission, where, since when, and how the last one failed."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from config.statements import (
    column,
    columns,
    concrete_field_names,
    instance,
    prepared,
    single_statements,
    table,
    without_waiting_for_disk,
)
from pipeline.errors import ErrorClass, classify
from pipeline.models import ProcessingAttempt, Submission
from pipeline.services.timeouts import record_timeout
from pipeline.states import State
from pipeline.transitions import CompanionWrite
from registry.models import BundleSnapshot

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
    previous_failure: str = ""
    """The class of the failure the previous run of this message ended in (a retry)."""


class CrashLoopDetected(Exception):
    """The worker process died on this message again and again: stop redelivering it."""


@dataclass(frozen=True)
class Started:
    """A step that has work to do: its submission (as the step reads it) and its attempt,
    recorded as running."""

    submission: Submission
    attempt: ProcessingAttempt
    read: dict[str, Any] = field(default_factory=dict)
    """The values of the step's extra ``reads``, as the database returned them."""


def start_attempt(
    submission_id: str,
    context: StepContext,
    stages: frozenset[State],
    bundle_fields: tuple[str, ...] = (),
    reads: Mapping[str, str] | None = None,
) -> Started | None:
    """The submission, if it waits for this step (its state is one of ``stages``), with the
    step's attempt recorded as running; None when there is nothing to do (already done, moved
    on, or gone). ``bundle_fields`` are the bundle's columns the step reads (its files, its
    manifest), loaded with the submission; ``reads`` are scalar SQL expressions of the
    submission row (aliased ``submission``) the step needs too, e.g. its stored Tier 1 report.

    On PostgreSQL one statement reads all of it and records the attempt. A redelivered message
    takes the long way: its lost deliveries are counted first, and a crash loop raises
    CrashLoopDetected before the step runs again. So does a retry: the earlier runs the database
    could not record are recorded first.
    """
    reads = reads or {}
    if single_statements() and not context.redelivered and context.attempt == 1:
        return _start_in_one_statement(submission_id, context, stages, bundle_fields, reads)
    submission = Submission.objects.select_related("bundle").filter(pk=submission_id).first()
    if submission is None or submission.state not in stages:
        _nothing_to_do(submission_id, context, submission)
        return None
    lost = _mark_lost_deliveries(context.task_id) if context.redelivered else 0
    if context.attempt > 1:
        _close_unrecorded_runs(context, submission)
    if lost >= MAX_LOST_DELIVERIES:
        raise CrashLoopDetected(
            f"the worker died {lost} times running {context.task_name} on this submission"
        )
    started = begin_attempt(submission, context)
    if reads:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {', '.join(f'({expression})' for expression in reads.values())}"
                f" FROM {table(Submission)} submission WHERE submission.id = %s",
                [prepared(Submission, "id", submission.pk)],
            )
            started.read.update(zip(reads, cursor.fetchone(), strict=True))
    return started


def begin_attempt(submission: Submission, context: StepContext) -> Started:
    """Record the step's attempt as running on a submission already read (the scan goes on
    from intake in the same message): one insert, not waiting for the disk."""
    attempt = ProcessingAttempt(
        submission=submission,
        stage=submission.state,
        task_name=context.task_name,
        task_id=context.task_id,
        worker=context.worker,
        attempt=context.attempt,
        started_at=timezone.now(),
    )
    if not single_statements():
        with transaction.atomic():
            _without_waiting_for_disk()
            attempt.save(force_insert=True)
        return Started(submission, attempt)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table(ProcessingAttempt)}"
            f" ({', '.join(column(ProcessingAttempt, name) for name in _ATTEMPT_FIELDS)})"
            f" VALUES ({', '.join(['%s'] * len(_ATTEMPT_FIELDS))})"
            f" RETURNING id{without_waiting_for_disk()}",
            [prepared(ProcessingAttempt, name, getattr(attempt, name)) for name in _ATTEMPT_FIELDS],
        )
        attempt.pk = cursor.fetchone()[0]
    attempt._state.adding = False
    attempt._state.db = connection.alias
    return Started(submission, attempt)


@contextmanager
def finishing(attempt: ProcessingAttempt) -> Iterator[ProcessingAttempt]:
    """Record how the attempt ended: failed with its error class when the step raises,
    otherwise succeeded (unless the step's own transaction already said so)."""
    try:
        yield attempt
    except BaseException as exc:
        _finish(attempt, ProcessingAttempt.Status.FAILED, classify(exc, attempt.stage), str(exc))
        raise
    if attempt.status == ProcessingAttempt.Status.RUNNING:
        _finish(attempt, ProcessingAttempt.Status.SUCCEEDED)


class Succeeded(CompanionWrite):
    """The attempt's success, written with the transition its step made: one commit instead of
    two, and the attempt ends exactly when the step's result becomes visible."""

    def __init__(self, attempt: ProcessingAttempt) -> None:
        self.attempt = attempt
        self.finished_at = timezone.now()

    def sql(self, moved: str, prelude: str) -> tuple[str, list[Any]]:
        return (
            f"UPDATE {table(ProcessingAttempt)} SET {column(ProcessingAttempt, 'status')} = %s,"
            f" {column(ProcessingAttempt, 'finished_at')} = %s"
            f" WHERE id = %s AND EXISTS (SELECT 1 FROM {moved})",
            [ProcessingAttempt.Status.SUCCEEDED.value, self.finished_at, self.attempt.pk],
        )

    def write(self, submission_id: UUID | str) -> None:
        ProcessingAttempt.objects.filter(pk=self.attempt.pk).update(
            status=ProcessingAttempt.Status.SUCCEEDED, finished_at=self.finished_at
        )

    def written(self) -> None:
        self.attempt.status = ProcessingAttempt.Status.SUCCEEDED
        self.attempt.finished_at = self.finished_at


_ATTEMPT_FIELDS = (
    "submission",
    "stage",
    "task_name",
    "task_id",
    "worker",
    "attempt",
    "status",
    "error_class",
    "error_message",
    "started_at",
)


def _start_in_one_statement(
    submission_id: str,
    context: StepContext,
    stages: frozenset[State],
    bundle_fields: tuple[str, ...],
    reads: Mapping[str, str],
) -> Started | None:
    """Read the submission (the bundle's ``bundle_fields``, the ``reads``) and, if it waits for
    the step, insert the running attempt, in one statement. Outside a transaction the statement
    commits on its own without waiting for the disk (see ``_without_waiting_for_disk``)."""
    submission_fields = concrete_field_names(Submission)
    bundle_columns = "".join(
        f", b.{column(BundleSnapshot, name)} AS bundle_{name}" for name in bundle_fields
    )
    join = (
        f" LEFT JOIN {table(BundleSnapshot)} b ON b.{column(BundleSnapshot, 'sha256')}"
        f" = s.{column(Submission, 'bundle')}"
        if bundle_fields
        else ""
    )
    started_at = timezone.now()
    attempt = ProcessingAttempt(
        stage="",
        task_name=context.task_name,
        task_id=context.task_id,
        worker=context.worker,
        attempt=context.attempt,
        started_at=started_at,
    )
    values = [
        prepared(ProcessingAttempt, name, getattr(attempt, name)) for name in _ATTEMPT_FIELDS[2:]
    ]
    state = column(Submission, "state")
    sql = (
        f"WITH submission AS (SELECT {columns(Submission, submission_fields, 's')}{bundle_columns}"
        f" FROM {table(Submission)} s{join} WHERE s.id = %s),"
        f" attempt AS (INSERT INTO {table(ProcessingAttempt)}"
        f" ({', '.join(column(ProcessingAttempt, name) for name in _ATTEMPT_FIELDS)})"
        f" SELECT submission.id, submission.{state}, {', '.join(['%s'] * len(values))}"
        f" FROM submission WHERE submission.{state} = ANY(%s) RETURNING id)"
        f" SELECT submission.*, attempt.id"
        f"{''.join(f', ({expression})' for expression in reads.values())}"
        f"{without_waiting_for_disk()} FROM submission LEFT JOIN attempt ON true"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [prepared(Submission, "id", submission_id), *values, [str(s) for s in stages]],
        )
        row = cursor.fetchone()
    if row is None:
        _nothing_to_do(submission_id, context, None)
        return None
    count = len(submission_fields)
    submission = instance(Submission, submission_fields, row[:count])
    if bundle_fields:
        submission._state.fields_cache["bundle"] = (
            None
            if submission.bundle_id is None
            else instance(
                BundleSnapshot,
                ("sha256", *bundle_fields),
                (submission.bundle_id, *row[count : count + len(bundle_fields)]),
            )
        )
    attempt_id = row[count + len(bundle_fields)]
    if attempt_id is None:
        _nothing_to_do(submission_id, context, submission)
        return None
    attempt.pk, attempt.submission_id, attempt.stage = attempt_id, submission.pk, submission.state
    attempt._state.adding = False
    attempt._state.db = connection.alias
    first_read = count + len(bundle_fields) + 1
    return Started(
        submission,
        attempt,
        dict(zip(reads, row[first_read : first_read + len(reads)], strict=True)),
    )


def _nothing_to_do(submission_id: str, context: StepContext, submission: Submission | None) -> None:
    if submission is None:
        logger.warning("%s: submission %s does not exist", context.task_name, submission_id)
    else:
        logger.info(
            "%s: submission %s is %s, nothing to do",
            context.task_name,
            submission_id,
            submission.state,
        )


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


def _close_unrecorded_runs(context: StepContext, submission: Submission) -> None:
    """Put on the record the earlier runs of this message whose end (or whole run) the database
    could not record. A run still 'running' failed with the class the retry carries; a run with
    no row at all failed before it could write one, which only happens while the database is
    unreachable: ``infrastructure``. Attempt rows and the failure counts then say how many runs
    there were, and how each ended."""
    now = timezone.now()
    closed = ProcessingAttempt.objects.filter(
        task_id=context.task_id, status=ProcessingAttempt.Status.RUNNING
    ).update(
        status=ProcessingAttempt.Status.FAILED,
        error_class=context.previous_failure or ErrorClass.INFRASTRUCTURE,
        error_message="failed while the database could not record its end",
        finished_at=now,
    )
    for _ in range(closed):
        record_timeout(context.previous_failure or ErrorClass.INFRASTRUCTURE, 0.0)
    recorded = set(
        ProcessingAttempt.objects.filter(task_id=context.task_id).values_list("attempt", flat=True)
    )
    missing = [n for n in range(1, context.attempt) if n not in recorded]
    if not missing:
        return
    ProcessingAttempt.objects.bulk_create(
        ProcessingAttempt(
            submission=submission,
            stage=submission.state,
            task_name=context.task_name,
            task_id=context.task_id,
            worker=context.worker,
            attempt=number,
            status=ProcessingAttempt.Status.FAILED,
            error_class=ErrorClass.INFRASTRUCTURE,
            error_message="failed while the database was unreachable; recorded by a later run",
            started_at=now,
            finished_at=now,
        )
        for number in missing
    )
    for _ in missing:
        record_timeout(ErrorClass.INFRASTRUCTURE, 0.0, now)


def _finish(
    attempt: ProcessingAttempt, status: str, error_class: str = "", error_message: str = ""
) -> None:
    finished_at = timezone.now()
    _drop_broken_connection()
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


def _drop_broken_connection() -> None:
    """A step's statements run outside a transaction, so when the database connection drops
    under one of them nothing closes it (a transaction's rollback would): close it here if it
    is broken, and the attempt's end is recorded on a new one."""
    if connection.errors_occurred and not connection.in_atomic_block and not connection.is_usable():
        connection.close()
