"""The periodic sweeps that make sure no submission is silently stuck or lost.

Each sweep locks the rows it works on with ``SELECT … FOR UPDATE SKIP LOCKED``, so two runs at
once split the work instead of doing it twice, and reads only through partial indexes on the
automated states: its cost grows with the rows it has to act on, not with the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from pipeline import selectors
from pipeline.errors import ErrorClass
from pipeline.models import ProcessingAttempt, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.attempts import latest_attempt
from pipeline.services.dispatch import dispatch_after_commit, try_dispatch
from pipeline.services.timeouts import record_timeout
from pipeline.states import AUTOMATED_STATES, State
from pipeline.transitions import Actor, Change, TransitionConflict, transition

_AUTOMATED = sorted(state.value for state in AUTOMATED_STATES)
_STAGE_TIMEOUT = {
    State.TIER2_SCANNING: ErrorClass.JUDGE_TIMEOUT,
    State.TIER1_SCANNING: ErrorClass.SCAN_TIMEOUT,
}


@dataclass
class SweepReport:
    examined: int = 0
    acted: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    exhausted: list[str] = field(default_factory=list)


def recover_stuck(now: datetime | None = None, stuck_after: timedelta | None = None) -> SweepReport:
    """Re-dispatch stuck submissions (no progress for ``stuck_after``, by default
    SKILLGATE_STUCK_AFTER_S) from their current state, at most SKILLGATE_RECOVERY_MAX_TRIES
    times with exponential backoff between tries, then give up with REJECTED / STUCK_EXHAUSTED."""
    now = now or timezone.now()
    stuck_after = stuck_after or selectors.stuck_after()
    cutoff = now - stuck_after
    report = SweepReport()
    with transaction.atomic():
        stuck = list(
            selectors.stuck_submissions(now, stuck_after)
            .select_for_update(skip_locked=True)
            .filter(Q(recovery_next_at__isnull=True) | Q(recovery_next_at__lte=now))
            .order_by("state_changed_at")[: settings.SKILLGATE_SWEEP_BATCH]
        )
        report.examined = len(stuck)
        for submission in stuck:
            attempt = latest_attempt(submission)
            if _recently_in_flight(attempt, cutoff):
                report.skipped.append(str(submission.pk))
                continue
            stuck_ms = (now - submission.state_changed_at).total_seconds() * 1000
            record_timeout(_classify_stuck(submission, attempt), stuck_ms, now)
            if submission.recovery_attempts >= settings.SKILLGATE_RECOVERY_MAX_TRIES:
                if _give_up(submission, attempt):
                    report.exhausted.append(str(submission.pk))
                continue
            tries = submission.recovery_attempts + 1
            backoff = settings.SKILLGATE_RECOVERY_BACKOFF_S * 2 ** (tries - 1)
            Submission.objects.filter(pk=submission.pk).update(
                recovery_attempts=F("recovery_attempts") + 1,
                recovery_next_at=now + timedelta(seconds=backoff),
            )
            dispatch_after_commit(submission.pk, submission.state)
            report.acted.append(str(submission.pk))
    return report


def enforce_deadlines(now: datetime | None = None) -> SweepReport:
    """The automated phase must end by ``deadline_at`` (30 minutes by default): automated
    submissions past it end REJECTED / SLA_TIMEOUT.
    Review states wait for people and are exempt."""
    now = now or timezone.now()
    report = SweepReport()
    with transaction.atomic():
        overdue = list(
            Submission.objects.select_for_update(skip_locked=True)
            .filter(state__in=_AUTOMATED, deadline_at__lt=now)
            .order_by("deadline_at")[: settings.SKILLGATE_SWEEP_BATCH]
        )
        report.examined = len(overdue)
        for submission in overdue:
            change = Change(
                State(submission.state),
                State.REJECTED,
                selectors.SLA_TIMEOUT_TRIGGER,
                Actor.system(),
                metadata={"deadline_at": submission.deadline_at.isoformat()},
                outcome=Outcome.error(
                    OutcomeCode.SLA_TIMEOUT,
                    f"Processing did not finish by its deadline "
                    f"({submission.deadline_at:%Y-%m-%d %H:%M} UTC) while {submission.state}. "
                    "This is our failure, not a verdict on your skill; please resubmit it.",
                ),
            )
            try:
                transition(submission.pk, change)
            except TransitionConflict:
                report.skipped.append(str(submission.pk))
                continue
            report.acted.append(str(submission.pk))
    return report


def dispatch_undelivered(now: datetime | None = None) -> SweepReport:
    """Send submissions the broker never confirmed (it was down when they were accepted)."""
    now = now or timezone.now()
    grace = timedelta(seconds=settings.SKILLGATE_UNDELIVERED_AFTER_S)
    report = SweepReport()
    with transaction.atomic():
        pending = list(
            Submission.objects.select_for_update(skip_locked=True)
            .filter(state=State.RECEIVED, dispatched_at__isnull=True, created_at__lt=now - grace)
            .order_by("created_at")
            .values_list("pk", flat=True)[: settings.SKILLGATE_SWEEP_BATCH]
        )
        report.examined = len(pending)
        for index, submission_id in enumerate(pending):
            if not try_dispatch(submission_id, State.RECEIVED):
                report.skipped = [str(pk) for pk in pending[index:]]
                break
            report.acted.append(str(submission_id))
    return report


def _recently_in_flight(attempt: ProcessingAttempt | None, cutoff: datetime) -> bool:
    return (
        attempt is not None
        and attempt.status == ProcessingAttempt.Status.RUNNING
        and attempt.started_at >= cutoff
    )


def _classify_stuck(submission: Submission, attempt: ProcessingAttempt | None) -> str:
    """Why it is stuck: the last failure's class, a step that ran too long, or a message that
    never reached a worker (the queue or broker)."""
    if attempt is None or attempt.started_at < submission.state_changed_at:
        return ErrorClass.INFRASTRUCTURE
    if attempt.status == ProcessingAttempt.Status.RUNNING:
        return _STAGE_TIMEOUT.get(State(submission.state), ErrorClass.INFRASTRUCTURE)
    return attempt.error_class or ErrorClass.UNKNOWN


def _give_up(submission: Submission, attempt: ProcessingAttempt | None) -> bool:
    tries = submission.recovery_attempts
    try:
        transition(
            submission.pk,
            Change(
                State(submission.state),
                State.REJECTED,
                "stuck-exhausted",
                Actor.system(),
                metadata={
                    "recovery_attempts": tries,
                    "classification": _classify_stuck(submission, attempt),
                },
                outcome=Outcome.error(
                    OutcomeCode.STUCK_EXHAUSTED,
                    f"Processing stalled in {submission.state} and {tries} recovery attempts "
                    "did not move it. This is our failure, not a verdict on your skill; please "
                    "resubmit it.",
                ),
            ),
        )
    except TransitionConflict:
        return False
    return True
