"""Giving up on a step: the dead-letter record and the submission's error outcome."""

from __future__ import annotations

import logging
import re

from pipeline.errors import classify
from pipeline.models import DeadLetter, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.attempts import CrashLoopDetected
from pipeline.sources.errors import SourceUnavailable
from pipeline.states import State
from pipeline.transitions import Actor, Change, TransitionConflict, transition
from pipeline.workflow import step_named

logger = logging.getLogger(__name__)


def give_up(
    submission_id: str | None,
    *,
    task_name: str,
    task_id: str,
    exc: BaseException,
    traceback: str,
    retries: int,
) -> DeadLetter:
    """Record the dead letter and end the submission REJECTED / RETRIES_EXHAUSTED, if it still
    waits for the step that failed (another delivery may have finished it meanwhile)."""
    submission = Submission.objects.filter(pk=submission_id).first() if submission_id else None
    stage = submission.state if submission else ""
    error_class = classify(exc, stage)
    reason = (
        DeadLetter.Reason.CRASH_LOOP
        if isinstance(exc, CrashLoopDetected)
        else DeadLetter.Reason.RETRIES_EXHAUSTED
    )
    letter = DeadLetter.objects.create(
        submission=submission,
        task_name=task_name,
        task_id=task_id,
        stage=stage,
        reason=reason,
        error_class=error_class,
        error_message=f"{exc.__class__.__name__}: {exc}"[:2000],
        traceback=traceback[-10000:],
        payload={"args": [submission_id] if submission_id else [], "retries": retries},
    )
    step = step_named(task_name)
    if submission is not None and step is not None and stage in step.stages:
        attempts = retries + 1
        try:
            transition(
                submission.pk,
                Change(
                    State(stage),
                    State.REJECTED,
                    "retries-exhausted",
                    Actor.system(),
                    metadata={
                        "task": task_name,
                        "error_class": error_class,
                        "attempts": attempts,
                        "dead_letter_id": letter.pk,
                    },
                    outcome=_give_up_outcome(submission, task_name, exc, error_class, attempts),
                ),
            )
        except TransitionConflict as conflict:
            logger.info("give-up transition skipped: %s", conflict)
    return letter


def _give_up_outcome(
    submission: Submission, task_name: str, exc: BaseException, error_class: str, attempts: int
) -> Outcome:
    if isinstance(exc, SourceUnavailable):
        return Outcome.error(
            OutcomeCode.SOURCE_UNAVAILABLE,
            f"We could not fetch {submission.repo_url} after {attempts} attempt(s): "
            f"{exc.message}. This is not a verdict on your skill; please resubmit it when the "
            "git host answers again.",
        )
    return Outcome.error(
        OutcomeCode.RETRIES_EXHAUSTED,
        f"We could not process this submission: {task_name.split('.')[-1]} "
        f"failed {attempts} time(s) ({error_class}). This is our failure, not "
        "a verdict on your skill; please resubmit it.",
    )


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def record_poison(headers: dict, body: object, content_type: str, error: str) -> DeadLetter:
    """Record a message no worker can run (undecodable, unknown task, malformed): the broker
    dead-letters it, and this row lets operators see what it was."""
    headers = {str(key): value for key, value in (headers or {}).items()}
    match = _UUID.search(str(headers.get("argsrepr", "")))
    submission = Submission.objects.filter(pk=match.group(0)).first() if match else None
    preview = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    return DeadLetter.objects.create(
        submission=submission,
        task_name=str(headers.get("task", ""))[:128],
        task_id=str(headers.get("id", ""))[:64],
        stage=submission.state if submission else "",
        reason=DeadLetter.Reason.POISON,
        error_class="unknown",
        error_message=error[:2000],
        payload={
            "headers": {k: str(v)[:500] for k, v in headers.items()},
            "content_type": content_type,
            "body_preview": preview[:2000],
        },
    )
