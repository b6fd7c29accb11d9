"""Giving up on a step: the dead-letter record, the dead-letter row and the submission's error
outcome.

A give-up is first a ``GiveUp`` record, made without the database (which may be what failed):
it travels in ``submission-dlq`` (pipeline.services.dead_letter_queue) and is written as a row
here, with the submission's transition, in one transaction — at once when the database answers,
else by the reconciler once it does. Writing it twice is harmless: the row is keyed by the
message, and the transition is a compare-and-set.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from pipeline.error_classes import ErrorClass, describe
from pipeline.models import DeadLetter, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import TERMINAL_STATES, State
from pipeline.transitions import Actor, Change, TransitionConflict, transition
from pipeline.workflow import step_named

logger = logging.getLogger(__name__)

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NETWORK_CLASSES = frozenset(
    {
        ErrorClass.FETCH_TIMEOUT,
        ErrorClass.DNS_FAILURE,
        ErrorClass.CONNECTION_REFUSED,
        ErrorClass.TLS_ERROR,
        ErrorClass.HTTP_4XX,
        ErrorClass.HTTP_5XX,
        ErrorClass.CONNECTION_FAILED,
    }
)


@dataclass(frozen=True)
class GiveUp:
    """Everything a dead letter records, as plain data (it is the DLQ message's body)."""

    key: str
    task_name: str
    task_id: str
    submission_id: str | None
    reason: str
    error_class: str
    error_message: str
    traceback: str = ""
    attempts: int = 1
    """Times the step ran on this message (each retry, whatever its cause, is a run)."""
    failures: int = 1
    """Of those, the failures about the submission (what the retry budget counts)."""
    waited_s: float | None = None
    """How long the step had waited for our database or broker, if it did."""
    source_unavailable: bool = False
    at: str = ""
    payload: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GiveUp:
        known = {field.name for field in fields(cls)}
        return cls(**{name: value for name, value in data.items() if name in known})

    @property
    def given_up_at(self) -> datetime:
        return (parse_datetime(self.at) if self.at else None) or timezone.now()


def message_key(task_id: str | None, retries: Any, body: bytes | str | None = b"") -> str:
    """The key of a dead-lettered message: its task id and retry count (a message is given up
    once), or the digest of its body when it has no id (an undecodable message)."""
    if task_id:
        return f"{task_id}:{int(retries or 0)}"[:200]
    data = body.encode() if isinstance(body, str) else body or b""
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def submission_in(text: str) -> str | None:
    """The submission id in a message's ``argsrepr`` (its only argument)."""
    match = _UUID.search(text)
    return match.group(0) if match else None


def record(give_up: GiveUp) -> DeadLetter:
    """Write the dead letter and, if the submission still waits for the step that failed and
    has not moved since, end it REJECTED with the error outcome — one transaction, once per
    message. A submission that had already ended another way resolves the dead letter at once."""
    with transaction.atomic():
        existing = DeadLetter.objects.select_for_update().filter(message_key=give_up.key).first()
        if existing is not None:
            return existing
        submission = (
            Submission.objects.filter(pk=give_up.submission_id).first()
            if give_up.submission_id
            else None
        )
        letter = DeadLetter.objects.create(
            submission=submission,
            task_name=give_up.task_name[:128],
            task_id=give_up.task_id[:64],
            stage=submission.state if submission else "",
            reason=give_up.reason,
            error_class=give_up.error_class,
            error_message=give_up.error_message[:2000],
            traceback=give_up.traceback[-10000:],
            attempts=give_up.attempts,
            message_key=give_up.key,
            payload=give_up.payload
            or {
                "args": [give_up.submission_id] if give_up.submission_id else [],
                "retries": max(give_up.attempts - 1, 0),
                "failures": give_up.failures,
                "waited_for_infrastructure_s": give_up.waited_s,
            },
        )
        if submission is not None and give_up.reason != DeadLetter.Reason.POISON:
            _end_submission(letter, submission, give_up)
    return letter


def _end_submission(letter: DeadLetter, submission: Submission, give_up: GiveUp) -> None:
    step = step_named(give_up.task_name)
    if submission.state in TERMINAL_STATES:
        _resolve(letter, f"the submission had already ended ({submission.state})")
        return
    if step is None or submission.state not in step.stages:
        return
    if submission.state_changed_at > give_up.given_up_at:
        return  # it moved on after the give-up (a sweep re-sent it): let that run decide
    try:
        transition(
            submission.pk,
            Change(
                State(submission.state),
                State.REJECTED,
                "retries-exhausted",
                Actor.system(),
                metadata={
                    "task": give_up.task_name,
                    "error_class": give_up.error_class,
                    "attempts": give_up.attempts,
                    "failures": give_up.failures,
                    "dead_letter_id": letter.pk,
                },
                outcome=give_up_outcome(submission, give_up),
            ),
        )
    except TransitionConflict as conflict:
        logger.info("give-up transition skipped: %s", conflict)


def _resolve(letter: DeadLetter, why: str) -> None:
    DeadLetter.objects.filter(pk=letter.pk).update(
        status=DeadLetter.Status.RESOLVED,
        closed_at=timezone.now(),
        closed_by="system",
        close_reason=why,
    )
    letter.refresh_from_db()


def give_up_outcome(submission: Submission, give_up: GiveUp) -> Outcome:
    """What the author reads: what failed, how many times, and that it is not a verdict."""
    what = describe(give_up.error_class)
    if give_up.error_class == ErrorClass.INFRASTRUCTURE:
        return Outcome.error(
            OutcomeCode.RETRIES_EXHAUSTED,
            f"We could not process this submission: our own systems were unavailable for "
            f"{(give_up.waited_s or 0) / 60:.0f} minutes. This is our failure, not a verdict on "
            "your skill; please resubmit it.",
        )
    if give_up.source_unavailable or (
        give_up.error_class in _NETWORK_CLASSES and submission.state == State.RECEIVED
    ):
        return Outcome.error(
            OutcomeCode.SOURCE_UNAVAILABLE,
            f"We could not fetch {submission.repo_url} after {give_up.failures} attempt(s): "
            f"{what} ({give_up.error_message[:300]}). This is not a verdict on your skill; "
            "please resubmit it when the git host answers again.",
        )
    step = give_up.task_name.split(".")[-1]
    return Outcome.error(
        OutcomeCode.RETRIES_EXHAUSTED,
        f"We could not process this submission: {step} failed {give_up.failures} time(s) "
        f"({what}). This is our failure, not a verdict on your skill; please resubmit it.",
    )


def record_poison(headers: dict, body: object, content_type: str, error: str) -> DeadLetter:
    """Record a message no worker can run (undecodable, unknown task, malformed): the broker
    dead-letters it, and this row lets operators see what it was. Keyed like the reconciler
    keys the same message, so it is recorded once."""
    headers = {str(key): value for key, value in (headers or {}).items()}
    raw = body if isinstance(body, bytes | str) else str(body)
    preview = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return record(
        GiveUp(
            key=message_key(str(headers.get("id") or ""), headers.get("retries"), raw),
            task_name=str(headers.get("task", "")),
            task_id=str(headers.get("id", "")),
            submission_id=submission_in(str(headers.get("argsrepr", ""))),
            reason=DeadLetter.Reason.POISON,
            error_class=ErrorClass.UNKNOWN,
            error_message=error,
            attempts=0,
            failures=0,
            at=timezone.now().isoformat(),
            payload={
                "headers": {k: str(v)[:500] for k, v in headers.items()},
                "content_type": content_type,
                "body_preview": preview[:2000],
            },
        )
    )
