"""Read-side queries and derived views of submissions."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from pipeline.models import Submission
from pipeline.roles import VIEW_ALL_SUBMISSIONS
from pipeline.states import AUTOMATED_STATES, State

# Seed 001 AD-003: warn the author after 3 minutes, recover after 5.
STALE_AFTER = timedelta(minutes=3)
STAGE_DESCRIPTIONS = {
    State.RECEIVED: "intake",
    State.TIER1_SCANNING: "Tier 1 scanning",
    State.TIER2_SCANNING: "Tier 2 judging",
    State.AUTO_APPROVED: "publishing",
    State.VENDOR_APPROVED: "publishing",
}


def visible_submissions(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Submission]:
    """Submissions the user may see: their own, or all for operators (the permission the admin
    checks too). Reviewers see others' submissions only through their review queue."""
    queryset = Submission.objects.select_related("bundle", "published_version__skill")
    if not user.is_authenticated:
        return queryset.none()
    if user.has_perm(VIEW_ALL_SUBMISSIONS):
        return queryset
    return queryset.filter(submitter=user)


def staleness(submission: Submission, now: datetime) -> dict[str, object] | None:
    """Seed 001's staleness warning: the submission made no progress for 3 minutes in an
    automated stage. None when it is moving, or waiting for people, or finished."""
    if submission.state not in AUTOMATED_STATES:
        return None
    if now - submission.state_changed_at < STALE_AFTER:
        return None
    stage = STAGE_DESCRIPTIONS[State(submission.state)]
    return {
        "stale": True,
        "stale_since": submission.state_changed_at,
        "stale_stage": submission.state,
        "message": f"Your submission appears stuck during {stage}",
    }
