"""The one way a submission changes state.

A transition is a compare-and-set: the row changes only if its state is still the expected one,
and the audit event is written in the same database transaction. Of any number of concurrent
attempts at the same transition exactly one wins; the others get ``TransitionConflict``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.utils import timezone

from config.statements import assignments, column, prepared, single_statements, table
from pipeline.models import Submission, SubmissionStateEvent
from pipeline.outcomes import Outcome, OutcomeKind
from pipeline.states import (
    APPEAL,
    APPEAL_TRIGGER,
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

    def __init__(self, submission_id: UUID | str, expected: str, actual: str) -> None:
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
    decided_at: datetime | None = None
    """When the step decided this edge, if earlier than when it is applied: an edge applied
    together with the next one (``transition_through``) keeps its own time in the audit trail."""


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
    if (source, target) == APPEAL and (
        change.trigger != APPEAL_TRIGGER or change.actor.type != ActorType.ADMIN
    ):
        raise IllegalTransition(
            f"{source} → {target} is reserved to a person granting an appeal ({APPEAL_TRIGGER})"
        )
    if not is_seed_edge and target == State.REJECTED:
        # DESIGN.md extension: only the system gives up on an automated submission, and only
        # with an error outcome, never a verdict.
        if source not in ERROR_REJECTION_SOURCES:
            raise IllegalTransition(f"{source} → {target} is not a valid transition")
        if change.actor.type != ActorType.SYSTEM or (
            change.outcome is None or change.outcome.kind != OutcomeKind.ERROR
        ):
            raise IllegalTransition(
                f"{source} → REJECTED without a verdict is reserved to the system giving up, "
                "with an error outcome"
            )


class CompanionWrite:
    """A write that belongs to a transition: it is made in the transition's transaction (on
    PostgreSQL in the transition's own statement) and only when the transition happens, e.g.
    a step's result or the success of the attempt that made it."""

    def sql(self, moved: str, prelude: str) -> tuple[str, list[Any]]:
        """PostgreSQL: one data-modifying statement for the transition's ``WITH`` clause. The
        CTE named ``moved`` holds the moved submission's ``id``, and no row when the
        compare-and-set lost, so the write must read from it (or test it with ``EXISTS``).
        ``prelude`` names the rows of this write's ``prelude`` statement, if it has one."""
        raise NotImplementedError

    def prelude(self) -> tuple[str, list[Any]] | None:
        """PostgreSQL: a data-modifying statement that runs in the transition's statement
        whatever the compare-and-set's outcome (e.g. recording a fact the write then points
        to); None when the write needs none."""
        return None

    def write(self, submission_id: UUID | str) -> None:
        """Elsewhere: the same write through the ORM, right after the transition, in its
        transaction."""
        raise NotImplementedError

    def written(self) -> None:
        """Called once the transition and this write were made."""


def transition(
    submission_id: UUID | str,
    change: Change,
    *,
    entered_at: datetime | None = None,
    also: Sequence[CompanionWrite] = (),
) -> SubmissionStateEvent:
    """Apply ``change`` to the submission atomically and return its audit event; the writes in
    ``also`` are made with it, and only if it happens.

    On PostgreSQL this is one statement (the compare-and-set, the audit event, the companion
    writes): one round trip, atomic on its own, durable when it commits. Elsewhere the same
    writes run one by one in a transaction; ``entered_at``, when the submission entered
    ``change.from_state`` (its ``state_changed_at``), saves that path a query for the event's
    dwell time.

    Raises IllegalTransition for an edge the machine does not have, TransitionConflict when the
    submission is not in ``change.from_state`` any more, Submission.DoesNotExist when it is gone.
    Runs inside the caller's transaction when there is one, so a step can store more and move
    the state all-or-nothing.
    """
    return transition_through(submission_id, (change,), entered_at=entered_at, also=also)[0]


