"""Sweeps: stuck recovery (seed 001), deadlines (seed 002 §4.4), undelivered submissions."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from pipeline.models import ProcessingAttempt, Submission, TimeoutBucket
from pipeline.services import sweeps
from pipeline.services.timeouts import record_timeout
from pipeline.states import State
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def stalled(submission: Submission, minutes: float) -> Submission:
    Submission.objects.filter(pk=submission.pk).update(
        state_changed_at=timezone.now() - timedelta(minutes=minutes)
    )
    submission.refresh_from_db()
    return submission


def test_a_stuck_submission_is_redispatched_from_its_state_with_backoff(
    make_user, django_capture_on_commit_callbacks
):
    submission = stalled(submission_in(State.TIER1_SCANNING, make_user()), 6)
    now = timezone.now()
    with django_capture_on_commit_callbacks() as dispatches:
        report = sweeps.recover_stuck(now)
    assert report.acted == [str(submission.pk)]
    assert len(dispatches) == 1
    submission.refresh_from_db()
    assert submission.recovery_attempts == 1
    assert submission.recovery_next_at == now + timedelta(seconds=60)
    assert TimeoutBucket.objects.get().classification == "infrastructure"

    with django_capture_on_commit_callbacks() as again:
        assert sweeps.recover_stuck(now + timedelta(seconds=30)).acted == []
    assert again == []


def test_backoff_doubles_and_the_budget_ends_in_stuck_exhausted(make_user):
    submission = stalled(submission_in(State.TIER2_SCANNING, make_user()), 6)
    moment = timezone.now()
    waits = []
    for _ in range(3):
        sweeps.recover_stuck(moment)
        submission.refresh_from_db()
        assert submission.recovery_next_at is not None
        waits.append((submission.recovery_next_at - moment).total_seconds())
        moment = submission.recovery_next_at
    assert waits == [60, 120, 240]
    report = sweeps.recover_stuck(moment)
    assert report.exhausted == [str(submission.pk)]
    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("error", "STUCK_EXHAUSTED")
    event = submission.events.last()
    assert event is not None
    assert (event.trigger, event.actor_type, event.metadata["recovery_attempts"]) == (
        "stuck-exhausted",
        "system",
        3,
    )


def test_recent_in_flight_attempts_and_fresh_or_review_submissions_are_left_alone(make_user):
    user = make_user()
    busy = stalled(submission_in(State.TIER2_SCANNING, user), 6)
    ProcessingAttempt.objects.create(
        submission=busy, stage=busy.state, task_name="pipeline.judge",
        started_at=timezone.now() - timedelta(minutes=1),
    )  # fmt: skip
    fresh = stalled(submission_in(State.TIER1_SCANNING, user, name="fresh"), 1)
    waiting = stalled(submission_in(State.NEEDS_REVIEW, user, name="waiting"), 600)
    report = sweeps.recover_stuck()
    assert report.acted == []
    assert report.skipped == [str(busy.pk)]
    for untouched in (fresh, waiting):
        untouched.refresh_from_db()
        assert untouched.recovery_attempts == 0


def test_a_step_running_too_long_is_classified_by_its_stage(make_user):
    submission = stalled(submission_in(State.TIER2_SCANNING, make_user()), 10)
    ProcessingAttempt.objects.create(
        submission=submission, stage=submission.state, task_name="pipeline.judge",
        started_at=timezone.now() - timedelta(minutes=9),
    )  # fmt: skip
    sweeps.recover_stuck()
    assert TimeoutBucket.objects.get().classification == "judge_timeout"


def test_overdue_automated_submissions_time_out_and_reviews_are_exempt(make_user):
    user = make_user()
    overdue = submission_in(State.TIER2_SCANNING, user)
    in_review = submission_in(State.NEEDS_REVIEW, user, name="in-review")
    on_time = submission_in(State.TIER1_SCANNING, user, name="on-time")
    Submission.objects.filter(pk__in=[overdue.pk, in_review.pk]).update(
        deadline_at=timezone.now() - timedelta(seconds=1)
    )
    report = sweeps.enforce_deadlines()
    assert report.acted == [str(overdue.pk)]
    overdue.refresh_from_db()
    assert overdue.outcome is not None
    assert (overdue.state, overdue.outcome.code, overdue.outcome.kind) == (
        "REJECTED",
        "SLA_TIMEOUT",
        "error",
    )
    last_event = overdue.events.last()
    assert last_event is not None
    assert last_event.trigger == "sla-timeout"
    in_review.refresh_from_db()
    on_time.refresh_from_db()
    assert (in_review.state, on_time.state) == ("NEEDS_REVIEW", "TIER1_SCANNING")


def test_submissions_the_broker_never_confirmed_are_sent_by_the_sweep(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    assert submission.dispatched_at is None
    assert sweeps.dispatch_undelivered().acted == []
    report = sweeps.dispatch_undelivered(timezone.now() + timedelta(seconds=11))
    assert report.acted == [str(submission.pk)]
    submission.refresh_from_db()
    assert submission.dispatched_at is not None
    assert sweeps.dispatch_undelivered(timezone.now() + timedelta(seconds=11)).acted == []


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_timeout_buckets_count_exactly_under_concurrent_upserts():
    hour = timezone.now()
    barrier = threading.Barrier(8)

    def record() -> None:
        barrier.wait()
        try:
            for _ in range(25):
                record_timeout("judge_timeout", 10.0, hour)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=record) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bucket = TimeoutBucket.objects.get()
    assert (bucket.count, bucket.total_duration_ms) == (200, 2000.0)
    assert bucket.hour == hour.replace(minute=0, second=0, microsecond=0)
