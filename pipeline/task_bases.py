"""The two kinds of Celery task the pipeline runs, and how each treats a failure.

* ``PipelineStep`` (scan, judge, publish): retried through Celery's own ``retry`` with the
  budgets of pipeline.services.retries (infrastructure waits, submission failures counted
  apart); when it gives up, the dead letter is published into ``submission-dlq`` and written to
  the database if it answers — giving up never depends on the database.
* ``SweepTask`` (the periodic sweeps): retried on an infrastructure failure for a few minutes,
  then left to the beat's next run; never dead-lettered for one.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

from celery import Task
from celery.exceptions import Ignore, Reject
from django.db import connection
from django.utils import timezone

from pipeline.errors import classify, is_infrastructure
from pipeline.models import DeadLetter
from pipeline.services import dead_letter_queue, failures, retries
from pipeline.services.attempts import CrashLoopDetected, StepContext
from pipeline.services.failures import GiveUp
from pipeline.sources.errors import SourceUnavailable
from pipeline.workflow import step_named

logger = logging.getLogger(__name__)

LAST_FAILURE_HEADER = "skillgate-last-failure"
SWEEP_INFRA_WAIT_S = 300.0
"""A sweep waits this long for the database or broker, then leaves it to the next beat run."""


class PipelineStep(Task):
    max_retries = None  # the budgets are pipeline.services.retries', carried in headers

    def step_context(self) -> StepContext:
        request = self.request
        return StepContext(
            task_name=self.name,
            task_id=request.id or "",
            worker=request.hostname or "",
            attempt=(request.retries or 0) + 1,
            redelivered=bool((request.delivery_info or {}).get("redelivered")),
            previous_failure=str((request.headers or {}).get(LAST_FAILURE_HEADER) or ""),
        )

    def run_step(self, step: Callable[[str, StepContext], None], submission_id: str) -> None:
        """Run the step; on failure retry it (Celery's ``retry``) or give up."""
        try:
            step(submission_id, self.step_context())
        except Exception as exc:
            self._after_failure(exc, submission_id)

    def _after_failure(self, exc: Exception, submission_id: str) -> None:
        request = self.request
        decision = retries.decide(exc, retries.Budget.from_headers(request.headers), time.time())
        if not decision.retry:
            self._give_up(exc, submission_id, decision)
        if is_infrastructure(exc):
            logger.warning(
                "%s[%s]: our infrastructure failed (%s); waiting %.1fs, not counted",
                self.name,
                request.id,
                exc,
                decision.countdown,
            )
        headers = {
            **(request.headers or {}),
            **decision.budget.headers(),
            LAST_FAILURE_HEADER: classify(exc, _stage_of(self.name)),
        }
        try:
            raise self.retry(
                exc=exc, countdown=decision.countdown, max_retries=None, headers=headers
            )
        except Reject as unsent:
            # The retry could not be sent (the broker is failing): the message goes back to
            # its queue instead of being dead-lettered.
            raise Reject(unsent, requeue=True) from exc

    def _give_up(self, exc: Exception, submission_id: str, decision: retries.Decision) -> NoReturn:
        """Record the dead letter — in submission-dlq always, in the database if it answers —
        and acknowledge the message."""
        request = self.request
        stage = _stage_of(self.name)
        since = decision.budget.waiting_since
        give_up = GiveUp(
            key=failures.message_key(request.id, request.retries),
            task_name=self.name,
            task_id=request.id or "",
            submission_id=submission_id,
            reason=DeadLetter.Reason.CRASH_LOOP
            if isinstance(exc, CrashLoopDetected)
            else DeadLetter.Reason.RETRIES_EXHAUSTED,
            error_class=classify(exc, stage),
            error_message=f"{exc.__class__.__name__}: {exc}"[:2000],
            traceback=_traceback(exc),
            attempts=(request.retries or 0) + 1,
            failures=decision.budget.failures,
            waited_s=None if since is None else round(time.time() - since, 1),
            source_unavailable=isinstance(exc, SourceUnavailable),
            at=_now_iso(),
        )
        logger.error(
            "%s[%s]: giving up on submission %s after %d run(s): %s",
            self.name,
            request.id,
            submission_id,
            give_up.attempts,
            give_up.error_message,
        )
        try:
            failures.record(give_up)
        except Exception:
            logger.warning(
                "dead letter %s not written yet: the reconciler will", give_up.key, exc_info=True
            )
            connection.close()
        try:
            dead_letter_queue.publish(give_up)
        except Exception as unsent:
            logger.exception("could not publish dead letter %s; the broker keeps it", give_up.key)
            raise Reject(unsent, requeue=False) from exc
        raise Ignore()


class SweepTask(Task):
    """A periodic sweep that waits out an infrastructure failure instead of failing."""

    max_retries = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as exc:
            if not is_infrastructure(exc):
                raise
            request = self.request
            decision = retries.decide(
                exc, retries.Budget.from_headers(request.headers), time.time(), SWEEP_INFRA_WAIT_S
            )
            if not decision.retry:
                logger.warning("%s: infrastructure still down; the next run takes over", self.name)
                raise Ignore() from exc
            headers = {**(request.headers or {}), **decision.budget.headers()}
            raise self.retry(
                exc=exc, countdown=decision.countdown, max_retries=None, headers=headers
            ) from exc


def _stage_of(task_name: str) -> str:
    """A state the step works on (every one of them names the same time-out class)."""
    step = step_named(task_name)
    return min(step.stages) if step is not None and step.stages else ""


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))[-10000:]


def _now_iso() -> str:
    return timezone.now().isoformat()
