"""What a reviewer sees on a review's page: the bundle with every Tier 1 finding and Tier 2
concern marked at its line, both tiers' results, the audit trail and the time in queue.

Skill text is untrusted: it is only ever rendered escaped, and characters a person cannot see
(zero-width, bidirectional overrides, tag characters, controls) are shown as visible
``⟦U+…⟧`` markers, because hiding instructions in them is a known attack.
"""

from __future__ import annotations

import unicodedata
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
from reviews.feedback import marks_of
from reviews.models import Review, ReviewPeriod
from reviews.services import Action, allowed_actions, refusal

_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp"})
_PERIOD_LABELS = {
    (State.NEEDS_REVIEW, False): "Waiting in the queue",
    (State.TIER3_REVIEW, False): "In Tier 3 review",
    (State.NEEDS_REVIEW, True): "Waiting for Security",
    (State.TIER3_REVIEW, True): "In Security review",
}


@dataclass(frozen=True)
class Mark:
    """A finding or concern shown under the line it points at."""

    source: str
    severity: str
    title: str
    message: str
    snippet: str = ""
    fix: str = ""


@dataclass(frozen=True)
class Segment:
    text: str
    hidden: bool = False


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
    mark: str = ""
    """The reviewer's word on a Tier 1 finding: "confirmed", "false_positive" or not yet."""


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
    actions: list[Action] = field(default_factory=list)
    notice: str = ""

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
    files = annotate_files(bundle, findings, concerns)
    marks = marks_of(review)
    anchors = {view.path: view.anchor for view in files}
    periods = review.periods.select_related("assignee")
    actions = allowed_actions(review, user)
    return ReviewPage(
        review=review,
        privileges=[privilege_label(privilege) for privilege in review.privileges],
        tier1=tier1,
        tier2=tier2,
        findings=[_finding_row(f, anchors, marks) for f in _by_severity(findings)],
        concerns=[_concern_row(c, anchors) for c in _by_severity(concerns)],
        criteria=_criteria(tier2),
        files=files,
        audit_trail=[
            AuditEntry(event, event_details(event.metadata)) for event in submission.events.all()
        ],
        periods=periods,
        time_in_queue=time_in_queue(list(periods), now or timezone.now()),
        actions=actions,
        notice=refusal(review, user),
    )


def annotate_files(
    bundle: Bundle, findings: list[dict[str, Any]], concerns: list[dict[str, Any]]
) -> list[FileView]:
    """The bundle's files, SKILL.md first, then those with marks, each line with its marks."""
    marks: dict[str, dict[int | None, list[Mark]]] = {}
    for finding in findings:
        marks.setdefault(finding.get("file", ""), {}).setdefault(finding.get("line"), []).append(
            Mark(
                "Tier 1",
                finding.get("severity", ""),
                finding.get("rule_id", ""),
                finding.get("message", ""),
                finding.get("snippet", ""),
                finding.get("remediation", ""),
            )
        )
    for concern in concerns:
        marks.setdefault(concern.get("file", ""), {}).setdefault(concern.get("line"), []).append(
            Mark(
                "Tier 2",
                concern.get("severity", ""),
                category_label(concern.get("category", "")),
                concern.get("evidence", ""),
            )
        )
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


def visible_segments(text: str) -> tuple[Segment, ...]:
    """Split a line into plain text and visible markers for characters one cannot see."""
    if text.isascii() and text.isprintable():
        return (Segment(text),)
    segments: list[Segment] = []
    plain: list[str] = []
    for char in text:
        if char != "\t" and (
            unicodedata.category(char) in _INVISIBLE_CATEGORIES
            or (unicodedata.category(char) == "Zs" and char != " ")
        ):
            if plain:
                segments.append(Segment("".join(plain)))
                plain = []
            segments.append(Segment(f"⟦U+{ord(char):04X}⟧", hidden=True))
        else:
            plain.append(char)
    if plain:
        segments.append(Segment("".join(plain)))
    return tuple(segments)


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
    finding: dict[str, Any], anchors: dict[str, str], marks: dict[tuple[str, str, int], str]
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
        mark=marks.get((rule_id, path, line or 0), ""),
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
