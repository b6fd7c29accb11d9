"""What a reviewer sees on a review's page: what the submission changes against the skill's
latest published version (reviews.comparison) and the version approving creates, other
submissions or versions of the same files (reviews.twins), the bundle with every Tier 1
finding and Tier 2 concern marked at its line (merged where they say the same, reviews.marks),
both tiers' results, an appeal if there is one, the audit trail and the time in queue.

Skill text is untrusted: it is only ever rendered escaped, and characters a person cannot see
(zero-width, bidirectional overrides, tag characters, controls) are shown as visible
``⟦U+…⟧`` markers, because hiding instructions in them is a known attack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from grading.labels import category_label, criterion_label, privilege_label
from grading.types import SEVERITY_ORDER
from pipeline.models import ScanResult, SubmissionStateEvent
from pipeline.presentation import event_details
from pipeline.states import State
from registry.bundles import SKILL_FILE, Bundle
from registry.models import GradingResult
from registry.presentation import produced_by
from reviews.comparison import Comparison, compare
from reviews.feedback import marks_of
from reviews.marks import Mark, MarksByLine, Segment, marks_by_line, visible_segments
from reviews.models import Appeal, FindingFeedback, Review, ReviewPeriod
from reviews.services import Action, allowed_actions, refusal, twin_refusal
from reviews.twins import Twins, twins_of
from skillformat.skillmd import SkillManifest

_PERIOD_LABELS = {
    (State.NEEDS_REVIEW, False): "Waiting in the queue",
    (State.TIER3_REVIEW, False): "In Tier 3 review",
    (State.NEEDS_REVIEW, True): "Waiting for Security",
    (State.TIER3_REVIEW, True): "In Security review",
}


@dataclass(frozen=True)
class Line:
    number: int
    segments: tuple[Segment, ...]
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class FileView:
    index: int
    path: str
    size: int
    binary: bool
    lines: tuple[Line, ...]
    file_marks: tuple[Mark, ...]
    mark_count: int

    @property
    def anchor(self) -> str:
        return f"file-{self.index}"


@dataclass(frozen=True)
class FindingRow:
    """One Tier 1 finding or Tier 2 concern in a table, linking to its line in the bundle."""

    severity: str
    title: str
    category: str
    location: str
    anchor: str
    message: str
    confidence: str = ""
    rule_id: str = ""
    file: str = ""
    line: int = 0
    mark: FindingFeedback | None = None
    """The reviewer's word on a Tier 1 finding (verdict, reason, who), or None yet."""


@dataclass(frozen=True)
class AuditEntry:
    """One audit event with its details as readable (label, text) pairs."""

    event: SubmissionStateEvent
    details: list[tuple[str, str]]


