"""Replaying dead letters: the submission resumes from its current state."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import F
from django.utils import timezone

from pipeline.models import DeadLetter
from pipeline.services.dispatch import dispatch, steps_from


@dataclass(frozen=True)
class ReplayResult:
    dead_letter_id: int
    replayed: bool
    message: str


def replay(letter: DeadLetter, actor: str) -> ReplayResult:
    """Re-send the submission's remaining steps from wherever it is now.

    A submission that already ended (the usual case after RETRIES_EXHAUSTED) cannot move again
    and is reported as such; its author was told to resubmit. Raises when the broker is down.
    """
    submission = letter.submission
    if submission is None:
        return ReplayResult(letter.pk, False, "no submission: a poison message cannot be replayed")
    if not steps_from(submission.state):
        return ReplayResult(
            letter.pk,
            False,
            f"submission {submission.pk} is {submission.state}; nothing left to run",
        )
    dispatch(submission.pk, submission.state)
    DeadLetter.objects.filter(pk=letter.pk).update(
        replayed_at=timezone.now(), replayed_by=actor, replay_count=F("replay_count") + 1
    )
    return ReplayResult(
        letter.pk, True, f"submission {submission.pk} re-sent from {submission.state}"
    )
