"""Tier 3 review rules: opening a review, who may do what to it, and doing it.

Every reviewer action is one database transaction: lock the review row, check the rules
against the state read under that lock, move the submission through ``transition()`` (audited,
actor = the reviewer) and update the review and its time-in-queue history. Two reviewers acting
at once are serialised by the lock: the second sees what the first did and is told so, and
nothing is ever half-done. The Django admin and the API both call these functions.

The actions and the state machine:

- assign:   NEEDS_REVIEW → TIER3_REVIEW, held by an assignee, who must be a reviewer
- unassign: TIER3_REVIEW → NEEDS_REVIEW, back to the queue (DESIGN.md extension)
- approve:  TIER3_REVIEW → PUBLISHED by the assignee, the version assigned as usual
- reject:   NEEDS_REVIEW or TIER3_REVIEW → REJECTED, the reason becoming the author's verdict
- request changes: the same edge, with the verdict CHANGES_REQUESTED: the skill may be
            published once changed, and the author resubmits (a rejection is appealed instead)
- escalate: TIER3_REVIEW → NEEDS_REVIEW marked escalated to the security group, with a reason;
            from then on only Security assigns, unassigns and decides

Decisions on identical files of one skill cannot contradict each other: the second is refused
with the reason (reviews.twins). A reason may be one of Security's canned reasons
(``compose_reason``), with or without words of the reviewer's own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from enum import StrEnum
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from grading.labels import category_label
from grading.types import SEVERITY_ORDER, Decision, Finding, Judgement, Tier1Report
from pipeline.models import Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.publishing import publish
from pipeline.states import State
from pipeline.transitions import Actor, Change, IllegalTransition, transition
from registry.models import SkillVersion
from reviews import twins
from reviews.models import CannedReason, Review, ReviewCategory, ReviewPeriod
from reviews.roles import ACT_PERMISSION, SECURITY_GROUP, SECURITY_PERMISSION

logger = logging.getLogger(__name__)

# The review target: a decision within 5 business days (p95 within 10).
REVIEW_TARGET_BUSINESS_DAYS = 5
REASON_MAX_LENGTH = 2000
_LISTED_FINDINGS = 5


class Action(StrEnum):
    """The reviewer actions, in the order a page offers them: the common path first."""

    ASSIGN = "assign"
    APPROVE = "approve"
    REQUEST_CHANGES = "request_changes"
    REJECT = "reject"
    ESCALATE = "escalate"
    UNASSIGN = "unassign"


ACTION_SOURCES: dict[Action, frozenset[State]] = {
    Action.ASSIGN: frozenset({State.NEEDS_REVIEW}),
    Action.UNASSIGN: frozenset({State.TIER3_REVIEW}),
    Action.APPROVE: frozenset({State.TIER3_REVIEW}),
    Action.REQUEST_CHANGES: frozenset({State.NEEDS_REVIEW, State.TIER3_REVIEW}),
    Action.REJECT: frozenset({State.NEEDS_REVIEW, State.TIER3_REVIEW}),
    Action.ESCALATE: frozenset({State.TIER3_REVIEW}),
}
# Taking a decision on an assigned review belongs to its assignee; anyone may unassign it, so
# a review held by someone who is away can be freed.
_ASSIGNEE_ONLY = frozenset({Action.APPROVE, Action.REQUEST_CHANGES, Action.REJECT, Action.ESCALATE})
CANNED_ACTIONS: dict[Action, str] = {
    Action.REJECT: CannedReason.Action.REJECT,
    Action.REQUEST_CHANGES: CannedReason.Action.REQUEST_CHANGES,
}
"""The actions whose reason may be one of Security's canned reasons."""


class ReviewForbidden(PermissionDenied):
    """This user may not take this action on this review (the API answers 403)."""


class ActionUnavailable(IllegalTransition):
    """The action does not apply to the submission in its current state (the API answers 409)."""


# --- Opening a review (called by the pipeline, in the judge step's transaction) -----------


def open_review(
    submission: Submission, decision: Decision, tier1: Tier1Report, judgement: Judgement
) -> Review:
    """Create the review record as the submission enters NEEDS_REVIEW.

    Runs in the transaction of the TIER2_SCANNING → NEEDS_REVIEW transition, so a submission
    never waits for review without a record saying why, how urgent it is and when it is due.
    """
    now = timezone.now()
    review, created = Review.objects.get_or_create(
        submission=submission,
        defaults={
            "reasons": review_reasons(decision, tier1),
            "score": judgement.score,
            "high_privilege": tier1.high_privilege,
            "privileges": list(tier1.privileges),
            "priority": review_priority(tier1, judgement),
            "opened_at": now,
            "due_at": add_business_days(now, REVIEW_TARGET_BUSINESS_DAYS),
        },
    )
    if created:
        ReviewCategory.objects.bulk_create(_categories(review, tier1.findings))
        ReviewPeriod.objects.create(review=review, state=State.NEEDS_REVIEW, started_at=now)
    return review


