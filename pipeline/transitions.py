"""The one way a submission changes state.

A transition is a compare-and-set: the row changes only if its state is still the expected one,
and the audit event is written in the same database transaction. Of any number of concurrent
attempts at the same transition exactly one wins; the others get ``TransitionConflict``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from pipeline.models import Submission, SubmissionStateEvent
from pipeline.outcomes import Outcome, OutcomeKind
from pipeline.states import (
    ERROR_REJECTION_SOURCES,
    SEED_TRANSITIONS,
    TERMINAL_STATES,
    VALID_TRANSITIONS,
    ActorType,
    State,
)


class TransitionError(Exception):
    """Base for refused transitions; the API answers these with 409."""


class IllegalTransition(TransitionError):
    """The state machine has no such edge, or the edge's conditions are not met."""


class TransitionConflict(TransitionError):
    """The submission was no longer in the expected state: someone else moved it first."""

    def __init__(self, submission_id: object, expected: str, actual: str) -> None:
        super().__init__(
            f"submission {submission_id} is {actual}, not {expected}: "
            "it was changed by someone else; reload and try again"
        )
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True)
class Actor:
    name: str
    type: ActorType

    @classmethod
    def system(cls) -> Actor:
        return cls("system", ActorType.SYSTEM)

    @classmethod
    def worker(cls) -> Actor:
        return cls("worker", ActorType.WORKER)

    @classmethod
    def admin(cls, username: str) -> Actor:
        return cls(username, ActorType.ADMIN)


@dataclass(frozen=True)
class Change:
    """What a transition does: the edge, why, and the fields that change with it."""

    from_state: State
    to_state: State
    trigger: str
    actor: Actor
    metadata: dict[str, Any] = field(default_factory=dict)
    outcome: Outcome | None = None
    updates: dict[str, Any] = field(default_factory=dict)


def check_allowed(change: Change) -> None:
    """Raise IllegalTransition unless the state machine permits this change."""
    source, target = State(change.from_state), State(change.to_state)
    if target not in VALID_TRANSITIONS[source]:
        raise IllegalTransition(f"{source} → {target} is not a valid transition")
    if target in TERMINAL_STATES and change.outcome is None:
        raise IllegalTransition(f"a transition to {target} must record an outcome")
    if target not in TERMINAL_STATES and change.outcome is not None:
        raise IllegalTransition(f"{target} is not terminal and takes no outcome")
    is_seed_edge = target in SEED_TRANSITIONS[source]
    if not is_seed_edge and target == State.REJECTED:
        # DESIGN.md extension: only the system gives up on an automated submission, and only
        # with an error outcome, never a verdict.
        if source not in ERROR_REJECTION_SOURCES:
            raise IllegalTransition(f"{source} → {target} is not a valid transition")
        if change.actor.type != ActorType.SYSTEM or change.outcome.kind != OutcomeKind.ERROR:
            raise IllegalTransition(
                f"{source} → REJECTED without a verdict is reserved to the system giving up, "
                "with an error outcome"
            )


def transition(
    submission_id: object, change: Change, *, entered_at: datetime | None = None
) -> SubmissionStateEvent:
    """Apply ``change`` to the submission atomically and return its audit event.

    ``entered_at`` is when the submission entered ``from_state`` (its ``state_changed_at``),
    for the event's dwell time; callers that loaded the submission pass it, saving a query.

    Raises IllegalTransition for an edge the machine does not have, TransitionConflict when the
    submission is not in ``change.from_state`` any more, Submission.DoesNotExist when it is gone.
    Runs inside the caller's transaction when there is one, so a step can store its result and
    move the state all-or-nothing.
    """
    check_allowed(change)
    now = timezone.now()
    fields: dict[str, Any] = {
        "state": change.to_state,
        "state_changed_at": now,
        "updated_at": now,
        **change.updates,
    }
    if change.outcome is not None:
        fields |= {
            "outcome_kind": change.outcome.kind,
            "outcome_code": change.outcome.code,
            "outcome_message": change.outcome.message,
        }
    with transaction.atomic():
        entered = entered_at or (
            Submission.objects.filter(pk=submission_id, state=change.from_state)
            .values_list("state_changed_at", flat=True)
            .first()
        )
        changed = Submission.objects.filter(pk=submission_id, state=change.from_state).update(
            **fields
        )
        if changed == 0:
            actual = (
                Submission.objects.filter(pk=submission_id).values_list("state", flat=True).first()
            )
            if actual is None:
                raise Submission.DoesNotExist(f"submission {submission_id} does not exist")
            raise TransitionConflict(submission_id, change.from_state, actual)
        metadata = dict(change.metadata)
        if change.outcome is not None:
            metadata.setdefault("outcome", change.outcome.as_dict())
        return SubmissionStateEvent.objects.create(
            submission_id=submission_id,
            from_state=change.from_state,
            to_state=change.to_state,
            trigger=change.trigger,
            actor=change.actor.name,
            actor_type=change.actor.type,
            metadata=metadata,
            dwell_ms=(now - entered).total_seconds() * 1000 if entered else None,
        )


def record_received(submission: Submission, trigger: str, actor: Actor) -> SubmissionStateEvent:
    """The first audit event (∅ → RECEIVED), written when the submission row is created."""
    return SubmissionStateEvent.objects.create(
        submission=submission,
        from_state=None,
        to_state=State.RECEIVED,
        trigger=trigger,
        actor=actor.name,
        actor_type=actor.type,
        metadata={"source": submission.source_kind, "bundle_sha256": submission.bundle_id},
    )
