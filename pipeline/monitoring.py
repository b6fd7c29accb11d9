"""What operators see: stale and stuck submissions, hourly throughput, stage latencies against
the published targets, queue depths read from the broker, failure rates and classified timeouts.

One module feeds the staff API, the admin and Prometheus, so the figures always agree.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count
from kombu import Connection

from config.celery import ALL_QUEUES, DEAD_LETTER_QUEUE, declare_topology
from pipeline import rollups
from pipeline.models import (
    DeadLetter,
    ProcessingAttempt,
    Submission,
    TimeoutBucket,
)
from pipeline.selectors import is_stuck, latest_attempts, stale_submissions, stuck_submissions
from pipeline.states import REVIEW_STATES, State
from pipeline.workflow import END_TO_END_TARGET, STAGE_TARGETS, LatencyTarget
from reviews.selectors import overdue_review_count

logger = logging.getLogger(__name__)

WINDOW_HOURS = 24
STALE_LIST_LIMIT = 100

_DECISIONS = {
    "auto_approve": (State.AUTO_APPROVED,),
    "review": (State.NEEDS_REVIEW,),
    "reject": (State.REJECTED, State.TIER1_FAILED),
}


def queue_status(now: datetime) -> dict[str, Any]:
    """Stale submissions (no progress for 3 minutes), each saying whether it is stuck yet (the
    recovery sweep acts), with stage, age, classification and recovery budget; plus the
    counts and queue depths."""
    stale_rows = list(
        stale_submissions(now)
        .order_by("state_changed_at")
        .only(
            "id",
            "state",
            "state_changed_at",
            "recovery_attempts",
            "recovery_next_at",
            "skill_owner",
            "skill_name",
            "created_at",
        )[:STALE_LIST_LIMIT]
    )
    attempts = latest_attempts([submission.pk for submission in stale_rows])
    depths = queue_depths()
    return {
        "generated_at": now,
        **queue_counts(now),
        "stale": [
            _stale_entry(submission, attempts.get(submission.pk), now) for submission in stale_rows
        ],
        "queues": depths,
        "broker": broker_status(depths),
    }


def queue_counts(now: datetime) -> dict[str, Any]:
    """The cheap figures: submissions per state, stale, stuck, in flight, dead letters
    pending."""
    return {
        "stale_count": stale_submissions(now).count(),
        "stuck_count": stuck_submissions(now).count(),
        "in_flight": ProcessingAttempt.objects.filter(
            status=ProcessingAttempt.Status.RUNNING
        ).count(),
        "submissions_by_state": rollups.submissions_by_state(),
        "dead_letters_pending": open_dead_letters(),
    }


def _stale_entry(
    submission: Submission, attempt: ProcessingAttempt | None, now: datetime
) -> dict[str, Any]:
    return {
        "id": str(submission.pk),
        "skill": f"{submission.skill_owner}/{submission.skill_name}",
        "stage": submission.state,
        "stale_since": submission.state_changed_at,
        "age_s": round((now - submission.state_changed_at).total_seconds(), 1),
        "stuck": is_stuck(submission, now),
        "classification": _attempt_classification(attempt),
        "last_attempt": None
        if attempt is None
        else {
            "task": attempt.task_name,
            "status": attempt.status,
            "attempt": attempt.attempt,
            "worker": attempt.worker,
            "started_at": attempt.started_at,
            "error": attempt.error_message[:300],
        },
        "recovery": {
            "attempts": submission.recovery_attempts,
            "max": settings.SKILLGATE_RECOVERY_MAX_TRIES,
            "next_at": submission.recovery_next_at,
        },
    }


def _attempt_classification(attempt: ProcessingAttempt | None) -> str:
    if attempt is None:
        return "not_started"
    if attempt.status == ProcessingAttempt.Status.RUNNING:
        return "running"
    return attempt.error_class or "none"


def queue_depths() -> dict[str, int | None]:
    """Messages ready in each queue, read from the broker. Queues a fresh broker has not seen
    yet are declared on the way (depth 0); every depth is None only when the broker cannot be
    reached (see ``broker_status``)."""
    try:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
            depths: dict[str, int | None] = {**declare_topology(conn.default_channel)}
            return depths
    except Exception:
        logger.warning("queue depths: the broker is unreachable", exc_info=True)
        return {queue.name: None for queue in ALL_QUEUES}


def open_dead_letters() -> int:
    """Dead letters still waiting for an operator (replayed, dismissed and resolved ones are
    closed)."""
    return DeadLetter.objects.filter(status=DeadLetter.Status.OPEN).count()


def open_dead_letters_by_reason() -> dict[str, int]:
    rows = DeadLetter.objects.filter(status=DeadLetter.Status.OPEN).values_list("reason")
    return dict(rows.annotate(n=Count("id")).values_list("reason", "n"))


def dead_letter_queue_status(depths: dict[str, int | None] | None = None) -> dict[str, Any]:
    """The broker's submission-dlq against the open dead letters: after each reconciliation
    pass they agree, so a lasting ``difference`` (messages minus open rows) means a pass is
    failing. ``queue`` and ``difference`` are None when the broker cannot be reached."""
    depth = (depths if depths is not None else queue_depths()).get(DEAD_LETTER_QUEUE.name)
    opened = open_dead_letters()
    return {
        "queue": depth,
        "open": opened,
        "difference": None if depth is None else depth - opened,
    }


def broker_status(depths: dict[str, int | None]) -> str:
    return "unreachable" if any(depth is None for depth in depths.values()) else "ok"


def queue_metrics(now: datetime) -> dict[str, Any]:
    """The last 24 hours (the current hour and the 23 before it), hourly: throughput, decision
    rates, stage latencies, queue depths, job failure rate and classified timeouts. Read from
    the figures the database keeps (pipeline.rollups): the cost does not grow with history."""
    hours = [(now - timedelta(hours=offset)).replace(minute=0, second=0, microsecond=0)
             for offset in range(WINDOW_HOURS - 1, -1, -1)]  # fmt: skip
    first_hour = hours[0]
    counts = rollups.transitions_by_hour(first_hour)
    hourly = []
    for hour in hours:
        row = counts.get(hour, {})
        hourly.append(
            {
                "hour": hour,
                "received": row.get(State.RECEIVED, 0),
                "published": row.get(State.PUBLISHED, 0),
                "rejected": row.get(State.REJECTED, 0) + row.get(State.TIER1_FAILED, 0),
                **_rates(row),
            }
        )
    depths = queue_depths()
    totals: dict[str, int] = defaultdict(int)
    for row in counts.values():
        for state, n in row.items():
            totals[state] += n
    by_state = rollups.submissions_by_state()
    return {
        "generated_at": now,
        "window_hours": WINDOW_HOURS,
        "totals": {
            "received": totals[State.RECEIVED],
            "published": totals[State.PUBLISHED],
            "rejected": totals[State.REJECTED] + totals[State.TIER1_FAILED],
            **_rates(totals),
        },
        "hourly": hourly,
        "stage_durations": stage_durations(first_hour),
        "queue_depth": depths,
        "broker": broker_status(depths),
        "job_failure_rate": job_failure_rate(first_hour),
        "timeouts": timeouts_by_hour(first_hour),
        "dead_letters_pending": open_dead_letters(),
        "dead_letter_queue": dead_letter_queue_status(depths),
        "reviews": {
            "open": sum(by_state[state] for state in REVIEW_STATES),
            "overdue": overdue_review_count(now),
        },
    }


def _rates(row: dict[str, int]) -> dict[str, float | None]:
    decided = {name: sum(row.get(s, 0) for s in states) for name, states in _DECISIONS.items()}
    total = sum(decided.values())
    return {
        f"{name}_rate": round(count / total, 4) if total else None
        for name, count in decided.items()
    }


def stage_durations(first_hour: datetime) -> dict[str, dict[str, float | int | None]]:
    """p50/p95 per stage (of the dwell time each transition records) and end to end (for
    submissions that finished without human review) since ``first_hour``, against the published
    targets. The percentiles are estimates from latency buckets (see pipeline.rollups)."""
    histograms = rollups.latency_histograms(
        first_hour, [target.measured.value for target in STAGE_TARGETS] + [rollups.END_TO_END]
    )
    result = {
        target.metric: _summary(target, rollups.percentiles(histograms[target.measured.value]))
        for target in STAGE_TARGETS
    }
    result[END_TO_END_TARGET.metric] = _summary(
        END_TO_END_TARGET, rollups.percentiles(histograms[rollups.END_TO_END])
    )
    return result


def _summary(
    target: LatencyTarget, figures: tuple[float | None, float | None, int]
) -> dict[str, Any]:
    p50, p95, count = figures
    return {
        "p50_ms": p50,
        "p95_ms": p95,
        "count": count,
        "target_ms": target.p50_ms,
        "target_p95_ms": target.p95_ms,
        "within_target": None
        if p50 is None or p95 is None
        else (p50 <= target.p50_ms and p95 <= target.p95_ms),
    }


def job_failure_rate(first_hour: datetime) -> float | None:
    """Share of step messages (first run since ``first_hour``) that ended dead-lettered after
    all retries."""
    jobs = rollups.step_messages(first_hour)
    failed = DeadLetter.objects.filter(
        created_at__gte=first_hour,
        reason__in=[DeadLetter.Reason.RETRIES_EXHAUSTED, DeadLetter.Reason.CRASH_LOOP],
    ).count()
    return round(failed / jobs, 4) if jobs else None


def timeouts_by_hour(first_hour: datetime) -> dict[str, Any]:
    rows = TimeoutBucket.objects.filter(hour__gte=first_hour)
    by_class: dict[str, int] = defaultdict(int)
    hourly = []
    for row in rows.order_by("hour", "classification"):
        by_class[row.classification] += row.count
        hourly.append(
            {
                "hour": row.hour,
                "classification": row.classification,
                "count": row.count,
                "avg_duration_ms": round(row.total_duration_ms / row.count, 1)
                if row.count
                else None,
            }
        )
    return {"by_classification": dict(by_class), "hourly": hourly}
