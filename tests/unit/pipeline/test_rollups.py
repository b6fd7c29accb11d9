"""The figures the database keeps (pipeline.rollups) agree with the rows they summarise, however
those rows were written, and the history is counted the same way when it is backfilled."""

from __future__ import annotations

import importlib
import threading
from collections import Counter, defaultdict
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from pipeline import rollups, tasks
from pipeline.models import (
    HourlyStageLatency,
    HourlyStepMessages,
    HourlyTransitions,
    ProcessingAttempt,
    StateCount,
    Submission,
    SubmissionStateEvent,
    TransitionTotal,
)
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import REVIEW_STATES, TERMINAL_STATES, State
from pipeline.transitions import Actor, Change, TransitionConflict, transition
from tests.support.skills import review_band_files, tier1_failing_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("pipeline.migrations.0016_keep_figures_with_triggers")
LONG_AGO = timezone.now() - timedelta(days=400)


def run_pipeline(submission: Submission, message: str) -> None:
    for name, step in (
        ("pipeline.scan", steps.run_intake_and_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission.pk), StepContext(name, f"{message}-{name}", "test@host"))


@pytest.fixture
def history(make_user, settings):
    """Submissions that took every kind of path, some of them twice through a step."""
    author = make_user()
    published = submission_in(State.RECEIVED, author, name="published")
    run_pipeline(published, "a")
    run_pipeline(published, "a")  # a redelivered chain: nothing moves, nothing is counted
    run_pipeline(submission_in(State.RECEIVED, author, files=tier1_failing_files()), "b")
    run_pipeline(
        submission_in(State.RECEIVED, author, files=review_band_files(), name="nightly-cleanup"),
        "c",
    )
    stalled = submission_in(State.TIER2_SCANNING, author, name="stalled")
    transition(
        stalled.pk,
        Change(
            State.TIER2_SCANNING,
            State.REJECTED,
            "sla-timeout",
            Actor.system(),
            outcome=Outcome.error(OutcomeCode.SLA_TIMEOUT, "late"),
        ),
    )
    submission_in(State.TIER3_REVIEW, author, name="placed-directly")


def figures() -> dict[str, Any]:
    first_hour = LONG_AGO
    return {
        "by_state": rollups.submissions_by_state(),
        "by_hour": dict(rollups.transitions_by_hour(first_hour)),
        "total": rollups.transitions_total(),
        "latency": rollups.latency_histograms(first_hour, [*State.values, rollups.END_TO_END]),
        "messages": rollups.step_messages(first_hour),
    }


def counted_from_the_rows() -> dict[str, Any]:
    """The same figures, aggregated in Python from the submissions, events and attempts."""
    events = list(SubmissionStateEvent.objects.select_related("submission"))
    by_hour: dict = defaultdict(Counter)
    latency: dict = {stage: Counter() for stage in [*State.values, rollups.END_TO_END]}
    for event in events:
        by_hour[event.created_at.replace(minute=0, second=0, microsecond=0)][event.to_state] += 1
        if event.dwell_ms is not None and event.from_state:
            latency[event.from_state][rollups.bucket_of(event.dwell_ms)] += 1
        if (
            event.to_state in TERMINAL_STATES
            and event.from_state
            and event.from_state not in REVIEW_STATES
        ):
            end_to_end = (event.created_at - event.submission.created_at).total_seconds() * 1000
            latency[rollups.END_TO_END][rollups.bucket_of(end_to_end)] += 1
    states = Counter(Submission.objects.values_list("state", flat=True))
    return {
        "by_state": {state.value: states.get(state.value, 0) for state in State},
        "by_hour": {hour: dict(counts) for hour, counts in by_hour.items()},
        "total": dict(Counter(event.to_state for event in events)),
        "latency": {stage: dict(counts) for stage, counts in latency.items()},
        "messages": len(set(ProcessingAttempt.objects.values_list("task_id", flat=True))),
    }


def test_the_figures_agree_with_the_rows_they_summarise(history):
    kept = figures()
    assert kept == counted_from_the_rows()
    assert kept["by_state"]["TIER3_REVIEW"] == 1, "a row written directly is counted too"
    assert kept["total"]["PUBLISHED"] == 1 and kept["messages"] == 6
    assert sum(kept["latency"][rollups.END_TO_END].values()) == 3