def review_reasons(decision: Decision, tier1: Tier1Report) -> list[str]:
    """The decision policy's reasons (score band, high privilege) and the worst findings."""
    findings = sorted(
        tier1.findings, key=lambda f: (-SEVERITY_ORDER[f.severity], f.file, f.line, f.rule_id)
    )
    reasons = list(decision.reasons)
    reasons += [
        f"{category_label(f.category)} ({f.severity}) at {f.file}:{f.line} ({f.rule_id})"
        for f in findings[:_LISTED_FINDINGS]
    ]
    if len(findings) > _LISTED_FINDINGS:
        reasons.append(f"and {len(findings) - _LISTED_FINDINGS} more finding(s)")
    return reasons


def review_priority(tier1: Tier1Report, judgement: Judgement) -> int:
    """Among reviews due the same day, the riskiest is looked at first: high or critical
    findings or concerns, then high privilege, then the ones here only for their score."""
    severities = [f.severity for f in tier1.findings] + [c.severity for c in judgement.concerns]
    if any(SEVERITY_ORDER[severity] >= SEVERITY_ORDER["high"] for severity in severities):
        return Review.Priority.URGENT
    if tier1.high_privilege:
        return Review.Priority.HIGH
    return Review.Priority.NORMAL


def add_business_days(start: datetime, days: int) -> datetime:
    """``start`` moved forward by ``days`` weekdays, keeping the time of day."""
    current = start
    remaining = days
    while remaining > 0:
        current += timedelta(days=1)
        if current.weekday() < 5:
            remaining -= 1
    return current


def _categories(review: Review, findings: Iterable[Finding]) -> list[ReviewCategory]:
    by_category: dict[str, list[Finding]] = {}
    for finding in findings:
        by_category.setdefault(finding.category, []).append(finding)
    return [
        ReviewCategory(
            review=review,
            category=category,
            findings=len(group),
            worst_severity=max((f.severity for f in group), key=SEVERITY_ORDER.__getitem__),
        )
        for category, group in sorted(by_category.items())
    ]


# --- Who may do what ----------------------------------------------------------------------


def is_reviewer(user: User) -> bool:
    return user.is_active and user.has_perm(ACT_PERMISSION)


def is_security(user: User) -> bool:
    return user.is_active and user.has_perm(SECURITY_PERMISSION)


def may_review(user: User, review: Review) -> bool:
    """A reviewer who is not the skill's author (who may then act, or mark findings)."""
    return is_reviewer(user) and review.submission.submitter_id != user.pk


def check_action(review: Review, state: str, user: User, action: Action) -> None:
    """Raise ReviewForbidden or ActionUnavailable unless ``user`` may take ``action`` now.

    Who the user is comes first (a non-reviewer or the author learns nothing about the state),
    then whether the action fits the state, then who holds the review.
    """
    if not is_reviewer(user):
        raise ReviewForbidden("only members of the Reviewers or Security group can act on reviews")
    if review.submission.submitter_id == user.pk:
        raise ReviewForbidden("you submitted this skill: nobody reviews their own submission")
    if State(state) not in ACTION_SOURCES[action]:
        raise ActionUnavailable(_unavailable_message(review, state, action))
    if action == Action.ESCALATE and review.is_escalated:
        raise ActionUnavailable("this review is already escalated to security")
    if review.is_escalated and not is_security(user):
        raise ReviewForbidden(
            f"this review was escalated to {SECURITY_GROUP}: only the {SECURITY_GROUP} group "
            "can act on it now"
        )
    if (
        action in _ASSIGNEE_ONLY
        and state == State.TIER3_REVIEW
        and review.assignee_id not in (None, user.pk)
    ):
        assert review.assignee is not None  # assignee_id is set
        raise ReviewForbidden(
            f"this review is assigned to {review.assignee.get_username()}: only the assignee "
            "can decide it (unassign it first to take it over)"
        )


def allowed_actions(review: Review, user: User) -> list[Action]:
    """The actions ``user`` may take on ``review`` right now, in display order."""
    allowed = []
    for action in Action:
        try:
            check_action(review, review.submission.state, user, action)
        except (ReviewForbidden, ActionUnavailable):
            continue
        allowed.append(action)
    return allowed


