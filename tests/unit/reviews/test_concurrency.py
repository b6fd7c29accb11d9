"""Two reviewers acting on one review at the same moment: one wins, the other is told what
happened, and the review record never disagrees with the submission."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections

from pipeline.models import Submission
from pipeline.states import State
from pipeline.transitions import TransitionError
from reviews import services
from reviews.models import Review, ReviewPeriod
from tests.unit.reviews.factories import awaiting_review

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def race(*attempts: Callable[[], object]) -> list[object]:
    """Run the attempts in threads released together; each result is the return value or the
    exception raised."""
    barrier = threading.Barrier(len(attempts))
    results: list[object] = [None] * len(attempts)

    def run(index: int, attempt: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = attempt()
        except Exception as exc:  # the exception is the result under test
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_two_reviewers_assigning_at_once_one_wins_the_other_is_told(
    waiting, reviewer, other_reviewer
):
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    results = race(
        lambda: services.assign(waiting.pk, reviewer, "rita"),
        lambda: services.assign(waiting.pk, other_reviewer, "rob"),
    )

    winners = [r for r in results if isinstance(r, Review)]
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(winners) == 1 and len(losers) == 1, results
    assert isinstance(losers[0], TransitionError)
    assert "already assigned" in str(losers[0])
    review = Review.objects.get(pk=waiting.pk)
    assert review.assignee_id == winners[0].assignee_id
    submission = Submission.objects.get(pk=waiting.pk)
    assert submission.state == State.TIER3_REVIEW
    assert submission.events.filter(trigger="reviewer-assigned").count() == 1
    assert ReviewPeriod.objects.filter(review=review, ended_at__isnull=True).count() == 1


def test_approve_racing_reject_leaves_exactly_one_decision(waiting, reviewer):
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    services.assign(waiting.pk, reviewer, "rita")
    results = race(
        lambda: services.approve(waiting.pk, reviewer),
        lambda: services.reject(waiting.pk, reviewer, "changed my mind"),
    )

    losers = [r for r in results if isinstance(r, Exception)]
    assert len(losers) == 1 and isinstance(losers[0], TransitionError), results
    assert "the review is closed" in str(losers[0])
    review = Review.objects.get(pk=waiting.pk)
    submission = Submission.objects.get(pk=waiting.pk)
    expected = {"approved": State.PUBLISHED, "rejected": State.REJECTED}
    assert submission.state == expected[review.decision]
    assert submission.events.filter(actor_type="admin").count() == 2
    assert (submission.published_version_id is not None) == (review.decision == "approved")


def test_two_reviewers_deciding_two_identical_submissions_at_once_cannot_contradict(
    author, reviewer, other_reviewer
):
    """Approving one copy and rejecting the other at the same moment: the decisions take the
    bundle's lock in turn, and the second is refused (the files never end both ways)."""
    first, second = awaiting_review(author), awaiting_review(author)
    services.assign(first.pk, reviewer, "rita")
    services.assign(second.pk, other_reviewer, "rob")
    results = race(
        lambda: services.approve(first.pk, reviewer),
        lambda: services.reject(second.pk, other_reviewer, "no"),
    )
    refused = [r for r in results if isinstance(r, services.ActionUnavailable)]
    assert len(refused) == 1, results
    assert "cannot contradict" in str(refused[0])
    states = set(
        Submission.objects.filter(pk__in=[first.pk, second.pk]).values_list("state", flat=True)
    )
    assert states in ({State.PUBLISHED, State.TIER3_REVIEW}, {State.REJECTED, State.TIER3_REVIEW})
