"""The sweeps' schedules follow the settings they serve.

Each sweep runs often enough for its threshold: a stuck submission (no progress for
``SKILLGATE_STUCK_AFTER_S``) is seen within a third of that again, so recovery starts at most
``4/3 × stuck_after`` after the last progress, instead of up to twice it. The schedules are
django-celery-beat rows: a migration creates them, and ``sync`` puts them in step with the
settings whenever ``migrate`` runs and whenever beat starts, so changing a setting and
restarting is enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class Sweep:
    name: str
    task: str
    description: str


SWEEPS = (
    Sweep(
        "Dispatch undelivered submissions",
        "pipeline.sweeps.dispatch_undelivered",
        "Submissions accepted while the broker was down are sent once it is back.",
    ),
    Sweep(
        "Enforce pipeline deadlines",
        "pipeline.sweeps.enforce_deadlines",
        "The automated phase must end within its deadline: submissions past deadline_at end "
        "REJECTED / SLA_TIMEOUT. Review states are exempt.",
    ),
    Sweep(
        "Recover stuck submissions",
        "pipeline.sweeps.recover_stuck",
        "Stuck submissions (no progress for SKILLGATE_STUCK_AFTER_S) are re-dispatched from "
        "their state, with backoff, then end REJECTED / STUCK_EXHAUSTED. Runs every third of "
        "that threshold.",
    ),
    Sweep(
        "Reconcile the dead-letter queue",
        "pipeline.sweeps.reconcile_dead_letters",
        "Every message in submission-dlq becomes a dead-letter record (with the submission's "
        "transition) and only open ones stay in the queue, so its depth is the open count.",
    ),
)


def every_s(task: str) -> int:
    """How often the sweep runs, in seconds, from the settings it serves."""
    if task == "pipeline.sweeps.recover_stuck":
        return max(10, settings.SKILLGATE_STUCK_AFTER_S // 3)
    if task == "pipeline.sweeps.dispatch_undelivered":
        return max(5, min(30, settings.SKILLGATE_UNDELIVERED_AFTER_S * 3))
    if task == "pipeline.sweeps.enforce_deadlines":
        return max(10, min(60, settings.SKILLGATE_PIPELINE_DEADLINE_S // 30))
    if task == "pipeline.sweeps.reconcile_dead_letters":
        return max(5, settings.SKILLGATE_DLQ_RECONCILE_EVERY_S)
    raise KeyError(task)


def sync(periodic_task: Any = None, interval_schedule: Any = None) -> list[str]:
    """Create or update each sweep's schedule to ``every_s``; the names of those changed.
    The models are django-celery-beat's, or a migration's historical ones."""
    if periodic_task is None or interval_schedule is None:
        from django_celery_beat.models import IntervalSchedule, PeriodicTask

        periodic_task, interval_schedule = PeriodicTask, IntervalSchedule
    changed = []
    for sweep in SWEEPS:
        interval, _ = interval_schedule.objects.get_or_create(
            every=every_s(sweep.task), period="seconds"
        )
        row = periodic_task.objects.filter(name=sweep.name).first()
        if row is None:
            row = periodic_task(name=sweep.name, task=sweep.task, description=sweep.description)
        elif row.interval_id == interval.pk and row.task == sweep.task:
            continue
        row.task, row.interval, row.enabled = sweep.task, interval, True
        row.save()  # save(), not update(): beat is told the schedule changed
        changed.append(sweep.name)
    return changed