def refusal(review: Review, user: User) -> str:
    """Why ``user`` may not take an action that the review's state allows (the first reason
    found), so a page can say why a button is missing; empty when nothing is refused."""
    if not review.is_open:
        return f"This review is closed: the submission was {decided_as(review)}."
    for action in Action:
        try:
            check_action(review, review.submission.state, user, action)
        except ReviewForbidden as refused:
            message = str(refused)
            return f"{message[:1].upper()}{message[1:]}."
        except ActionUnavailable:
            continue
    return ""


def decided_as(review: Review) -> str:
    """The decision in a sentence's words: approved, rejected, sent back for changes."""
    if review.decision == Review.Decision.CHANGES_REQUESTED:
        return "sent back for changes"
    return str(review.decision)


def _check_consistent(review: Review, action: Action) -> None:
    """Refuse a decision that contradicts one taken on the same files (under the bundle's
    lock, so of two reviewers deciding identical submissions at once the second sees the
    first's decision)."""
    twins.lock_bundle(review.submission)
    refused = twin_refusal(review.submission, action)
    if refused:
        raise ActionUnavailable(f"cannot {action.replace('_', ' ')}: {refused}")


def _unavailable_message(review: Review, state: str, action: Action) -> str:
    if not review.is_open:
        return (
            f"cannot {action.replace('_', ' ')}: the review is closed (the submission was "
            f"{decided_as(review)})"
        )
    hint = {
        Action.ASSIGN: "it is already assigned; unassign it first",
        Action.UNASSIGN: "it is not assigned to anyone",
        Action.APPROVE: "assign it for Tier 3 review first",
        Action.ESCALATE: "assign it for Tier 3 review first",
    }.get(action, "")
    verb = action.replace("_", " ")
    return f"cannot {verb} a submission in {state}" + (f": {hint}" if hint else "")


# --- The actions --------------------------------------------------------------------------


def assign(submission_id: UUID, user: User, assignee: str) -> Review:
    """NEEDS_REVIEW → TIER3_REVIEW with ``assignee`` (a username) holding the review."""
    with transaction.atomic():
        review, state = _locked(submission_id)
        check_action(review, state, user, Action.ASSIGN)
        holder = _valid_assignee(review, assignee)
        now = _transition(
            review,
            Change(
                State.NEEDS_REVIEW,
                State.TIER3_REVIEW,
                "reviewer-assigned",
                _actor(user),
                metadata={"assignee": holder.get_username(), "escalated": review.is_escalated},
            ),
        )
        review.assignee, review.assigned_at, review.assigned_by = holder, now, user
        review.save(update_fields=["assignee", "assigned_at", "assigned_by"])
        _next_period(review, now, Action.ASSIGN, user, State.TIER3_REVIEW, holder)
    return _fresh(review)


def unassign(submission_id: UUID, user: User, reason: str = "") -> Review:
    """TIER3_REVIEW → NEEDS_REVIEW: the review goes back to the queue, unassigned."""
    with transaction.atomic():
        review, state = _locked(submission_id)
        check_action(review, state, user, Action.UNASSIGN)
        reason = _reason(reason, required=False)
        metadata = {"previous_assignee": _username(review.assignee)}
        if reason:
            metadata["reason"] = reason
        now = _transition(
            review,
            Change(
                State.TIER3_REVIEW,
                State.NEEDS_REVIEW,
                "reviewer-unassigned",
                _actor(user),
                metadata,
            ),
        )
        _clear_assignee(review)
        review.save(update_fields=["assignee", "assigned_at", "assigned_by"])
        _next_period(review, now, Action.UNASSIGN, user, State.NEEDS_REVIEW)
    return _fresh(review)


def escalate(submission_id: UUID, user: User, reason: str) -> Review:
    """Hand an assigned review to the security group (escalating needs a reason).

    The submission returns to NEEDS_REVIEW, unassigned and marked escalated, so a member of
    Security picks it up from the queue; nobody else can act on it any more.
    """
    with transaction.atomic():
        review, state = _locked(submission_id)
        check_action(review, state, user, Action.ESCALATE)
        reason = _reason(reason, required=True)
        now = _transition(
            review,
            Change(
                State.TIER3_REVIEW,
                State.NEEDS_REVIEW,
                "escalated-to-security",
                _actor(user),
                metadata={
                    "reason": reason,
                    "to": SECURITY_GROUP,
                    "previous_assignee": _username(review.assignee),
                },
            ),
        )
        review.escalated_at, review.escalated_by, review.escalation_reason = now, user, reason
        _clear_assignee(review)
        review.save(
            update_fields=[
                "escalated_at",
                "escalated_by",
                "escalation_reason",
                "assignee",
                "assigned_at",
                "assigned_by",
            ]
        )
        _next_period(review, now, Action.ESCALATE, user, State.NEEDS_REVIEW)
    return _fresh(review)