def transition_through(
    submission_id: UUID | str,
    changes: Sequence[Change],
    *,
    entered_at: datetime | None = None,
    also: Sequence[CompanionWrite] = (),
) -> list[SubmissionStateEvent]:
    """Apply consecutive edges (each one's target the next one's source) as one compare-and-set
    from the first edge's source to the last edge's target, with one audit event per edge, in
    order; see ``transition``.

    A step that decides two edges in one message (routing a submission to Tier 1, then Tier
    1's verdict) records both with one commit: the audit trail keeps every edge and the time
    each was decided, while the row never rests in the state in between. If the step dies
    before the commit, neither edge happened and the redelivered message starts again.
    """
    if not changes:
        raise ValueError("a transition needs at least one change")
    for change in changes:
        check_allowed(change)
    for earlier, later in pairwise(changes):
        if earlier.to_state != later.from_state:
            raise IllegalTransition(
                f"{earlier.from_state} → {earlier.to_state} is not followed by {later.from_state}"
            )
    now = timezone.now()
    fields: dict[str, Any] = {}
    for change in changes:
        fields |= change.updates
    last = changes[-1]
    fields |= {"state": last.to_state, "state_changed_at": now, "updated_at": now}
    if last.outcome is not None:
        fields |= {
            "outcome_kind": last.outcome.kind,
            "outcome_code": last.outcome.code,
            "outcome_message": last.outcome.message,
        }
    events = [
        _event(submission_id, change, now if change is last else change.decided_at or now)
        for change in changes
    ]
    if single_statements():
        _apply_in_one_statement(submission_id, changes[0].from_state, fields, events, also)
    else:
        _apply_one_by_one(submission_id, changes[0].from_state, fields, events, also, entered_at)
    for companion in also:
        companion.written()
    return events


def _event(submission_id: UUID | str, change: Change, at: datetime) -> SubmissionStateEvent:
    metadata = dict(change.metadata)
    if change.outcome is not None:
        metadata.setdefault("outcome", change.outcome.as_dict())
    return SubmissionStateEvent(
        submission_id=submission_id,
        from_state=change.from_state,
        to_state=change.to_state,
        trigger=change.trigger,
        actor=change.actor.name,
        actor_type=change.actor.type,
        metadata=metadata,
        created_at=at,
    )


# The event's fields the statement writes, each with the attribute holding its value.
_EVENT_FIELDS = {
    "submission": "submission_id",
    "from_state": "from_state",
    "to_state": "to_state",
    "trigger": "trigger",
    "actor": "actor",
    "actor_type": "actor_type",
    "metadata": "metadata",
    "created_at": "created_at",
}


