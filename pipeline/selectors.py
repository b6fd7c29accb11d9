"""Read-side queries and derived views of submissions.

Two words, two meanings, both about an automated submission that makes no progress:

* **stale**: no progress for ``STALE_AFTER`` (3 minutes). A warning: the author sees it on the
  submission and operators see it in the admin; nothing acts on it yet.
* **stuck**: no progress for ``SKILLGATE_STUCK_AFTER_S`` (5 minutes by default). The recovery
  sweep acts: it re-dispatches the submission, and gives up after its budget of tries.

Every stuck submission is also stale. Both are read through the selectors below, which the
admin, the operator API, Prometheus and the sweep share.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet

from pipeline.models import ScanResult, Submission
from pipeline.roles import VIEW_ALL_SUBMISSIONS
from pipeline.states import AUTOMATED_STATES
from pipeline.workflow import stage_label

STALE_AFTER = timedelta(minutes=3)
SCANS_WITH_RESULTS = Prefetch("scans", queryset=ScanResult.objects.select_related("result"))
"""Prefetch a submission's scans with the grading results they point to, in one query each."""
_AUTOMATED = sorted(state.value for state in AUTOMATED_STATES)


def visible_submissions(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Submission]:
    """Submissions the user may see: their own, or all for operators (the permission the admin
    checks too). Reviewers see others' submissions only through their review queue."""
    queryset = Submission.objects.select_related("bundle", "published_version__skill")
    if not user.is_authenticated:
        return queryset.none()
    if user.has_perm(VIEW_ALL_SUBMISSIONS):
        return queryset
    return queryset.filter(submitter=user)


def stuck_after() -> timedelta:
    """How long without progress makes a submission stuck (``SKILLGATE_STUCK_AFTER_S``)."""
    return timedelta(seconds=settings.SKILLGATE_STUCK_AFTER_S)


def stale_submissions(now: datetime) -> QuerySet[Submission]:
    """Automated submissions without progress for ``STALE_AFTER``: authors see a warning."""
    return _without_progress_since(now - STALE_AFTER)


def stuck_submissions(now: datetime, after: timedelta | None = None) -> QuerySet[Submission]:
    """Automated submissions without progress for ``after`` (default: ``stuck_after()``): the
    recovery sweep acts on them."""
    return _without_progress_since(now - (after or stuck_after()))


def _without_progress_since(cutoff: datetime) -> QuerySet[Submission]:
    """Read through the partial index on the automated states' ``state_changed_at``."""
    return Submission.objects.filter(state__in=_AUTOMATED, state_changed_at__lt=cutoff)


def is_stuck(submission: Submission, now: datetime) -> bool:
    return (
        submission.state in AUTOMATED_STATES and now - submission.state_changed_at > stuck_after()
    )


def staleness(submission: Submission, now: datetime) -> dict[str, object] | None:
    """The author's warning: the submission made no progress for ``STALE_AFTER`` in an
    automated stage. None when it is moving, or waiting for people, or finished."""
    if submission.state not in AUTOMATED_STATES:
        return None
    if now - submission.state_changed_at < STALE_AFTER:
        return None
    stage = stage_label(submission.state)
    return {
        "stale": True,
        "stale_since": submission.state_changed_at,
        "stale_stage": submission.state,
        "message": (
            f"Your submission has been in {stage} for over "
            f"{STALE_AFTER.seconds // 60} minutes without progress"
        ),
    }
