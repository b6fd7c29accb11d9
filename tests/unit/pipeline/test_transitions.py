"""transition(): compare-and-set on the state, the audit row in the same transaction."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.utils import timezone

from pipeline import transitions
from pipeline.models import Submission, SubmissionStateEvent
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import State
from pipeline.transitions import (
    Actor,
    Change,
    IllegalTransition,
    TransitionConflict,
    transition,
    transition_through,
)
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def test_a_transition_moves_the_state_and_writes_one_audit_event(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    event = transition(
        submission.pk,
        Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "non-vendor-submission",
            Actor.system(),
            {"note": 1},
        ),
    )
    submission.refresh_from_db()
    assert submission.state == State.TIER1_SCANNING
    assert (event.from_state, event.to_state, event.trigger, event.actor, event.actor_type) == (
        "RECEIVED",
        "TIER1_SCANNING",
        "non-vendor-submission",
        "system",
        "system",
    )
    assert event.metadata == {"note": 1}
    assert list(submission.events.values_list("to_state", flat=True)) == [
        "RECEIVED",
        "TIER1_SCANNING",
    ]


def test_an_edge_outside_the_machine_is_illegal_and_changes_nothing(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    with pytest.raises(IllegalTransition, match="RECEIVED → PUBLISHED"):
        transition(
            submission.pk,
            Change(
                State.RECEIVED,
                State.PUBLISHED,
                "x",
                Actor.system(),
                outcome=Outcome.verdict(OutcomeCode.PUBLISHED, "no"),
            ),
        )
    submission.refresh_from_db()
    assert submission.state == State.RECEIVED
    assert submission.events.count() == 1


def test_a_stale_expected_state_is_a_conflict(make_user):
    submission = submission_in(State.TIER1_SCANNING, make_user())
    with pytest.raises(TransitionConflict) as raised:
        transition(submission.pk, Change(State.RECEIVED, State.TIER1_SCANNING, "x", Actor.system()))
    assert raised.value.actual == "TIER1_SCANNING"
    assert submission.events.count() == 1


def test_terminal_states_require_an_outcome_and_store_it(make_user):
    submission = submission_in(State.TIER2_SCANNING, make_user())
    with pytest.raises(IllegalTransition, match="outcome"):
        transition(
            submission.pk,
            Change(State.TIER2_SCANNING, State.REJECTED, "tier2-fail", Actor.worker()),
        )
    transition(
        submission.pk,
        Change(
            State.TIER2_SCANNING,
            State.REJECTED,
            "tier2-fail",
            Actor.worker(),
            outcome=Outcome.verdict(OutcomeCode.SCORE_TOO_LOW, "scored 12"),
        ),
    )
    submission.refresh_from_db()
    assert submission.outcome == Outcome("verdict", "SCORE_TOO_LOW", "scored 12")
    last = submission.events.last()
    assert last is not None
    assert last.metadata["outcome"]["code"] == "SCORE_TOO_LOW"


def test_only_the_system_may_reject_an_automated_state_and_only_with_an_error(make_user):
    submission = submission_in(State.TIER1_SCANNING, make_user())
    verdict = Outcome.verdict(OutcomeCode.SCORE_TOO_LOW, "no")
    error = Outcome.error(OutcomeCode.STUCK_EXHAUSTED, "gave up")
    with pytest.raises(IllegalTransition, match="reserved to the system"):
        transition(
            submission.pk,
            Change(State.TIER1_SCANNING, State.REJECTED, "x", Actor.system(), outcome=verdict),
        )
    with pytest.raises(IllegalTransition, match="reserved to the system"):
        transition(
            submission.pk,
            Change(State.TIER1_SCANNING, State.REJECTED, "x", Actor.admin("bob"), outcome=error),
        )
    transition(
        submission.pk,
        Change(
            State.TIER1_SCANNING, State.REJECTED, "stuck-exhausted", Actor.system(), outcome=error
        ),
    )
    submission.refresh_from_db()
    assert (submission.state, submission.outcome_kind) == ("REJECTED", "error")


def test_only_a_person_granting_an_appeal_takes_a_rejection_back_to_tier3(make_user):
    submission = submission_in(State.REJECTED, make_user())
    for trigger, actor in (("appeal-granted", Actor.system()), ("reopen", Actor.admin("sven"))):
        with pytest.raises(IllegalTransition, match="reserved to a person granting an appeal"):
            transition(submission.pk, Change(State.REJECTED, State.TIER3_REVIEW, trigger, actor))
    transition(
        submission.pk,
        Change(State.REJECTED, State.TIER3_REVIEW, "appeal-granted", Actor.admin("sven")),
    )
    submission.refresh_from_db()
    assert submission.state == State.TIER3_REVIEW


def test_an_outcome_kind_must_match_its_code():
    with pytest.raises(ValueError, match="is a error"):
        Outcome.verdict(OutcomeCode.SLA_TIMEOUT, "late")


def test_audit_events_cannot_be_changed_or_deleted(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    event = submission.events.get()
    event.trigger = "rewritten"
    with pytest.raises(TypeError, match="append-only"):
        event.save()
    with pytest.raises(TypeError, match="append-only"):
        event.delete()
    with pytest.raises(TypeError, match="append-only"):
        SubmissionStateEvent.objects.filter(pk=event.pk).update(trigger="x")


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_database_refuses_to_rewrite_the_audit_trail(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE pipeline_submissionstateevent SET trigger = 'forged' WHERE submission_id = %s",
            [submission.pk.hex if connection.vendor == "sqlite" else submission.pk],
        )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_of_many_concurrent_identical_transitions_exactly_one_wins(make_user):
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    submission = submission_in(State.RECEIVED, make_user())
    threads_count = 16
    barrier = threading.Barrier(threads_count)
    results: list[str] = []
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait()
            transition(
                submission.pk,
                Change(
                    State.RECEIVED, State.TIER1_SCANNING, "non-vendor-submission", Actor.system()
                ),
            )
            outcome = "won"
        except TransitionConflict:
            outcome = "conflict"
        finally:
            connections.close_all()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=attempt) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["conflict"] * (threads_count - 1) + ["won"]
    assert Submission.objects.get(pk=submission.pk).state == State.TIER1_SCANNING
    assert (
        SubmissionStateEvent.objects.filter(
            submission=submission, to_state=State.TIER1_SCANNING
        ).count()
        == 1
    )


@pytest.fixture(params=["in one statement", "one by one"])
def transition_path(request, monkeypatch):
    if request.param == "one by one":
        monkeypatch.setattr(transitions, "single_statements", lambda: False)
    return request.param


def routed_then_scanned(decided_at=None) -> tuple[Change, Change]:
    return (
        Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "non-vendor-submission",
            Actor.system(),
            decided_at=decided_at,
        ),
        Change(State.TIER1_SCANNING, State.TIER2_SCANNING, "tier1-pass", Actor.worker()),
    )


def test_consecutive_edges_move_the_row_once_and_audit_each_edge_at_its_own_time(
    make_user, transition_path
):
    submission = submission_in(State.RECEIVED, make_user())
    routed_at = timezone.now()

    events = transition_through(submission.pk, routed_then_scanned(routed_at))

    submission.refresh_from_db()
    assert submission.state == State.TIER2_SCANNING
    stored = list(submission.events.order_by("created_at", "id"))
    assert [(e.from_state, e.to_state, e.trigger) for e in stored] == [
        (None, "RECEIVED", "test"),
        ("RECEIVED", "TIER1_SCANNING", "non-vendor-submission"),
        ("TIER1_SCANNING", "TIER2_SCANNING", "tier1-pass"),
    ]
    assert [e.pk for e in events] == [e.pk for e in stored[1:]]
    assert stored[1].created_at == routed_at
    assert stored[2].created_at == submission.state_changed_at > routed_at
    assert stored[2].dwell_ms == pytest.approx(
        (stored[2].created_at - routed_at).total_seconds() * 1000
    )


def test_a_lost_compare_and_set_applies_none_of_the_edges(make_user, transition_path):
    submission = submission_in(State.TIER1_SCANNING, make_user())
    with pytest.raises(TransitionConflict) as raised:
        transition_through(submission.pk, routed_then_scanned())
    assert raised.value.actual == "TIER1_SCANNING"
    assert submission.events.count() == 1


def test_edges_that_do_not_follow_each_other_are_refused(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    routed, scanned = routed_then_scanned()
    with pytest.raises(IllegalTransition, match="is not followed by"):
        transition_through(submission.pk, (scanned, routed))
    submission.refresh_from_db()
    assert (submission.state, submission.events.count()) == (State.RECEIVED, 1)
