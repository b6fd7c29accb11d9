"""Grading a whole labelled corpus without the queue or the database, and summarising it.

Used by ``manage.py scan_corpus`` and ``manage.py fit_weights``: every skill goes through Tier 1,
the configured judge and the decision policy exactly as in the pipeline; the summary gives
per-label and per-source outcome rates (the detection-quality targets are stated in those
terms) and Tier 1 latency.

``cross_validate`` measures how the heuristic judge's *fitted* weights generalise: for every
source (or any other grouping), the weights are fitted on all the other sources and the left-out
source is graded with them — leave-one-source-out. A figure that holds in-sample but not
left-out says the weights memorised a source rather than learned a threat.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grading import tier1
from grading.corpus import Entry, iter_skills
from grading.errors import JudgeError
from grading.judges.features import extract
from grading.judges.fitting import PRIOR, REGULARISATION, Sample, fit
from grading.judges.heuristic import HeuristicJudge
from grading.policy import decide, evidence_policy
from grading.tier1.engine import without_rules
from grading.types import SEVERITY_ORDER, Judge, Judgement, SkillFiles, Tier1Report

OUTCOMES = ("auto_approve", "review", "reject", "tier1_fail")
HARMFUL_LABELS = frozenset({"malicious"})
"""Labels the weights learn as harmful; ``benign`` is harmless, anything else (``dual-use``) is
graded and reported but not used for fitting."""
FIT_LABELS = HARMFUL_LABELS | {"benign"}


@dataclass(frozen=True)
class ItemResult:
    entry: Entry
    outcome: str | None
    score: int | None
    tier1_ms: float
    findings: list[dict[str, Any]] = field(default_factory=list)
    reasons: tuple[str, ...] = ()
    error: str | None = None
    judgement: dict[str, Any] | None = None

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
        if self.judgement is not None:
            item["contributions"] = self.judgement.get("notes", {}).get("contributions", [])
        if self.error:
            item["error"] = self.error
        return item


@dataclass(frozen=True)
class Scanned:
    """One corpus entry after Tier 1: its files and report, or why it could not be read."""

    entry: Entry
    files: SkillFiles
    report: Tier1Report | None
    error: str | None = None


def scan_corpus(root: Path) -> list[Scanned]:
    """Tier 1 over every entry of the corpus at ``root``, in manifest order. Tables are built
    first, as a worker builds them before its first task, so the first entry's time is a scan's."""
    tier1.warm_up()
    scanned: list[Scanned] = []
    for skill in iter_skills(root):
        if skill.error:
            scanned.append(Scanned(skill.entry, {}, None, skill.error))
        else:
            scanned.append(Scanned(skill.entry, skill.files, tier1.scan(skill.files)))
    return scanned


def grade(
    scanned: Iterable[Scanned], judge: Judge, *, auto_approve_min: int, review_min: int
) -> Iterator[ItemResult]:
    """The judge and the decision policy over Tier 1 results, as the pipeline applies them."""
    for item in scanned:
        report = item.report
        if report is None:
            yield ItemResult(item.entry, None, None, 0.0, error=item.error)
            continue
        findings = [f.to_dict() for f in report.findings if f.severity != "info"]
        judgement: Judgement | None = None
        if report.verdict != "FAIL":
            try:
                judgement = judge.judge(item.files, report)
            except JudgeError as exc:
                error = f"{exc.classification}: {exc}"
                yield ItemResult(item.entry, None, None, report.duration_ms, findings, error=error)
                continue
        decision = decide(
            report, judgement, auto_approve_min=auto_approve_min, review_min=review_min
        )
        yield ItemResult(
            item.entry,
            decision.outcome,
            judgement.score if judgement else None,
            report.duration_ms,
            findings,
            decision.reasons,
            judgement=judgement.to_dict() if judgement else None,
        )


def samples(scanned: Iterable[Scanned]) -> list[Sample]:
    """Training samples for the weights: every readable benign or harmful entry."""
    return [
        Sample(
            extract(item.report.findings, item.report.inventory).values,
            item.entry.label in HARMFUL_LABELS,
            item.entry.source or "-",
        )
        for item in scanned
        if item.report is not None and item.entry.label in FIT_LABELS
    ]


def cross_validate(
    scanned: list[Scanned],
    *,
    auto_approve_min: int,
    review_min: int,
    group_of: Callable[[Entry], str] = lambda entry: entry.source or "-",
    regularisation: float = REGULARISATION,
    prior: float = PRIOR,
    hold_out_rules: bool = False,
) -> list[ItemResult]:
    """Leave-one-group-out: each group graded by weights fitted on all the other groups.

    With ``hold_out_rules`` the left-out group also loses the rules that only it trips (see
    ``exclusive_rules``): the rules were written with every source in view, and a rule that
    fires on one malicious source alone may have learned that source's wording rather than a
    threat. What is left is a pessimistic estimate for skills nobody wrote rules from — a rule
    for a real threat class that only one source happens to contain is dropped too."""
    groups = sorted({group_of(item.entry) for item in scanned})
    exclusive = exclusive_rules(scanned, group_of) if hold_out_rules else {}
    results: dict[str, ItemResult] = {}
    for group in groups:
        training = samples(item for item in scanned if group_of(item.entry) != group)
        if not training or len({s.harmful for s in training}) < 2:
            continue
        judge = HeuristicJudge(
            pass_min=auto_approve_min,
            concerns_min=review_min,
            weights=fit(training, regularisation=regularisation, prior=prior),
        )
        dropped = exclusive.get(group, frozenset())
        held_out = [
            replace(item, report=without_rules(item.report, dropped))
            if dropped and item.report is not None
            else item
            for item in scanned
            if group_of(item.entry) == group
        ]
        for result in grade(
            held_out, judge, auto_approve_min=auto_approve_min, review_min=review_min
        ):
            results[result.entry.id] = result
    return [results[item.entry.id] for item in scanned if item.entry.id in results]


def exclusive_rules(
    scanned: Iterable[Scanned], group_of: Callable[[Entry], str]
) -> dict[str, frozenset[str]]:
    """For each group, the rules whose evidence (a finding of at least medium severity in text
    that is acted on, as the policy reads it) appears in harmful skills of that group and of no
    other."""
    acted_on = evidence_policy().acted_on_spans
    groups_of_rule: dict[str, set[str]] = defaultdict(set)
    for item in scanned:
        if item.report is None or item.entry.label not in HARMFUL_LABELS:
            continue
        for finding in item.report.findings:
            if finding.span in acted_on and SEVERITY_ORDER[finding.severity] >= _MEDIUM:
                groups_of_rule[finding.rule_id].add(group_of(item.entry))
    by_group: dict[str, set[str]] = defaultdict(set)
    for rule_id, groups in groups_of_rule.items():
        if len(groups) == 1:
            by_group[next(iter(groups))].add(rule_id)
    return {group: frozenset(rules) for group, rules in by_group.items()}


_MEDIUM = SEVERITY_ORDER["medium"]


def summarise(items: Iterable[ItemResult]) -> dict[str, Any]:
    graded = list(items)
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