def approve(submission_id: UUID, user: User, reason: str = "") -> Review:
    """TIER3_REVIEW → PUBLISHED, the version assigned exactly as for automatic publishing."""
    with transaction.atomic():
        review, state = _locked(submission_id)
        check_action(review, state, user, Action.APPROVE)
        _check_consistent(review, Action.APPROVE)
        reason = _reason(reason, required=False)
        version = publish(
            review.submission,
            SkillVersion.Channel.REVIEW,
            _actor(user),
            "reviewer-approved",
            metadata={"reason": reason} if reason else None,
        )
        now = timezone.now()
        _record_decision(review, user, Review.Decision.APPROVED, reason, now)
        _next_period(review, now, Action.APPROVE, user)
    logger.info("review %s approved by %s as %s", review.pk, user.get_username(), version)
    return _fresh(review)


def reject(submission_id: UUID, user: User, reason: str) -> Review:
    """NEEDS_REVIEW or TIER3_REVIEW → REJECTED; the reason becomes the author's verdict."""
    return _turn_down(
        submission_id,
        user,
        reason,
        Action.REJECT,
        "reviewer-rejected",
        Review.Decision.REJECTED,
        lambda reason: Outcome.verdict(
            OutcomeCode.REVIEWER_REJECTED, f"A reviewer rejected this skill: {reason}"
        ),
    )


def request_changes(submission_id: UUID, user: User, reason: str) -> Review:
    """NEEDS_REVIEW or TIER3_REVIEW → REJECTED with the verdict CHANGES_REQUESTED: the reason
    says what to change, and the author submits the changed skill again."""
    return _turn_down(
        submission_id,
        user,
        reason,
        Action.REQUEST_CHANGES,
        "reviewer-requested-changes",
        Review.Decision.CHANGES_REQUESTED,
        lambda reason: Outcome.verdict(
            OutcomeCode.CHANGES_REQUESTED,
            f"A reviewer asks for changes before this skill is published: {reason} "
            "Change the skill and submit it again.",
        ),
    )


def _turn_down(
    submission_id: UUID,
    user: User,
    reason: str,
    action: Action,
    trigger: str,
    decision: str,
    outcome: Callable[[str], Outcome],
) -> Review:
    with transaction.atomic():
        review, state = _locked(submission_id)
        check_action(review, state, user, action)
        _check_consistent(review, action)
        reason = _reason(reason, required=True)
        now = _transition(
            review,
            Change(
                State(state),
                State.REJECTED,
                trigger,
                _actor(user),
                metadata={"reason": reason, "escalated": review.is_escalated},
                outcome=outcome(reason),
            ),
        )
        _record_decision(review, user, decision, reason, now)
        _next_period(review, now, action, user)
    return _fresh(review)


ACTIONS: dict[Action, Callable[..., Review]] = {
    Action.ASSIGN: assign,
    Action.UNASSIGN: unassign,
    Action.APPROVE: approve,
    Action.REQUEST_CHANGES: request_changes,
    Action.REJECT: reject,
    Action.ESCALATE: escalate,
}


# --- Identical files, canned reasons ------------------------------------------------------


def twin_refusal(submission: Submission, action: Action) -> str:
    """Why ``action`` would contradict a decision already taken on the same files of the same
    skill (reviews.twins), or "" when it would not."""
    if action == Action.APPROVE:
        earlier = twins.turned_down(submission).first()
        if earlier is None:
            return ""
        review = Review.objects.filter(pk=earlier.pk).select_related("decided_by").first()
        verb = (
            "asked for changes to"
            if earlier.outcome_code == OutcomeCode.CHANGES_REQUESTED
            else "rejected"
        )
        who = review.decided_by.get_username() if review and review.decided_by else "a reviewer"
        why = f": {review.decision_reason}" if review and review.decision_reason else ""
        return (
            f"{who} {verb} these exact files in submission {earlier.pk}{why}. Decisions on "
            "identical files cannot contradict each other: decide this one the same way (if "
            "that decision was wrong, its author can appeal it)"
        )
    if action in CANNED_ACTIONS:
        version = twins.published_twin(submission)
        if version is None:
            return ""
        return (
            f"these exact files are published as {version}. Decisions on identical files cannot "
            f"contradict each other: approving publishes them again as {version.version}; to "
            "withdraw them, Security quarantines that version"
        )
    return ""


