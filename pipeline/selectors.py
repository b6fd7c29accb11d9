"""Read-side queries and derived views of submissions.

Two words, two meanings, both about an automated submission that makes no progress:

* **stale**: no progress for ``STALE_AFTER`` (3 minutes). A warning: the author sees it on the
  submission and operators see it in the admin; nothing acts on it yet.
* **stuck**: no progress for ``SKILLGATE_STUCK_AFTER_S`` (5 minutes by default). The recovery
  sweep acts: it re-dispatches the submission, and gives up after its budget of tries.

Every stuck submission is also stale. Both are read through the selectors below, which the
admin, the operator API, Prometheus and the sweep share.

The operator lists' searches are here too, each condition one an index answers (see the
indexes of pipeline.models), so a search costs what it finds, not the table.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery

from config.listing import search_words, uuid_prefix_range
from pipeline.models import ProcessingAttempt, ScanResult, Submission, SubmissionStateEvent
from pipeline.roles import VIEW_ALL_SUBMISSIONS
from pipeline.states import AUTOMATED_STATES
from pipeline.workflow import stage_label

STALE_AFTER = timedelta(minutes=3)
SLA_TIMEOUT_TRIGGER = "sla-timeout"
"""The audit trigger of a submission rejected for missing its pipeline deadline."""
SCANS_WITH_RESULTS = Prefetch("scans", queryset=ScanResult.objects.select_related("result"))
"""Prefetch a submission's scans with the grading results they point to, in one query each."""
# A search word matches the submissions of at most this many accounts whose username holds it.
SEARCH_SUBMITTERS_LIMIT = 100
# What a row of a submission list shows (the API's summary and the operator lists).
_LIST_COLUMNS = (
    "id", "state", "skill_owner", "skill_name", "outcome_kind", "outcome_code",
    "outcome_message", "created_at", "updated_at",
)  # fmt: skip
_AUTOMATED = sorted(state.value for state in AUTOMATED_STATES)


def visible_submissions(user: User | AnonymousUser) -> QuerySet[Submission]:
    """Submissions the user may see: their own, or all for operators (the permission the admin
    checks too). Reviewers see others' submissions only through their review queue."""
    queryset = Submission.objects.select_related("bundle", "published_version__skill")
    if not user.is_authenticated:
        return queryset.none()
    if user.has_perm(VIEW_ALL_SUBMISSIONS):
        return queryset
    return queryset.filter(submitter=user)


def for_listing(queryset: QuerySet[Submission]) -> QuerySet[Submission]:
    """Only the columns a list row shows, and no joins: a page of fifty rows does not read fifty
    bundles."""
    return queryset.select_related(None).only(*_LIST_COLUMNS)


def search_submissions(queryset: QuerySet[Submission], term: str) -> QuerySet[Submission]:
    """Submissions matching every word of ``term``: a word matches the id's first characters,
    the skill's owner or name, the repository URL (anywhere in them, ignoring case), or the
    submitter's username.

    Each condition has its index (the primary key; a trigram index on the owner, name and URL;
    the submitter's), so PostgreSQL combines them in one bitmap. The usernames are looked up
    first, because a condition across the join to users cannot use the submissions' indexes.
    """
    for word in search_words(term):
        matches = (
            Q(skill_owner__icontains=word)
            | Q(skill_name__icontains=word)
            | Q(repo_url__icontains=word)
        )
        ids = uuid_prefix_range(word)
        if ids is not None:
            matches |= Q(pk__range=ids)
        submitters = list(
            get_user_model()
            .objects.filter(username__icontains=word)
            .order_by("pk")
            .values_list("pk", flat=True)[:SEARCH_SUBMITTERS_LIMIT]
        )
        if submitters:
            matches |= Q(submitter_id__in=submitters)
        queryset = queryset.filter(matches)
    return queryset


def search_events(
    queryset: QuerySet[SubmissionStateEvent], term: str
) -> QuerySet[SubmissionStateEvent]:
    """Audit events matching every word of ``term``: a word matches the submission id's first
    characters, or the actor exactly (a reviewer's username, ``worker``, ``system``). Triggers
    have their own filter."""
    for word in search_words(term):
        matches = Q(actor=word)
        ids = uuid_prefix_range(word)
        if ids is not None:
            matches |= Q(submission_id__gte=ids[0], submission_id__lte=ids[1])
        queryset = queryset.filter(matches)
    return queryset


def latest_attempts(submission_ids: list[UUID]) -> dict[UUID, ProcessingAttempt]:
    """The latest processing attempt of each submission that has one, in two queries whatever
    the number of submissions."""
    latest = ProcessingAttempt.objects.filter(submission=OuterRef("pk")).order_by("-started_at")
    attempt_ids = (
        Submission.objects.filter(pk__in=submission_ids)
        .annotate(attempt_id=Subquery(latest.values("pk")[:1]))
        .exclude(attempt_id=None)
        .values_list("attempt_id", flat=True)
    )
    attempts = ProcessingAttempt.objects.filter(pk__in=list(attempt_ids))
    return {attempt.submission_id: attempt for attempt in attempts}


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


def sla_timeouts(since: datetime | None = None) -> int:
    """Submissions rejected for missing their pipeline deadline (since ``since``, or ever),
    counted from the audit trail by its index on (trigger, time)."""
    events = SubmissionStateEvent.objects.filter(trigger=SLA_TIMEOUT_TRIGGER)
    if since is not None:
        events = events.filter(created_at__gte=since)
    return events.count()
