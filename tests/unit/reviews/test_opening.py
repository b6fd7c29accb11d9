"""A submission entering NEEDS_REVIEW gets a review record saying why, how urgent, and by when."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from grading.types import Concern
from pipeline.states import State
from reviews.models import Review, ReviewPeriod
from reviews.services import REVIEW_TARGET_BUSINESS_DAYS, add_business_days
from tests.unit.reviews.factories import awaiting_review, rm_finding

pytestmark = pytest.mark.django_db


def test_the_review_records_the_score_band_the_privilege_and_the_worst_findings(author):
    low = rm_finding(line=2, severity="low")
    high = rm_finding(line=3, severity="high")
    review = awaiting_review(author, findings=(low, high), score=85, privileges=("Bash",))

    assert review.reasons == [
        "score 85 but high-privilege: Bash",
        "Destructive commands (high) at scripts/largest.sh:3 (destructive.rm-rf)",
        "Destructive commands (low) at scripts/largest.sh:2 (destructive.rm-rf)",
    ]
    assert (review.score, review.high_privilege, review.privileges) == (85, True, ["Bash"])
    assert [(c.category, c.findings, c.worst_severity) for c in review.categories.all()] == [
        ("destructive-commands", 2, "high")
    ]
    assert review.status == "waiting"
    assert review.assignee is None and review.decision == ""


def test_only_the_five_worst_findings_are_spelled_out(author):
    findings = tuple(rm_finding(line=n, severity="medium") for n in range(1, 9))
    review = awaiting_review(author, findings=findings)
    assert len(review.reasons) == 1 + 5 + 1
    assert review.reasons[-1] == "and 3 more finding(s)"


@pytest.mark.parametrize(
    ("findings", "concerns", "high_privilege", "priority"),
    [
        ((rm_finding(severity="high"),), (), False, Review.Priority.URGENT),
        ((), (Concern("exfiltration", "critical", "SKILL.md", 4, "posts data"),), True, 1),
        ((rm_finding(severity="medium"),), (), True, Review.Priority.HIGH),
        ((rm_finding(severity="low"),), (), False, Review.Priority.NORMAL),
    ],
)
def test_priority_puts_high_risk_first_then_high_privilege(
    author, findings, concerns, high_privilege, priority
):
    review = awaiting_review(
        author, findings=findings, concerns=concerns, high_privilege=high_privilege, score=70
    )
    assert review.priority == priority


def test_the_review_is_due_in_five_business_days(author):
    review = awaiting_review(author)
    assert REVIEW_TARGET_BUSINESS_DAYS == 5
    assert review.due_at == add_business_days(review.opened_at, 5)


@pytest.mark.parametrize(
    ("opened", "due"),
    [
        (datetime(2026, 3, 2, 9, 30, tzinfo=UTC), datetime(2026, 3, 9, 9, 30, tzinfo=UTC)),  # Mon
        (datetime(2026, 3, 6, 17, 0, tzinfo=UTC), datetime(2026, 3, 13, 17, 0, tzinfo=UTC)),  # Fri
        (datetime(2026, 3, 7, 12, 0, tzinfo=UTC), datetime(2026, 3, 13, 12, 0, tzinfo=UTC)),  # Sat
        (datetime(2026, 3, 8, 12, 0, tzinfo=UTC), datetime(2026, 3, 13, 12, 0, tzinfo=UTC)),  # Sun
        (datetime(2026, 3, 4, 8, 0, tzinfo=UTC), datetime(2026, 3, 11, 8, 0, tzinfo=UTC)),  # Wed
    ],
)
def test_business_days_skip_weekends(opened, due):
    assert add_business_days(opened, 5) == due


def test_the_time_in_queue_history_starts_when_the_review_opens(author):
    review = awaiting_review(author)
    period = ReviewPeriod.objects.get(review=review)
    assert (period.state, period.assignee, period.escalated) == (State.NEEDS_REVIEW, None, False)
    assert period.started_at == review.opened_at and period.ended_at is None