@dataclass(frozen=True)
class QueueTime:
    label: str
    duration: timedelta

    @property
    def text(self) -> str:
        """Whole minutes are precise enough for an SLA measured in business days."""
        minutes = int(self.duration.total_seconds() // 60)
        days, minutes = divmod(minutes, 24 * 60)
        hours, minutes = divmod(minutes, 60)
        return (f"{days} d " if days else "") + f"{hours} h {minutes:02d} min"


@dataclass
class ReviewPage:
    review: Review
    privileges: list[str]
    tier1: GradingResult | None
    tier2: GradingResult | None
    findings: list[FindingRow]
    concerns: list[FindingRow]
    criteria: list[tuple[str, Any]]
    files: list[FileView]
    audit_trail: list[AuditEntry]
    periods: QuerySet[ReviewPeriod]
    time_in_queue: list[QueueTime]
    comparison: Comparison | None = None
    twins: Twins | None = None
    appeal: Appeal | None = None
    actions: list[Action] = field(default_factory=list)
    notice: str = ""
    held_back: list[tuple[Action, str]] = field(default_factory=list)
    """Actions the state allows but a decision on identical files forbids, with the reason."""

    @property
    def tier2_produced_by(self) -> str:
        return produced_by(self.tier2) if self.tier2 else ""

    @property
    def tier2_confidence(self) -> float | None:
        return self.tier2.tier2_record.judgement.confidence if self.tier2 else None


def review_page(review: Review, user: User, now: datetime | None = None) -> ReviewPage:
    """Everything the review page shows, for ``user`` (whose actions it offers)."""
    submission = review.submission
    results = {
        scan.tier: scan.result
        for scan in ScanResult.objects.select_related("result").filter(
            submission=submission, is_late=False
        )
    }
    tier1, tier2 = results.get(ScanResult.Tier.TIER1), results.get(ScanResult.Tier.TIER2)
    findings = [f.to_dict() for f in tier1.tier1_report.findings] if tier1 else []
    concerns = [c.to_dict() for c in tier2.tier2_record.judgement.concerns] if tier2 else []
    assert submission.bundle is not None, "a submission reaches review only once scanned"
    bundle = submission.bundle.as_bundle()
    marks = marks_by_line(findings, concerns)
    files = annotate_files(bundle, marks)
    feedback = marks_of(review)
    anchors = {view.path: view.anchor for view in files}
    periods = review.periods.select_related("assignee")
    actions = allowed_actions(review, user)
    held_back: list[tuple[Action, str]] = [
        (action, reason)
        for action in actions
        if action in (Action.APPROVE, Action.REJECT, Action.REQUEST_CHANGES)
        and (reason := twin_refusal(submission, action))
    ]
    return ReviewPage(
        review=review,
        privileges=[privilege_label(privilege) for privilege in review.privileges],
        tier1=tier1,
        tier2=tier2,
        findings=[_finding_row(f, anchors, feedback) for f in _by_severity(findings)],
        concerns=[_concern_row(c, anchors) for c in _by_severity(concerns)],
        criteria=_criteria(tier2),
        files=files,
        audit_trail=[
            AuditEntry(event, event_details(event.metadata)) for event in submission.events.all()
        ],
        periods=periods,
        time_in_queue=time_in_queue(list(periods), now or timezone.now()),
        comparison=compare(
            submission.skill_owner,
            submission.skill_name,
            bundle,
            SkillManifest.from_json(submission.bundle.manifest),
            marks,
        ),
        twins=twins_of(submission),
        appeal=Appeal.objects.filter(review=review).select_related("decided_by").first(),
        actions=[action for action in actions if action not in dict(held_back)],
        notice=refusal(review, user),
        held_back=held_back,
    )


def annotate_files(bundle: Bundle, marks: MarksByLine) -> list[FileView]:
    """The bundle's files, SKILL.md first, then those with marks, each line with its marks."""
    ordered = sorted(
        bundle.files, key=lambda f: (f.path != SKILL_FILE, f.path not in marks, f.path)
    )
    views = []
    for index, bundle_file in enumerate(ordered):
        by_line = marks.get(bundle_file.path, {})
        text = bundle_file.text
        lines = text.splitlines() if text is not None else []
        placed = {number for number in by_line if isinstance(number, int)}
        placed &= set(range(1, len(lines) + 1))
        views.append(
            FileView(
                index=index,
                path=bundle_file.path,
                size=bundle_file.size,
                binary=text is None,
                lines=tuple(
                    Line(number, visible_segments(content), tuple(by_line.get(number, ())))
                    for number, content in enumerate(lines, start=1)
                ),
                file_marks=tuple(
                    mark
                    for number, group in by_line.items()
                    if number not in placed
                    for mark in group
                ),
                mark_count=sum(len(group) for group in by_line.values()),
            )
        )
    return views


def time_in_queue(periods: list[ReviewPeriod], now: datetime) -> list[QueueTime]:
    """Total time spent waiting, in Tier 3 review, and the same with the security group."""
    totals: dict[str, timedelta] = {}
    for period in periods:
        label = _PERIOD_LABELS[(State(period.state), period.escalated)]
        spent = (period.ended_at or now) - period.started_at
        totals[label] = totals.get(label, timedelta()) + spent
    return [QueueTime(label, duration) for label, duration in totals.items()]


def _criteria(tier2: GradingResult | None) -> list[tuple[str, Any]]:
    """The judge's per-criterion scores, named in words, in the order of their names."""
    scores = tier2.tier2_record.judgement.criteria if tier2 else {}
    return [(criterion_label(name), score) for name, score in sorted(scores.items())]


def _by_severity(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(
        items,
        key=lambda item: (
            -SEVERITY_ORDER.get(item.get("severity", ""), 0),
            item.get("file", ""),
            item.get("line") or 0,
        ),
    )


def _line_anchor(anchors: dict[str, str], path: str, line: int | None) -> str:
    anchor = anchors.get(path, "")
    if anchor and line:
        return f"{anchor}-L{line}"
    return anchor


def _finding_row(
    finding: dict[str, Any],
    anchors: dict[str, str],
    marks: dict[tuple[str, str, int], FindingFeedback],
) -> FindingRow:
    path, line = finding.get("file", ""), finding.get("line")
    rule_id = finding.get("rule_id", "")
    return FindingRow(
        severity=finding.get("severity", ""),
        title=finding.get("rule_id", ""),
        category=category_label(finding.get("category", "")),
        location=f"{path}:{line}" if line else path,
        anchor=_line_anchor(anchors, path, line),
        message=finding.get("message", ""),
        confidence=finding.get("confidence", ""),
        rule_id=rule_id,
        file=path,
        line=line or 0,
        mark=marks.get((rule_id, path, line or 0)),
    )


def _concern_row(concern: dict[str, Any], anchors: dict[str, str]) -> FindingRow:
    path, line = concern.get("file", ""), concern.get("line")
    return FindingRow(
        severity=concern.get("severity", ""),
        title=category_label(concern.get("category", "")),
        category=category_label(concern.get("category", "")),
        location=(f"{path}:{line}" if line else path) or "whole skill",
        anchor=_line_anchor(anchors, path, line),
        message=concern.get("evidence", ""),
    )
