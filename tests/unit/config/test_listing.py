"""Lists over large tables: counts exact up to a bound and estimated past it, distinct values by
index probes, searches by an id's first characters."""

from __future__ import annotations

from uuid import UUID

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from config import listing
from config.listing import (
    EstimatedCountPaginator,
    distinct_values,
    search_words,
    uuid_prefix_range,
)
from pipeline.models import SubmissionStateEvent
from pipeline.states import State
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def submissions(author, count: int) -> None:
    for index in range(count):
        submission_in(State.RECEIVED, author, name=f"skill-{index}")


def test_a_count_within_the_bound_is_exact_and_one_query(make_user, monkeypatch):
    monkeypatch.setattr(listing, "EXACT_COUNT_UP_TO", 3)
    submissions(make_user(), 3)
    paginator = EstimatedCountPaginator(
        SubmissionStateEvent.objects.order_by("-created_at"), per_page=2
    )

    with CaptureQueriesContext(connection) as captured:
        assert paginator.count == 3

    assert not paginator.count_is_estimate
    assert len(captured.captured_queries) == 1
    assert "LIMIT 4" in captured.captured_queries[0]["sql"]


def test_past_the_bound_the_count_is_the_planners_estimate(make_user, monkeypatch):
    monkeypatch.setattr(listing, "EXACT_COUNT_UP_TO", 2)
    submissions(make_user(), 5)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE pipeline_submissionstateevent")
    paginator = EstimatedCountPaginator(SubmissionStateEvent.objects.all(), per_page=2)

    assert paginator.count >= 3
    assert paginator.count_is_estimate
    assert paginator.num_pages >= 2


def test_distinct_values_come_in_order_one_index_probe_each(make_user):
    author = make_user()
    submissions(author, 2)
    SubmissionStateEvent.objects.create(
        submission=submission_in(State.RECEIVED, author),
        to_state=State.TIER1_SCANNING,
        trigger="intake-complete",
        actor="worker",
        actor_type="worker",
    )

    assert distinct_values(SubmissionStateEvent, "trigger") == ["intake-complete", "test"]
    assert distinct_values(SubmissionStateEvent, "to_state") == ["RECEIVED", "TIER1_SCANNING"]


def test_an_ids_first_characters_are_a_range_of_ids():
    bounds = uuid_prefix_range("3F2A-91")
    assert bounds is not None
    low, high = bounds

    assert low == UUID("3f2a9100-0000-0000-0000-000000000000")
    assert high == UUID("3f2a91ff-ffff-ffff-ffff-ffffffffffff")
    assert uuid_prefix_range(str(low)) == (low, low)


@pytest.mark.parametrize("text", ["3f2", "skill-1", "", "3f2a91bc-0000-0000-0000-0000000000000"])
def test_what_cannot_begin_an_id_or_narrows_too_little_is_no_range(text):
    assert uuid_prefix_range(text) is None


def test_search_words_split_like_the_admins_keeping_quoted_phrases():
    assert search_words('alice "weather report"  3f2a') == ["alice", "weather report", "3f2a"]
