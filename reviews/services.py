"""Tier 3 review rules."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from grading.types import Decision, Judgement, Tier1Report
from reviews.models import Review

REVIEW_TARGET_DAYS = 5


def open_review(submission, decision: Decision, tier1: Tier1Report, judgement: Judgement) -> Review:  # type: ignore[no-untyped-def]
    """Create the review record when a submission enters NEEDS_REVIEW (same transaction)."""
    review, _ = Review.objects.get_or_create(
        submission=submission,
        defaults={
            "reasons": list(decision.reasons),
            "due_at": timezone.now() + timedelta(days=REVIEW_TARGET_DAYS),
        },
    )
    return review