def compose_reason(action: Action, canned_id: int | None, words: str) -> str:
    """The reason of a reject or request-changes: one of Security's canned reasons for that
    action (active), the reviewer's own words, or the canned text followed by them."""
    words = (words or "").strip()
    if canned_id is None:
        return words
    canned = CannedReason.objects.filter(
        pk=canned_id, action=CANNED_ACTIONS.get(action, ""), active=True
    ).first()
    if canned is None:
        raise ValidationError(
            {"canned_reason": f"no canned reason {canned_id} for {action.replace('_', ' ')}"},
            code="invalid_choice",
        )
    return f"{canned.text}\n\n{words}" if words else canned.text


def canned_reasons(action: Action) -> list[CannedReason]:
    """The reasons offered for ``action``, in Security's order."""
    if action not in CANNED_ACTIONS:
        return []
    return list(CannedReason.objects.filter(action=CANNED_ACTIONS[action], active=True))


# --- The review SLA -----------------------------------------------------------------------


def flag_overdue_reviews(now: datetime | None = None) -> int:
    """Mark every open review past its due date as overdue (once); nothing is rejected.

    One UPDATE: concurrent sweeps cannot flag a review twice, and the first flag time is kept
    for SLA reporting.
    """
    now = now or timezone.now()
    flagged = Review.objects.filter(
        decided_at__isnull=True, overdue_at__isnull=True, due_at__lte=now
    ).update(overdue_at=now)
    if flagged:
        logger.warning("%d review(s) became overdue", flagged)
    return flagged


# --- Helpers ------------------------------------------------------------------------------


def _locked(submission_id: UUID) -> tuple[Review, str]:
    """The review, locked for this transaction, and its submission's state read after the lock
    was granted (so a reviewer who waited sees what the other one did)."""
    review = Review.objects.select_for_update().get(pk=submission_id)
    review.submission = Submission.objects.select_related("bundle").get(pk=submission_id)
    return review, review.submission.state


def _fresh(review: Review) -> Review:
    """The review with its submission as committed (state, outcome, published version)."""
    review.submission = Submission.objects.select_related(
        "bundle", "submitter", "published_version"
    ).get(pk=review.pk)
    return review


def _transition(review: Review, change: Change) -> datetime:
    """Apply the audited transition and return its time, so the review's timestamps match
    the audit trail's."""
    return transition(review.pk, change).created_at


def _actor(user: User) -> Actor:
    return Actor.admin(user.get_username())


def _username(user: User | None) -> str | None:
    return user.get_username() if user is not None else None


def _clear_assignee(review: Review) -> None:
    review.assignee = review.assigned_at = review.assigned_by = None


def _record_decision(review: Review, user: User, decision: str, reason: str, now: datetime) -> None:
    review.decision, review.decision_reason = decision, reason
    review.decided_by, review.decided_at = user, now
    review.save(update_fields=["decision", "decision_reason", "decided_by", "decided_at"])


def _next_period(
    review: Review,
    now: datetime,
    action: Action,
    user: User,
    state: State | None = None,
    assignee: User | None = None,
) -> None:
    """Close the review's current time-in-queue period and, unless decided, open the next."""
    ReviewPeriod.objects.filter(review=review, ended_at__isnull=True).update(
        ended_at=now, ended_by_action=action, ended_by=user.get_username()
    )
    if state is not None:
        ReviewPeriod.objects.create(
            review=review,
            state=state,
            assignee=assignee,
            escalated=review.is_escalated,
            started_at=now,
        )


def _reason(reason: str, *, required: bool) -> str:
    """Rejecting and escalating need a reason; a note elsewhere is optional."""
    reason = (reason or "").strip()
    if required and not reason:
        raise ValidationError({"reason": "a reason is required"}, code="required")
    if len(reason) > REASON_MAX_LENGTH:
        raise ValidationError(
            {"reason": f"at most {REASON_MAX_LENGTH} characters"}, code="max_length"
        )
    return reason


def _valid_assignee(review: Review, username: str) -> User:
    """A review under Tier 3 always has an assignee, and it must be able to review."""
    if not (username or "").strip():
        raise ValidationError({"assignee": "an assignee is required"}, code="required")
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None or not is_reviewer(user):
        raise ValidationError(
            {"assignee": f"{username!r} is not a reviewer"}, code="not_a_reviewer"
        )
    if user.pk == review.submission.submitter_id:
        raise ValidationError(
            {"assignee": "the author cannot review their own submission"}, code="author"
        )
    if review.is_escalated and not is_security(user):
        raise ValidationError(
            {"assignee": f"escalated reviews go to members of the {SECURITY_GROUP} group"},
            code="not_security",
        )
    return user
