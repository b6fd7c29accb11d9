"""The review SLA (seed 000 §6.2): reviews past their due date are flagged by a beat sweep,
counted for the metrics and listed first; nothing is rejected automatically."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from config.celery import MAINTENANCE_QUEUE, app
from pipeline.states import State
from reviews import selectors, services
from reviews.models import Review
from reviews.tasks import flag_overdue
from tests.unit.reviews.factories import awaiting_review, state_of

pytestmark = pytest.mark.django_db


def due_in(review: Review, delta: timedelta) -> Review:
    Review.objects.filter(pk=review.pk).update(due_at=timezone.now() + delta)
    return Review.objects.get(pk=review.pk)


def test_the_sweep_flags_open_reviews_past_due_once_and_rejects_nothing(author, reviewer):
    late = due_in(awaiting_review(author, name="late-one"), timedelta(hours=-1))
    on_time = due_in(awaiting_review(author, name="on-time"), timedelta(hours=1))
    decided = due_in(awaiting_review(author, name="decided"), timedelta(hours=-2))
    services.reject(decided.pk, reviewer, "unsafe")

    assert services.flag_overdue_reviews() == 1
    first_flag = Review.objects.get(pk=late.pk).overdue_at
    assert first_flag is not None
    assert Review.objects.get(pk=on_time.pk).overdue_at is None
    assert Review.objects.get(pk=decided.pk).overdue_at is None
    assert state_of(late) == State.NEEDS_REVIEW

    assert services.flag_overdue_reviews() == 0
    assert Review.objects.get(pk=late.pk).overdue_at == first_flag


def test_the_overdue_count_is_what_the_queue_shows_as_overdue(author, reviewer):
    assert selectors.overdue_review_count() == 0
    due_in(awaiting_review(author, name="late-one"), timedelta(minutes=-5))
    due_in(awaiting_review(author, name="late-two"), timedelta(days=-3))
    due_in(awaiting_review(author, name="on-time"), timedelta(days=1))
    assigned = due_in(awaiting_review(author, name="assigned"), timedelta(days=-1))
    services.assign(assigned.pk, reviewer, "rita")

    assert selectors.overdue_review_count() == 3
    assert selectors.overdue(Review.objects.all()).count() == 3
    assert selectors.overdue_review_count(now=timezone.now() + timedelta(days=2)) == 4


def test_overdue_reviews_come_first_then_by_due_day_then_priority(author):
    now = timezone.now()
    tomorrow_normal = awaiting_review(author, name="t-normal", high_privilege=False, score=70)
    tomorrow_urgent = awaiting_review(author, name="t-urgent", score=70)
    next_week = awaiting_review(author, name="next-week")
    overdue = awaiting_review(author, name="overdue", high_privilege=False, score=70)
    noon_tomorrow = (now + timedelta(days=1)).replace(hour=12, minute=0)
    Review.objects.filter(pk=tomorrow_normal.pk).update(due_at=noon_tomorrow, priority=3)
    Review.objects.filter(pk=tomorrow_urgent.pk).update(
        due_at=noon_tomorrow + timedelta(hours=3), priority=1
    )
    Review.objects.filter(pk=next_week.pk).update(due_at=now + timedelta(days=7), priority=1)
    Review.objects.filter(pk=overdue.pk).update(due_at=now - timedelta(minutes=1), priority=3)

    names = [r.submission.skill_name for r in selectors.review_queue()]
    assert names == ["overdue", "t-urgent", "t-normal", "next-week"]


def test_the_sweep_task_is_named_routed_to_maintenance_and_scheduled_every_15_minutes(
    author,
):
    assert flag_overdue.name == "reviews.sweeps.flag_overdue"
    route = app.amqp.router.route({}, flag_overdue.name)
    assert route["queue"].name == MAINTENANCE_QUEUE

    schedule = PeriodicTask.objects.get(task="reviews.sweeps.flag_overdue")
    assert schedule.enabled
    assert (schedule.interval.every, schedule.interval.period) == (15, "minutes")

    late = due_in(awaiting_review(author), timedelta(hours=-1))
    assert flag_overdue.apply().get() == 1
    assert Review.objects.get(pk=late.pk).overdue_at is not None
