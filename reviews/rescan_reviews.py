"""Review items for published versions a re-scan found worse: opened as the re-scan records its
finding, decided by Security.

The decisions and what they do to the version:

=================  ==============================  ==========================================
decision           the version was                 the version becomes (registry.lifecycle)
=================  ==============================  ==========================================
restored           quarantined (critical)          restored to where it was before
kept_quarantined   quarantined (critical)          stays quarantined
quarantined        published or yanked (concerns)  quarantined
kept_published     published or yanked (concerns)  unchanged
=================  ==============================  ==========================================
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config.roles import is_security
from registry import lifecycle
from registry.models import RescanItem, VersionStatus
from reviews.models import VersionReview
from reviews.services import REVIEW_TARGET_BUSINESS_DAYS, ReviewForbidden, add_business_days

Decision = VersionReview.Decision


class DecisionUnavailable(lifecycle.VersionStatusError):
    """The review is decided already, or the decision does not fit the version's status."""


def open_version_review(
    sender: object, *, item: RescanItem, severity: str, reasons: list[str], **kwargs: Any
) -> VersionReview | None:
    """Receiver of ``registry.signals.version_needs_review``: one open review per version
    (a later campaign finding the same version adds nothing while one is open)."""
    if VersionReview.objects.filter(version_id=item.version_id, decided_at__isnull=True).exists():
        return None
    now = timezone.now()
    return VersionReview.objects.create(
        version_id=item.version_id,
        rescan=item,
        severity=severity,
        reasons=reasons,
        opened_at=now,
        due_at=add_business_days(now, REVIEW_TARGET_BUSINESS_DAYS),
    )


def decisions_for(review: VersionReview) -> list[str]:
    """What may be decided now, by the version's current status."""
    if not review.is_open:
        return []
    if review.version.status == VersionStatus.QUARANTINED:
        return [Decision.RESTORED, Decision.KEPT_QUARANTINED]
    return [Decision.QUARANTINED, Decision.KEPT_PUBLISHED]


def decide(review_id: int, user: User, decision: str, reason: str) -> VersionReview:
    """Security decides; the reason is required (it is published with a restoration or a
    quarantine). Raises ReviewForbidden (403), ValidationError (400) or DecisionUnavailable
    (409)."""
    if not is_security(user):
        raise ReviewForbidden("only the Security group decides re-scan reviews")
    if not reason.strip():
        raise ValidationError({"reason": "a reason is required"}, code="required")
    with transaction.atomic():
        review = (
            VersionReview.objects.select_for_update().select_related("version").get(pk=review_id)
        )
        if decision not in decisions_for(review):
            raise DecisionUnavailable(
                f"cannot decide {decision!r} now: the review is "
                + (
                    "decided already"
                    if not review.is_open
                    else f"of a {review.version.status} version"
                )
            )
        actor = lifecycle.Actor.account(user)
        if decision == Decision.RESTORED:
            lifecycle.restore(review.version_id, actor, reason)
        elif decision == Decision.QUARANTINED:
            lifecycle.quarantine(review.version_id, actor, reason)
        review.decision = decision
        review.decision_reason = reason.strip()
        review.decided_by = user
        review.decided_at = timezone.now()
        review.save(update_fields=["decision", "decision_reason", "decided_by", "decided_at"])
    return review
