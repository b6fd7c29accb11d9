"""The life of a dead letter: open until an operator (or the system) closes it.

    open ─┬─ replay   → replayed   the submission was re-sent from its current state
          ├─ dismiss  → dismissed  an operator looked and closed it, saying why
          └─ resolve  → resolved   the submission has ended (by this give-up or otherwise)

Only open dead letters count (the admin's list, ``dead_letters_pending``, the metrics), and
only their copies stay in ``submission-dlq``: closing one asks for a reconciliation pass, which
removes its copy, so the queue's depth drops with it. Every action says what it did; an action
that could do nothing says why and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone

from pipeline.models import DeadLetter, SubmissionStateEvent
from pipeline.services.dead_letter_queue import request_pass
from pipeline.services.dispatch import dispatch, steps_from
from pipeline.states import TERMINAL_STATES


@dataclass(frozen=True)
class ActionResult:
    dead_letter_id: int
    done: bool
    message: str


def replay(letter: DeadLetter, actor: str) -> ActionResult:
    """Re-send the submission's remaining steps from wherever it is now and close the dead
    letter as replayed. A submission that has ended cannot move again: say so (resolve it
    instead). Raises when the broker is down."""
    if not letter.is_open:
        return _not_open(letter)
    submission = letter.submission
    if submission is None:
        return ActionResult(
            letter.pk, False, "no submission: a poison message cannot be replayed (dismiss it)"
        )
    if not steps_from(submission.state):
        return ActionResult(
            letter.pk,
            False,
            f"submission {submission.pk} has ended ({submission.state}); nothing left to run: "
            "resolve the dead letter instead",
        )
    dispatch(submission.pk, submission.state)
    now = timezone.now()
    _close(
        letter,
        DeadLetter.Status.REPLAYED,
        actor,
        f"re-sent from {submission.state}",
        replayed_at=now,
        replayed_by=actor,
        replay_count=F("replay_count") + 1,
    )
    return ActionResult(
        letter.pk, True, f"submission {submission.pk} re-sent from {submission.state}"
    )


def dismiss(letter: DeadLetter, actor: str, reason: str) -> ActionResult:
    """Close the dead letter without acting on it; the reason is required and kept."""
    reason = reason.strip()
    if not reason:
        return ActionResult(letter.pk, False, "a reason is required to dismiss a dead letter")
    if not letter.is_open:
        return _not_open(letter)
    if not _close(letter, DeadLetter.Status.DISMISSED, actor, reason):
        return _not_open(letter)
    return ActionResult(letter.pk, True, f"dismissed: {reason}")


def resolve(letter: DeadLetter, actor: str) -> ActionResult:
    """Close the dead letter of a submission that has ended (published, rejected — by this
    give-up or otherwise)."""
    if not letter.is_open:
        return _not_open(letter)
    submission = letter.submission
    if submission is None or submission.state not in TERMINAL_STATES:
        state = "no submission" if submission is None else f"it is {submission.state}"
        return ActionResult(
            letter.pk,
            False,
            f"the submission has not ended ({state}): replay or dismiss the dead letter",
        )
    if not _close(
        letter, DeadLetter.Status.RESOLVED, actor, f"the submission ended ({submission.state})"
    ):
        return _not_open(letter)
    return ActionResult(letter.pk, True, f"resolved: submission {submission.pk} {submission.state}")


def resolve_ended_elsewhere() -> int:
    """Resolve the open dead letters whose submission has since ended another way than by
    their own give-up (a sweep or a redelivery finished it): nothing is left for anyone to
    do about them. Those whose give-up ended the submission stay open for an operator, and so
    do poison messages: they are about the message (a deploy that dropped a task, a bad
    producer), not about the submission they name."""
    resolved = 0
    candidates = (
        DeadLetter.objects.filter(
            status=DeadLetter.Status.OPEN,
            submission__state__in=[s.value for s in TERMINAL_STATES],
        )
        .exclude(reason=DeadLetter.Reason.POISON)
        .select_related("submission")
    )
    for letter in candidates.iterator():
        ended_by_it = SubmissionStateEvent.objects.filter(
            submission=letter.submission, metadata__dead_letter_id=letter.pk
        ).exists()
        if ended_by_it or letter.submission is None:
            continue
        resolved += _close(
            letter,
            DeadLetter.Status.RESOLVED,
            "system",
            f"the submission ended ({letter.submission.state}) without it",
            notify=False,
        )
    return resolved


def _close(
    letter: DeadLetter,
    status: str,
    actor: str,
    reason: str,
    *,
    notify: bool = True,
    **also: object,
) -> bool:
    """Compare-and-set from open: of two operators closing the same letter, one wins."""
    closed = DeadLetter.objects.filter(pk=letter.pk, status=DeadLetter.Status.OPEN).update(
        status=status, closed_at=timezone.now(), closed_by=actor, close_reason=reason, **also
    )
    if closed:
        letter.refresh_from_db()
        if notify:
            request_pass()
    return bool(closed)


def _not_open(letter: DeadLetter) -> ActionResult:
    letter.refresh_from_db()
    return ActionResult(
        letter.pk, False, f"already {letter.status} ({letter.close_reason or 'no reason given'})"
    )
