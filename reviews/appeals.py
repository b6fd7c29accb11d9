"""Appeals: an author may appeal a reviewer's rejection once, with a reason; Security decides.

- **file**: the submission's author, while it is REJECTED by a reviewer (outcome
  REVIEWER_REJECTED; a request for changes is answered by resubmitting, an automated verdict by
  fixing what Tier 1 or the judge found), once per submission, with a reason.
- **grant**: a member of Security (not the author, not the reviewer who rejected it) takes the
  submission back into Tier 3 review, held by them, and approves it: REJECTED → TIER3_REVIEW
  (the appeal edge, ``pipeline.states.APPEAL``) → PUBLISHED, in one transaction, each edge
  audited with the appeal's and the decision's reasons. Submissions of the same skill with the
  same files that reviewers turned down are published with it, so identical files never end
  both published and rejected (reviews.twins).
- **deny**: the rejection stands; no state changes. The decision, its reason, who and when are
  kept on the appeal, which is never changed again.

The author sees the appeal and its outcome on their submission
(``reviews.selectors.appeal_for_author``); the reviewers' names are not shown to them.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from pipeline.models import Submission
from pipeline.outcomes import OutcomeCode
from pipeline.services.publishing import publish
from pipeline.states import APPEAL_TRIGGER, State
from pipeline.transitions import Actor, Change, transition
from registry.models import SkillVersion
from reviews import twins
from reviews.models import Appeal, Review
from reviews.services import (
    REASON_MAX_LENGTH,
    ActionUnavailable,
    ReviewForbidden,
    is_security,
)

APPROVED_TRIGGER = "appeal-approved"


def appealable(submission: Submission) -> bool:
    return submission.state == State.REJECTED and (
        submission.outcome_code == OutcomeCode.REVIEWER_REJECTED
    )


def file_appeal(submission_id: UUID, user: User, reason: str) -> Appeal:
    """The author appeals a reviewer's rejection of their submission (once, with a reason)."""
    reason = _reason(reason)
    with transaction.atomic():
        review = (
            Review.objects.select_for_update()
            .select_related("submission")
            .filter(pk=submission_id)
            .first()
        )
        if review is None or review.submission.submitter_id != user.pk:
            raise ReviewForbidden("only the author of a submission can appeal its rejection")
        submission = review.submission
        if Appeal.objects.filter(review=review).exists():
            raise ActionUnavailable("this rejection was appealed already: an appeal is made once")
        if not appealable(submission):
            raise ActionUnavailable(
                "only a reviewer's rejection can be appealed"
                + (
                    ": changes were requested; change the skill and submit it again"
                    if submission.outcome_code == OutcomeCode.CHANGES_REQUESTED
                    else f" (this submission is {submission.state})"
                )
            )
        try:
            with transaction.atomic():
                return Appeal.objects.create(
                    review=review, author=user, reason=reason, filed_at=timezone.now()
                )
        except IntegrityError as twice:
            raise ActionUnavailable(
                "this rejection was appealed already: an appeal is made once"
            ) from twice


def grant(submission_id: UUID, user: User, reason: str) -> Appeal:
    """Security grants the appeal: the submission (and its turned-down twins) is published."""
    reason = _reason(reason)
    with transaction.atomic():
        appeal = _open_appeal_for(submission_id, user)
        submission = appeal.review.submission
        twins.lock_bundle(submission)
        _decide(appeal, user, Appeal.Status.GRANTED, reason)
        _publish_on_appeal(submission, user, appeal, reason)
        for twin in twins.turned_down(submission).select_for_update(of=("self",)):
            _publish_on_appeal(twin, user, appeal, reason, covered=True)
    return _fresh(appeal)


def deny(submission_id: UUID, user: User, reason: str) -> Appeal:
    """Security denies the appeal: the rejection stands, with the reason given to the author."""
    reason = _reason(reason)
    with transaction.atomic():
        appeal = _open_appeal_for(submission_id, user)
        _decide(appeal, user, Appeal.Status.DENIED, reason)
    return _fresh(appeal)


def open_appeals() -> QuerySet[Appeal]:
    """Appeals waiting for Security, oldest first."""
    return (
        Appeal.objects.filter(status=Appeal.Status.OPEN)
        .select_related("review__submission", "review__decided_by", "author")
        .order_by("filed_at")
    )


def check_decider(appeal: Appeal, user: User) -> None:
    """Security decides; never the author, never the reviewer whose decision is appealed."""
    if not is_security(user):
        raise ReviewForbidden("only members of the Security group decide appeals")
    if appeal.author_id == user.pk:
        raise ReviewForbidden("you made this appeal: another member of Security decides it")
    if appeal.review.decided_by_id == user.pk:
        raise ReviewForbidden(
            "you made the decision under appeal: another member of Security decides it"
        )


def may_decide(appeal: Appeal, user: User) -> bool:
    try:
        check_decider(appeal, user)
    except ReviewForbidden:
        return False
    return appeal.is_open


def _open_appeal_for(submission_id: UUID, user: User) -> Appeal:
    appeal = (
        Appeal.objects.select_for_update()
        .select_related("review__submission")
        .filter(pk=submission_id)
        .first()
    )
    if appeal is None:
        raise ActionUnavailable("this submission has no appeal")
    check_decider(appeal, user)
    if not appeal.is_open:
        raise ActionUnavailable(f"this appeal was {appeal.status} already")
    return appeal


def _decide(appeal: Appeal, user: User, status: str, reason: str) -> datetime:
    now = timezone.now()
    appeal.status, appeal.decision_reason = status, reason
    appeal.decided_by, appeal.decided_at = user, now
    appeal.save(update_fields=["status", "decision_reason", "decided_by", "decided_at"])
    return now


def _publish_on_appeal(
    submission: Submission, user: User, appeal: Appeal, reason: str, *, covered: bool = False
) -> SkillVersion:
    """REJECTED → TIER3_REVIEW (held by the deciding member of Security) → PUBLISHED."""
    actor = Actor.admin(user.get_username())
    metadata = {
        "appeal_of": str(appeal.pk),
        "appeal_reason": appeal.reason,
        "reason": reason,
        **({"covered_by_appeal": True} if covered else {}),
    }
    event = transition(
        submission.pk,
        Change(
            State.REJECTED,
            State.TIER3_REVIEW,
            APPEAL_TRIGGER,
            actor,
            metadata={**metadata, "assignee": user.get_username()},
        ),
    )
    submission.state, submission.state_changed_at = State.TIER3_REVIEW, event.created_at
    return publish(
        submission,
        SkillVersion.Channel.REVIEW,
        actor,
        APPROVED_TRIGGER,
        metadata=metadata,
    )


def _fresh(appeal: Appeal) -> Appeal:
    return Appeal.objects.select_related(
        "review__submission__published_version", "decided_by", "author"
    ).get(pk=appeal.pk)


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "a reason is required"}, code="required")
    if len(reason) > REASON_MAX_LENGTH:
        raise ValidationError(
            {"reason": f"at most {REASON_MAX_LENGTH} characters"}, code="max_length"
        )
    return reason
