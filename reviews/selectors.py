"""Read-side queries of the review queue, shared by the admin, the API and the metrics.

The queue reads a fixed number of queries whatever its length: every row's submission,
submitter and assignee come from one join, every row's finding categories from one prefetch.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import BooleanField, Case, ExpressionWrapper, Q, QuerySet, Value, When
from django.db.models.functions import TruncDate
from django.utils import timezone

from config.listing import distinct_values
from pipeline.models import Submission
from pipeline.roles import VIEW_ALL_SUBMISSIONS
from pipeline.states import REVIEW_STATES, ActorType, State
from reviews.models import Appeal, Review, ReviewCategory, VersionReview
from reviews.roles import ACT_PERMISSION, SECURITY_PERMISSION, VIEW_PERMISSION

OPEN = "open"
ALL = "all"
QUEUE_STATES: dict[str, str] = {
    OPEN: "Open (waiting or in review)",
    State.NEEDS_REVIEW: "Waiting (NEEDS_REVIEW)",
    State.TIER3_REVIEW: "In Tier 3 review (TIER3_REVIEW)",
    State.PUBLISHED: "Approved (PUBLISHED)",
    State.REJECTED: "Rejected (REJECTED)",
    ALL: "All",
}
# Open reviews first: overdue ones, then by the day the review is due, the most urgent first
# within a day; then decided reviews by the day they were due.
#
# The index ``review_queue_order`` (migration 0008) holds the same columns but ``overdue_rank``,
# which moves with the clock, so the database reads the queue in order and sorts one day at a
# time instead of sorting every review. That gives the order above because an open review is
# overdue exactly when its due time has passed: the overdue ones are the earliest due, and only
# the day that holds "now" has both kinds, which ``overdue_rank`` then separates. A decided
# review is never overdue.
QUEUE_ORDERING = ("is_decided", "due_date", "overdue_rank", "priority", "due_at", "opened_at")
_REVIEW_STATE_VALUES = sorted(state.value for state in REVIEW_STATES)


def review_queue(now: datetime | None = None) -> QuerySet[Review]:
    """Every review with what a queue row shows, in queue order."""
    now = now or timezone.now()
    return (
        Review.objects.select_related(
            "submission", "submission__submitter", "assignee", "escalated_by", "decided_by"
        )
        .prefetch_related("categories")
        .annotate(
            is_decided=ExpressionWrapper(Q(decided_at__isnull=False), output_field=BooleanField()),
            due_date=TruncDate("due_at"),
            overdue_rank=Case(When(_overdue(now), then=Value(0)), default=Value(1)),
        )
        .order_by(*QUEUE_ORDERING)
    )


def in_state(queryset: QuerySet[Review], state: str) -> QuerySet[Review]:
    """Reviews whose submission is in ``state``; ``open`` means waiting or in review.

    Saying too whether the reviews are decided (those of waiting or in-review submissions are
    not, those of approved or rejected ones are) lets the queue's index skip the others before
    their submissions are looked at.
    """
    if state == ALL:
        return queryset
    if state == OPEN:
        return queryset.filter(decided_at__isnull=True, submission__state__in=_REVIEW_STATE_VALUES)
    return queryset.filter(decided_at__isnull=state in REVIEW_STATES, submission__state=state)


def assigned_to(queryset: QuerySet[Review], user: User) -> QuerySet[Review]:
    return queryset.filter(assignee=user)


def overdue(queryset: QuerySet[Review], now: datetime | None = None) -> QuerySet[Review]:
    """Open reviews past their due date, whether or not the sweep has flagged them yet."""
    return queryset.filter(_overdue(now or timezone.now()))


def escalated(queryset: QuerySet[Review], is_escalated: bool) -> QuerySet[Review]:
    return queryset.filter(escalated_at__isnull=not is_escalated)


def with_category(queryset: QuerySet[Review], category: str) -> QuerySet[Review]:
    return queryset.filter(categories__category=category)


def filter_queue(
    queryset: QuerySet[Review],
    user: User,
    *,
    state: str = OPEN,
    assignee: str | None = None,
    overdue_only: bool | None = None,
    is_escalated: bool | None = None,
    category: str | None = None,
) -> QuerySet[Review]:
    """The queue narrowed by the API's filters; ``assignee`` is a username, ``me`` or
    ``none``. A filter left as None does not narrow."""
    queryset = in_state(queryset, state)
    if assignee == "me":
        queryset = assigned_to(queryset, user)
    elif assignee == "none":
        queryset = queryset.filter(assignee__isnull=True)
    elif assignee:
        queryset = queryset.filter(assignee__username=assignee)
    if overdue_only is True:
        queryset = overdue(queryset)
    elif overdue_only is False:
        queryset = queryset.exclude(_overdue(timezone.now()))
    if is_escalated is not None:
        queryset = escalated(queryset, is_escalated)
    if category:
        queryset = with_category(queryset, category)
    return queryset


def is_overdue(review: Review, now: datetime | None = None) -> bool:
    return review.is_open and review.due_at <= (now or timezone.now())


def finding_categories() -> list[str]:
    """The Tier 1 finding categories present in any review, for the queue's filter: one index
    probe per category."""
    return distinct_values(ReviewCategory, "category")


def overdue_review_count(now: datetime | None = None) -> int:
    """How many open reviews are past their due date now (for the metrics)."""
    return overdue(Review.objects.all(), now).count()


def eligible_assignees(review: Review) -> QuerySet[Any]:
    """Who may be given the review: active reviewers (Security members once it is escalated)
    other than its author. Mirrors ``User.has_perm`` so the choices and the rule agree."""
    app_label, codename = (SECURITY_PERMISSION if review.is_escalated else ACT_PERMISSION).split(
        "."
    )
    holds = Q(
        groups__permissions__codename=codename,
        groups__permissions__content_type__app_label=app_label,
    ) | Q(
        user_permissions__codename=codename,
        user_permissions__content_type__app_label=app_label,
    )
    return (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | holds)
        .exclude(pk=review.submission.submitter_id)
        .distinct()
        .order_by("username")
    )


A_REVIEWER = "a reviewer"
"""How a reviewer is named to an author who may not see reviewers' names."""
_NAMES_IN_EVENTS = ("assignee", "previous_assignee")
_REVIEWERS_ONLY_IN_EVENTS = {"escalated-to-security": ("reason",)}


