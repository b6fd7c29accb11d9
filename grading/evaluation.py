"""Grading a whole labelled corpus without the queue or the database, and summarising it.

Used by ``manage.py scan_corpus``: every skill goes through Tier 1, the configured judge and the
decision policy exactly as in the pipeline; the summary gives per-label and per-source outcome
rates (the detection-quality targets are stated in those terms) and Tier 1 latency.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grading import tier1
from grading.corpus import Entry, iter_skills
from grading.errors import JudgeError
from grading.policy import decide
from grading.types import Judge

OUTCOMES = ("auto_approve", "review", "reject", "tier1_fail")


@dataclass(frozen=True)
class ItemResult:
    entry: Entry
    outcome: str | None
    score: int | None
    tier1_ms: float
    findings: list[dict[str, Any]] = field(default_factory=list)
    reasons: tuple[str, ...] = ()
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "id": self.entry.id,
            "label": self.entry.label,
            "source": self.entry.source,
            "outcome": self.outcome,
            "score": self.score,
            "tier1_ms": self.tier1_ms,
            "reasons": list(self.reasons),
            "findings": self.findings,
        }
        if self.error:
            item["error"] = self.error
        return item


def grade_corpus(
    root: Path, judge: Judge, *, auto_approve_min: int, review_min: int
) -> Iterator[ItemResult]:
    for skill in iter_skills(root):
        if skill.error:
            yield ItemResult(skill.entry, None, None, 0.0, error=skill.error)
            continue
        report = tier1.scan(skill.files)
        findings = [f.to_dict() for f in report.findings if f.severity != "info"]
        judgement = None
        if report.verdict != "FAIL":
            try:
                judgement = judge.judge(skill.files, report)
            except JudgeError as exc:
                error = f"{exc.classification}: {exc}"
                yield ItemResult(skill.entry, None, None, report.duration_ms, findings, error=error)
                continue
        decision = decide(
            report, judgement, auto_approve_min=auto_approve_min, review_min=review_min
        )
        yield ItemResult(
            skill.entry,
            decision.outcome,
            judgement.score if judgement else None,
            report.duration_ms,
            findings,
            decision.reasons,
        )


def summarise(items: Iterable[ItemResult]) -> dict[str, Any]:
    graded = [i for i in items]
    ok = [i for i in graded if i.outcome]
    by_label: dict[str, list[ItemResult]] = defaultdict(list)
    by_source: dict[tuple[str, str], list[ItemResult]] = defaultdict(list)
    for item in ok:
        by_label[item.entry.label].append(item)
        by_source[(item.entry.source or "-", item.entry.label)].append(item)
    timings = [i.tier1_ms for i in ok]
    return {
        "skills": len(graded),
        "graded": len(ok),
        "errors": [{"id": i.entry.id, "error": i.error} for i in graded if not i.outcome],
        "by_label": {label: _outcomes(group) for label, group in sorted(by_label.items())},
        "by_source": {
            f"{source}/{label}": {"source": source, "label": label, **_outcomes(group)}
            for (source, label), group in sorted(by_source.items())
        },
        "tier1_ms": {
            "median": percentile(timings, 50),
            "p95": percentile(timings, 95),
            "p99": percentile(timings, 99),
            "max": max(timings, default=0.0),
        },
    }


def _outcomes(group: list[ItemResult]) -> dict[str, Any]:
    counts = Counter(i.outcome for i in group)
    total = len(group)
    rates = {o: round(counts[o] / total, 4) if total else 0.0 for o in OUTCOMES}
    not_auto = total - counts["auto_approve"]
    blocked = counts["reject"] + counts["tier1_fail"]
    return {
        "total": total,
        "counts": {o: counts[o] for o in OUTCOMES},
        "rates": rates,
        "not_auto_approved_rate": round(not_auto / total, 4) if total else 0.0,
        "blocked_rate": round(blocked / total, 4) if total else 0.0,
    }


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) — no interpolation, so it is an observed value."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return round(ordered[rank - 1], 3)