def test_state_counts_follow_any_write_to_the_table(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    Submission.objects.filter(pk=submission.pk).update(state=State.TIER1_SCANNING)
    Submission.objects.filter(pk=submission.pk).update(recovery_attempts=1)
    submission_in(State.NEEDS_REVIEW, make_user("bob"), name="other").events.all()
    assert {k: v for k, v in rollups.submissions_by_state().items() if v} == {
        "TIER1_SCANNING": 1,
        "NEEDS_REVIEW": 1,
    }


def test_the_backfill_counts_the_history_as_the_triggers_did(history, monkeypatch):
    kept = figures()
    monkeypatch.setattr(MIGRATION, "CHUNK", 2)
    MIGRATION.install(None, SimpleNamespace(connection=connection))
    assert figures() == kept


def test_the_migration_and_the_reader_share_the_bucket_bounds():
    assert MIGRATION.BOUNDS == rollups.BUCKET_BOUNDS_MS
    assert MIGRATION.END_TO_END == rollups.END_TO_END
    assert tuple(sorted(TERMINAL_STATES)) == MIGRATION.TERMINAL
    assert tuple(sorted(REVIEW_STATES)) == MIGRATION.REVIEW


def test_estimated_percentiles_fall_in_the_bucket_of_the_true_value():
    values = [3.0, 40.0, 41.0, 45.0, 47.0, 52.0, 60.0, 75.0, 400.0, 9_000.0]
    histogram = Counter(rollups.bucket_of(value) for value in values)
    p50, p95, count = rollups.percentiles(histogram)
    assert count == len(values) and p50 is not None and p95 is not None
    assert rollups.bucket_of(p50) == rollups.bucket_of(49.5)
    assert 400.0 <= p95 <= 9_000.0
    assert rollups.percentiles({}) == (None, None, 0)
    assert rollups.percentiles({rollups.bucket_of(120.0): 1})[0] == pytest.approx(120.0, rel=0.19)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_figures_stay_exact_under_concurrent_transitions(make_user):
    """Two racing transitions of each of eight submissions: one of each pair wins and is
    counted once."""
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    submissions = [submission_in(State.RECEIVED, make_user(f"u{i}")) for i in range(8)]
    barrier = threading.Barrier(16)
    outcomes: list[str] = []

    def attempt(submission: Submission) -> None:
        try:
            barrier.wait()
            transition(
                submission.pk,
                Change(State.RECEIVED, State.TIER1_SCANNING, "non-vendor", Actor.system()),
            )
            outcomes.append("won")
        except TransitionConflict:
            outcomes.append("conflict")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt, args=(s,)) for s in submissions * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 8 + ["won"] * 8
    assert rollups.submissions_by_state()["TIER1_SCANNING"] == 8
    assert rollups.transitions_total() == {"RECEIVED": 8, "TIER1_SCANNING": 8}
    assert figures() == counted_from_the_rows()
    for model in (StateCount, HourlyTransitions, TransitionTotal, HourlyStageLatency):
        assert model.objects.exists()
    assert not HourlyStepMessages.objects.exists()


# --- noted by the writers, counted by a fold (PostgreSQL) --------------------------------------

FOLDING = importlib.import_module("pipeline.migrations.0020_figures_folded_from_a_change_log")


def pending_changes() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {FOLDING.LOG}")
        return cursor.fetchone()[0]


def test_a_step_only_notes_its_changes_and_the_next_read_counts_them(make_user):
    assert connection.vendor == "postgresql", "the change log is PostgreSQL's"
    rollups.fold_pending()
    submission = submission_in(State.RECEIVED, make_user())
    run_pipeline(submission, "noted")
    untouched = {
        model: model.objects.count()
        for model in (StateCount, HourlyTransitions, TransitionTotal, HourlyStepMessages)
    }
    assert pending_changes() > 0
    assert {model: model.objects.count() for model in untouched} == untouched
    kept = figures()
    assert pending_changes() == 0
    assert kept == counted_from_the_rows()
    assert kept["total"]["PUBLISHED"] == 1 and kept["messages"] == 3
    assert rollups.fold_pending() == 0 and figures() == kept, "a change is counted once"


def test_truncating_a_table_clears_its_pending_changes_with_its_figures(history, make_user):
    figures()
    run_pipeline(submission_in(State.RECEIVED, make_user("late"), name="late"), "late")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # a truncate waits for no deferred check
        cursor.execute(f"TRUNCATE {ProcessingAttempt._meta.db_table}")
    assert rollups.step_messages(LONG_AGO) == 0
    assert figures()["total"]["PUBLISHED"] == 2


def test_the_beat_folds_every_minute(make_user):
    schedule = PeriodicTask.objects.get(task="pipeline.sweeps.fold_figures")
    assert (schedule.enabled, schedule.interval.every, schedule.interval.period) == (
        True,
        60,
        "seconds",
    )
    rollups.fold_pending()
    submission_in(State.RECEIVED, make_user())  # its row and its first audit event
    assert tasks.fold_figures() == {"folded": 2}
    assert tasks.fold_figures() == {"folded": 0}


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_folds_racing_writers_and_each_other_count_every_change_once(make_user):
    """Writers run the pipeline while folds run back to back from other connections: every
    change is counted by exactly one fold, none is lost, and no writer waits for a fold."""
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    submissions = [
        submission_in(State.RECEIVED, make_user(f"w{i}"), name=f"w{i}") for i in range(6)
    ]
    writing = threading.Event()
    writing.set()
    errors: list[BaseException] = []

    def write(submission: Submission) -> None:
        try:
            run_pipeline(submission, f"race-{submission.pk}")
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def fold() -> None:
        try:
            while writing.is_set():
                rollups.fold_pending()
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    folders = [threading.Thread(target=fold) for _ in range(3)]
    writers = [threading.Thread(target=write, args=(s,)) for s in submissions]
    for thread in [*folders, *writers]:
        thread.start()
    for thread in writers:
        thread.join()
    writing.clear()
    for thread in folders:
        thread.join()
    assert errors == []
    assert figures() == counted_from_the_rows()
    assert rollups.transitions_total()["PUBLISHED"] == 6
