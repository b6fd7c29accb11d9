"""Reviewers teach the scanner: each Tier 1 finding on a review page can be marked confirmed or
false positive, and operators read per-rule precision (confirmed / marked) over the last 90 days
in the admin and in ``/metrics``, so the rules that waste reviewers' time are visible."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.utils import timezone

from pipeline.models import ScanResult
from reviews.models import FindingFeedback, Review
from reviews.services import ReviewForbidden, may_review

PRECISION_WINDOW = timedelta(days=90)
REASONS_SHOWN = 3
REASONS_READ = 1000
Verdict = FindingFeedback.Verdict


@dataclass(frozen=True)
class RulePrecision:
    rule_id: str
    marked: int
    confirmed: int
    reasons: tuple[str, ...] = ()
    """The newest reasons reviewers gave with their marks (why they disagree, or agree)."""

    @property
    def precision(self) -> float:
        return self.confirmed / self.marked if self.marked else 0.0


REASON_MAX_LENGTH = 500


def mark_finding(
    review_id: UUID,
    user: User,
    rule_id: str,
    file: str,
    line: int,
    verdict: str,
    reason: str = "",
) -> FindingFeedback:
    """Record (or change) the reviewer's word on a finding the review's Tier 1 result holds,
    with an optional reason (what the rule got wrong, or what makes it real)."""
    if verdict not in Verdict.values:
        raise ValidationError({"verdict": f"choose one of {', '.join(Verdict.values)}"})
    reason = (reason or "").strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise ValidationError({"reason": f"at most {REASON_MAX_LENGTH} characters"})
    review = Review.objects.select_related("submission").get(pk=review_id)
    if not may_review(user, review):
        raise ReviewForbidden("only a reviewer of this skill (not its author) marks its findings")
    if not _holds_finding(review, rule_id, file, line):
        raise ValidationError({"finding": f"{rule_id} at {file}:{line} is not a finding here"})
    feedback, _ = FindingFeedback.objects.update_or_create(
        review=review,
        rule_id=rule_id,
        file=file,
        line=line,
        defaults={
            "verdict": verdict,
            "reason": reason,
            "reviewer": user,
            "marked_at": timezone.now(),
        },
    )
    return feedback


def rule_precision(
    now: datetime | None = None, *, with_reasons: bool = False
) -> list[RulePrecision]:
    """Per rule, over the last 90 days: findings marked and confirmed, least precise first;
    ``with_reasons``, each with the newest reasons reviewers gave (the admin's page)."""
    since = (now or timezone.now()) - PRECISION_WINDOW
    rows = (
        FindingFeedback.objects.filter(marked_at__gte=since)
        .values("rule_id")
        .annotate(marked=Count("id"), confirmed=Count("id", filter=Q(verdict=Verdict.CONFIRMED)))
        .order_by("rule_id")
    )
    reasons = _latest_reasons(since) if with_reasons else {}
    figures = [
        RulePrecision(
            r["rule_id"], r["marked"], r["confirmed"], tuple(reasons.get(r["rule_id"], ()))
        )
        for r in rows
    ]
    return sorted(figures, key=lambda f: (f.precision, -f.marked, f.rule_id))


def _latest_reasons(since: datetime) -> dict[str, list[str]]:
    reasons: dict[str, list[str]] = {}
    for rule_id, verdict, reason in (
        FindingFeedback.objects.filter(marked_at__gte=since)
        .exclude(reason="")
        .order_by("-marked_at")
        .values_list("rule_id", "verdict", "reason")[:REASONS_READ]
    ):
        given = reasons.setdefault(rule_id, [])
        if len(given) < REASONS_SHOWN:
            given.append(f"{Verdict(verdict).label}: {reason}")
    return reasons


def marks_of(review: Review) -> dict[tuple[str, str, int], FindingFeedback]:
    """The review's marks by (rule, file, line), for the review page."""
    return {
        (f.rule_id, f.file, f.line): f
        for f in FindingFeedback.objects.filter(review=review).select_related("reviewer")
    }


def _holds_finding(review: Review, rule_id: str, file: str, line: int) -> bool:
    scan = (
        ScanResult.objects.select_related("result")
        .filter(submission_id=review.submission_id, tier=ScanResult.Tier.TIER1, is_late=False)
        .first()
    )
    findings = scan.result.tier1_report.findings if scan else ()
    return any((f.rule_id, f.file, f.line) == (rule_id, file, line) for f in findings)