def _apply_in_one_statement(
    submission_id: UUID | str,
    from_state: str,
    fields: dict[str, Any],
    events: list[SubmissionStateEvent],
    also: Sequence[CompanionWrite],
) -> None:
    """The compare-and-set, the audit events (the first one's dwell time from the row itself,
    the next ones' from the event before) and the companion writes as one statement. The row
    as the statement found it (``before``: the submission's id is passed once) also says, on a
    lost compare-and-set, what the state was instead."""
    submission_id = prepared(Submission, "id", submission_id)
    set_sql, set_params = assignments(Submission, fields)
    rows: list[str] = []
    row_params: list[Any] = []
    for index, event in enumerate(events):
        values = [
            prepared(SubmissionStateEvent, name, getattr(event, _EVENT_FIELDS[name]))
            for name in _EVENT_FIELDS
            if name != "submission"
        ]
        if index == 0:
            dwell = "(EXTRACT(EPOCH FROM (%s - before.entered)) * 1000)::float8"
            dwell_params: list[Any] = [event.created_at]
        else:
            dwell, dwell_params = "%s::float8", [_dwell_ms(events[index - 1], event)]
        placeholders = ", ".join(["%s"] * len(values))
        rows.append(f"SELECT moved.id, {placeholders}, {dwell} FROM moved, before")
        row_params += [*values, *dwell_params]
    preludes: list[tuple[int, tuple[str, list[Any]]]] = [
        (index, part)
        for index, part in enumerate(companion.prelude() for companion in also)
        if part is not None
    ]
    companions = [
        companion.sql("moved", f"prelude_{index}") for index, companion in enumerate(also)
    ]
    created_at = column(SubmissionStateEvent, "created_at")
    sql = (
        "WITH "
        + "".join(f"prelude_{index} AS ({part}), " for index, (part, _) in preludes)
        + f"before AS (SELECT id, {column(Submission, 'state')} AS state,"
        f" {column(Submission, 'state_changed_at')} AS entered"
        f" FROM {table(Submission)} WHERE id = %s),"
        f" moved AS (UPDATE {table(Submission)} SET {set_sql}"
        f" WHERE id = (SELECT id FROM before) AND {column(Submission, 'state')} = %s"
        " RETURNING id),"
        f" event AS (INSERT INTO {table(SubmissionStateEvent)}"
        f" ({', '.join(column(SubmissionStateEvent, name) for name in _EVENT_FIELDS)},"
        f" {column(SubmissionStateEvent, 'dwell_ms')}) {' UNION ALL '.join(rows)}"
        f" RETURNING id, dwell_ms, {created_at})"
        + "".join(f", companion_{index} AS ({part})" for index, (part, _) in enumerate(companions))
        + " SELECT event.id, event.dwell_ms, (SELECT state FROM before) FROM (SELECT 1) AS one"
        f" LEFT JOIN event ON true ORDER BY event.{created_at}, event.id"
    )
    params: list[Any] = [
        *(param for _, (_, part_params) in preludes for param in part_params),
        submission_id,
        *set_params,
        from_state,
        *row_params,
        *(param for _, part_params in companions for param in part_params),
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        stored = cursor.fetchall()
    event_id, _, state_before = stored[0]
    if event_id is None:
        raise _refusal(submission_id, from_state, state_before)
    for event, (event_id, dwell_ms, _) in zip(events, stored, strict=True):
        event.pk, event.dwell_ms = event_id, dwell_ms
        event._state.adding = False
        event._state.db = connection.alias


def _dwell_ms(earlier: SubmissionStateEvent, later: SubmissionStateEvent) -> float:
    return (later.created_at - earlier.created_at).total_seconds() * 1000


def _apply_one_by_one(
    submission_id: UUID | str,
    from_state: str,
    fields: dict[str, Any],
    events: list[SubmissionStateEvent],
    also: Sequence[CompanionWrite],
    entered_at: datetime | None,
) -> None:
    with transaction.atomic():
        entered = entered_at or (
            Submission.objects.filter(pk=submission_id, state=from_state)
            .values_list("state_changed_at", flat=True)
            .first()
        )
        changed = Submission.objects.filter(pk=submission_id, state=from_state).update(**fields)
        if changed == 0:
            raise _refusal(submission_id, from_state, from_state)
        for index, event in enumerate(events):
            if index:
                event.dwell_ms = _dwell_ms(events[index - 1], event)
            elif entered:
                event.dwell_ms = (event.created_at - entered).total_seconds() * 1000
            event.save(force_insert=True)
        for companion in also:
            companion.write(submission_id)


def _refusal(submission_id: UUID | str, expected: str, seen: str | None) -> Exception:
    """Why the compare-and-set lost. ``seen`` is the state read with the attempt; when it still
    says ``expected``, another transaction moved the row after that read, so read it again."""
    actual = seen
    if seen == expected:
        actual = Submission.objects.filter(pk=submission_id).values_list("state", flat=True).first()
    if actual is None:
        return Submission.DoesNotExist(f"submission {submission_id} does not exist")
    return TransitionConflict(submission_id, expected, actual)


def moved_in_memory(submission: Submission, change: Change, event: SubmissionStateEvent) -> None:
    """Make ``submission`` (as loaded before ``change``) say what the transition stored, so a
    step can go on with it without reading the row again."""
    for name, value in change.updates.items():
        setattr(submission, name, value)
    if change.outcome is not None:
        submission.outcome_kind = change.outcome.kind
        submission.outcome_code = change.outcome.code
        submission.outcome_message = change.outcome.message
    submission.state = change.to_state
    submission.state_changed_at = submission.updated_at = event.created_at


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
