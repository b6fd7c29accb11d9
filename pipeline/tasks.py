"""Celery tasks: thin adapters from a message (a submission id) to a pipeline step.

Routing, queues and time limits are declared in ``config/celery.py``. Retries use Celery's own
exponential backoff with full jitter, for transient failures only; when a step gives up, the
dead letter is recorded here and the worker rejects the message into ``submission-dlq``.
"""

from __future__ import annotations

from typing import Any

from billiard.einfo import ExceptionInfo
from celery import Task, shared_task, signals
from django.conf import settings
from django.utils import timezone

from grading.tier1.catalogue import load_catalogue
from pipeline import rollups, workflow
from pipeline.errors import TRANSIENT_EXCEPTIONS
from pipeline.services import failures, rescans, steps, sweeps
from pipeline.services.attempts import StepContext
from registry.rescans import RETRY_LATER


@signals.worker_init.connect
def _compile_rules_before_forking(**kwargs: Any) -> None:
    """Compile the Tier 1 catalogue once in the worker's main process: the pool's children
    inherit it, so no submission pays the ~300 ms of a cold catalogue."""
    load_catalogue()


class PipelineStep(Task):
    autoretry_for = TRANSIENT_EXCEPTIONS
    max_retries = 3
    retry_backoff = settings.SKILLGATE_RETRY_BACKOFF_S
    retry_backoff_max = 300
    retry_jitter = True

    def step_context(self) -> StepContext:
        request = self.request
        return StepContext(
            task_name=self.name,
            task_id=request.id or "",
            worker=request.hostname or "",
            attempt=(request.retries or 0) + 1,
            redelivered=bool((request.delivery_info or {}).get("redelivered")),
        )

    def on_failure(
        self,
        exc: Exception,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: ExceptionInfo,
    ) -> None:
        failures.give_up(
            args[0] if args else None,
            task_name=self.name,
            task_id=task_id,
            exc=exc,
            traceback=str(einfo),
            retries=self.request.retries or 0,
        )


@shared_task(bind=True, base=PipelineStep, name=workflow.SCAN.task)
def scan(self: PipelineStep, submission_id: str) -> None:
    steps.run_intake_and_scan(submission_id, self.step_context())


@shared_task(bind=True, base=PipelineStep, name=workflow.JUDGE.task)
def judge(self: PipelineStep, submission_id: str) -> None:
    steps.run_judge(submission_id, self.step_context())


@shared_task(bind=True, base=PipelineStep, name=workflow.PUBLISH.task)
def publish(self: PipelineStep, submission_id: str) -> None:
    steps.run_publish(submission_id, self.step_context())


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


@shared_task(name="pipeline.sweeps.resume_rescans")
def resume_rescans() -> dict[str, int]:
    return {"resumed": len(rescans.resume_stalled(timezone.now()))}


@shared_task(name="pipeline.sweeps.fold_figures")
def fold_figures() -> dict[str, int]:
    return {"folded": rollups.fold_pending()}


@shared_task(name="pipeline.sweeps.recover_stuck")
def recover_stuck() -> dict[str, int]:
    report = sweeps.recover_stuck()
    return {
        "examined": report.examined,
        "redispatched": len(report.acted),
        "exhausted": len(report.exhausted),
    }


@shared_task(name="pipeline.sweeps.enforce_deadlines")
def enforce_deadlines() -> dict[str, int]:
    report = sweeps.enforce_deadlines()
    return {"examined": report.examined, "timed_out": len(report.acted)}


@shared_task(name="pipeline.sweeps.dispatch_undelivered")
def dispatch_undelivered() -> dict[str, int]:
    report = sweeps.dispatch_undelivered()
    return {"examined": report.examined, "dispatched": len(report.acted)}
