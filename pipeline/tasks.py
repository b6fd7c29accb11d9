"""Celery tasks: thin adapters from a message (a submission id) to a pipeline step or a sweep.

Routing, queues and time limits are declared in ``config/celery.py``; how a failure is retried
or given up on, in ``pipeline/task_bases.py``.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task, signals
from django.conf import settings
from django.utils import timezone

from grading import tier1
from pipeline import rollups, workflow
from pipeline.services import dead_letter_queue, dead_letters, rescans, schedules, steps, sweeps
from pipeline.task_bases import PipelineStep, SweepTask
from registry.rescans import RETRY_LATER

logger = logging.getLogger(__name__)


@signals.worker_init.connect
def _build_grading_tables_before_forking(**kwargs: Any) -> None:
    """Build Tier 1's tables (rules, lexicons, language model) once in the worker's main
    process: the pool's children inherit them, so no submission pays the seconds of a cold
    scan."""
    tier1.warm_up()


@signals.beat_init.connect
def _sweeps_follow_settings(**kwargs: Any) -> None:
    """Beat starts with the sweep schedules in step with its settings (see
    pipeline.services.schedules); a database that is down leaves them as they were."""
    try:
        changed = schedules.sync()
    except Exception:
        logger.warning("could not bring the sweep schedules in step", exc_info=True)
        return
    if changed:
        logger.info("sweep schedules updated to the settings: %s", ", ".join(changed))


@shared_task(bind=True, base=PipelineStep, name=workflow.SCAN.task)
def scan(self: PipelineStep, submission_id: str) -> None:
    self.run_step(steps.run_intake_and_scan, submission_id)


@shared_task(bind=True, base=PipelineStep, name=workflow.JUDGE.task)
def judge(self: PipelineStep, submission_id: str) -> None:
    self.run_step(steps.run_judge, submission_id)


@shared_task(bind=True, base=PipelineStep, name=workflow.PUBLISH.task)
def publish(self: PipelineStep, submission_id: str) -> None:
    self.run_step(steps.run_publish, submission_id)


@shared_task(
    name=workflow.RESCAN.task,
    autoretry_for=RETRY_LATER,
    max_retries=3,
    retry_backoff=settings.SKILLGATE_RETRY_BACKOFF_S,
    retry_backoff_max=300,
    retry_jitter=True,
)
def rescan(campaign_id: str) -> None:
    """One slice of a re-scan campaign's lane (low priority: its own queue and worker)."""
    rescans.drain(campaign_id)


@shared_task(base=SweepTask, name="pipeline.sweeps.resume_rescans")
def resume_rescans() -> dict[str, int]:
    return {"resumed": len(rescans.resume_stalled(timezone.now()))}


@shared_task(base=SweepTask, name="pipeline.sweeps.fold_figures")
def fold_figures() -> dict[str, int]:
    return {"folded": rollups.fold_pending()}


@shared_task(base=SweepTask, name="pipeline.sweeps.recover_stuck")
def recover_stuck() -> dict[str, int]:
    report = sweeps.recover_stuck()
    return {
        "examined": report.examined,
        "redispatched": len(report.acted),
        "exhausted": len(report.exhausted),
    }


@shared_task(base=SweepTask, name="pipeline.sweeps.enforce_deadlines")
def enforce_deadlines() -> dict[str, int]:
    report = sweeps.enforce_deadlines()
    return {"examined": report.examined, "timed_out": len(report.acted)}


@shared_task(base=SweepTask, name="pipeline.sweeps.dispatch_undelivered")
def dispatch_undelivered() -> dict[str, int]:
    report = sweeps.dispatch_undelivered()
    return {"examined": report.examined, "dispatched": len(report.acted)}


@shared_task(base=SweepTask, name="pipeline.sweeps.reconcile_dead_letters")
def reconcile_dead_letters() -> dict[str, int | bool]:
    """Every message in submission-dlq on the record, and only the open ones kept there."""
    resolved = dead_letters.resolve_ended_elsewhere()
    return {**dead_letter_queue.reconcile().as_dict(), "resolved": resolved}