def sees_reviewer_names(viewer: User | AnonymousUser) -> bool:
    """Authors see who reviewed them only where the site says so
    (``SKILLGATE_SHOW_REVIEWER_NAMES``); reviewers and operators always do."""
    return bool(
        settings.SKILLGATE_SHOW_REVIEWER_NAMES
        or viewer.has_perm(VIEW_PERMISSION)
        or viewer.has_perm(VIEW_ALL_SUBMISSIONS)
    )


def event_as_seen_by(event: dict[str, Any], viewer: User | AnonymousUser) -> dict[str, Any]:
    """An audit event (as the API shows it) for ``viewer``: to an author who may not see
    reviewers' names, a person's action is "a reviewer"'s and the names in its details are
    left out, as is what stays with the reviewers (why a review went to Security)."""
    if sees_reviewer_names(viewer) or event.get("actor_type") != ActorType.ADMIN:
        return event
    hidden = (*_NAMES_IN_EVENTS, *_REVIEWERS_ONLY_IN_EVENTS.get(event.get("trigger", ""), ()))
    metadata = {k: v for k, v in (event.get("metadata") or {}).items() if k not in hidden}
    return {**event, "actor": A_REVIEWER, "metadata": metadata}


def review_for_submitter(
    submission: Submission, viewer: User | AnonymousUser
) -> dict[str, Any] | None:
    """What the author sees of the review of their submission: where it stands and, once
    decided, the decision. The security escalation's reason stays with the reviewers, and the
    reviewers' names too unless ``viewer`` may see them (``sees_reviewer_names``)."""
    try:
        review = submission.review
    except Review.DoesNotExist:
        return None
    named = sees_reviewer_names(viewer)

    def name(user: User | None) -> str | None:
        if user is None:
            return None
        return user.get_username() if named else A_REVIEWER

    decision = None
    if review.decision:
        decision = {
            "outcome": review.decision,
            "reason": review.decision_reason,
            "by": name(review.decided_by),
            "at": review.decided_at,
        }
    return {
        "status": review.status,
        "assignee": name(review.assignee),
        "due_at": review.due_at,
        "escalated": review.is_escalated,
        "decision": decision,
        "appeal": appeal_for_author(review),
    }


def appeal_for_author(review: Review) -> dict[str, object] | None:
    """The appeal as its author sees it: what they wrote, where it stands, the decision and its
    reason (not who decided: Security decides)."""
    appeal = Appeal.objects.filter(review=review).first()
    if appeal is None:
        return None
    return {
        "status": appeal.status,
        "reason": appeal.reason,
        "filed_at": appeal.filed_at,
        "decision": None
        if appeal.is_open
        else {"reason": appeal.decision_reason, "at": appeal.decided_at},
    }


def _overdue(now: datetime) -> Q:
    return Q(decided_at__isnull=True, due_at__lte=now)


def open_version_reviews() -> QuerySet[VersionReview]:
    """Re-scan items waiting for Security, most urgent first: critical (quarantined) before
    concerning, then by due date."""
    return (
        VersionReview.objects.filter(decided_at__isnull=True)
        .select_related("version__skill")
        .order_by("-severity", "due_at")
    )
