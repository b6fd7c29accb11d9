"""Stale and stuck are two words with two meanings: stale after 3 minutes without progress (a
warning), stuck after SKILLGATE_STUCK_AFTER_S (the recovery sweep acts)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from pipeline import selectors
from pipeline.models import Submission
from pipeline.services import sweeps
from pipeline.states import State
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def without_progress_for(submission: Submission, minutes: float) -> Submission:
    Submission.objects.filter(pk=submission.pk).update(
        state_changed_at=timezone.now() - timedelta(minutes=minutes)
    )
    submission.refresh_from_db()
    return submission


@pytest.fixture
def moving_stale_and_stuck(make_user):
    author = make_user()
    return (
        without_progress_for(submission_in(State.TIER1_SCANNING, author, name="moving"), 1),
        without_progress_for(submission_in(State.TIER1_SCANNING, author, name="stale"), 4),
        without_progress_for(submission_in(State.TIER2_SCANNING, author, name="stuck"), 6),
    )


def names(queryset) -> set[str]:
    return set(queryset.values_list("skill_name", flat=True))


def test_stale_after_three_minutes_stuck_after_five_and_every_stuck_one_is_stale(
    moving_stale_and_stuck,
):
    now = timezone.now()
    assert names(selectors.stale_submissions(now)) == {"stale", "stuck"}
    assert names(selectors.stuck_submissions(now)) == {"stuck"}
    _, stale, stuck = moving_stale_and_stuck
    assert selectors.staleness(stale, now) is not None
    assert not selectors.is_stuck(stale, now)
    assert selectors.is_stuck(stuck, now)


def test_stuck_follows_the_setting(moving_stale_and_stuck, settings):
    settings.SKILLGATE_STUCK_AFTER_S = 10 * 60
    assert names(selectors.stuck_submissions(timezone.now())) == set()


def test_submissions_waiting_for_people_or_finished_are_neither(make_user):
    for state in (State.NEEDS_REVIEW, State.TIER3_REVIEW, State.PUBLISHED, State.REJECTED):
        without_progress_for(
            submission_in(state, make_user(f"u-{state}"), name=state.lower().replace("_", "-")), 60
        )
    now = timezone.now()
    assert names(selectors.stale_submissions(now)) == set()
    assert names(selectors.stuck_submissions(now)) == set()


def test_the_recovery_sweep_acts_on_stuck_submissions_only(moving_stale_and_stuck):
    _, _, stuck = moving_stale_and_stuck
    assert sweeps.recover_stuck().acted == [str(stuck.pk)]


def test_the_author_is_warned_when_stale_in_words_that_do_not_say_stuck(moving_stale_and_stuck):
    _, stale, _ = moving_stale_and_stuck
    warning = selectors.staleness(stale, timezone.now())
    assert warning is not None
    assert warning["message"] == (
        "Your submission has been in Tier 1 scanning for over 3 minutes without progress"
    )
