"""Human review subscribes to what the pipeline announces: the pipeline never calls in here."""

from __future__ import annotations

from typing import Any

from grading.types import Decision, Judgement, Tier1Report
from pipeline.models import Submission
from reviews.services import open_review


def open_review_when_needed(
    sender: object,
    *,
    submission: Submission,
    decision: Decision,
    tier1: Tier1Report,
    judgement: Judgement,
    **kwargs: Any,
) -> None:
    open_review(submission, decision, tier1, judgement)
