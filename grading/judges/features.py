"""The features the heuristic judge weighs: what Tier 1 found, summarised per threat category.

Features are deliberately coarse — one per threat category, one per severity level, plus
corroboration across groups of categories — so that weights fitted on one corpus carry over to
skills written by other people: a weight per *rule* would learn which rules one benchmark
happens to trip, a weight per *category* learns how much, say, evidence of exfiltration is
worth, and a weight per *severity* carries the rule authors' judgement across categories that a
corpus happens to hold few examples of.

For each rule only its strongest finding counts (repeats of one rule add nothing); a finding's
strength is its severity times its certainty, both in [0, 1]; the findings of one category are
combined by noisy-OR, ``1 − Π(1 − strength)``, so that several independent rules of one kind add
up but can never exceed 1. Categories that are not evidence of harm (manifest format, bare
capabilities, files not scanned) are not features: missing front matter is sloppy, not
malicious, whatever the corpus says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from grading.evidence import CERTAINTY, SEVERITY_STRENGTH, strength
from grading.taxonomy import THREAT_CATEGORIES, criterion_of
from grading.types import Finding

__all__ = ["CERTAINTY", "SEVERITY_STRENGTH", "FeatureVector", "extract", "strength"]

FEATURE_SET = "features/2"

CORROBORATING_STRENGTH = 0.3
"""A finding at least this strong (a medium-severity, medium-confidence one) counts towards the
groups of criteria that corroborate each other."""

CATEGORY_FEATURES = tuple(f"category:{name}" for name in sorted(THREAT_CATEGORIES))
SEVERITY_FEATURES = ("severity:critical", "severity:high", "severity:medium")
CORROBORATION_FEATURES = ("corroboration:2-groups", "corroboration:3-groups")
INVENTORY_FEATURES = ("inventory:reads-and-sends", "inventory:undeclared")
"""From the capability inventory (``grading.capabilities``), compared with the description:
the skill both reads secrets and sends data (in what the agent obeys or runs), and how much it
does that its description does not account for."""
FEATURES: tuple[str, ...] = (
    CATEGORY_FEATURES + SEVERITY_FEATURES + CORROBORATION_FEATURES + INVENTORY_FEATURES
)
_WEIGHED_VERBS = frozenset({"reads", "sends", "executes", "persists", "destroys", "configures"})


@dataclass(frozen=True)
class FeatureVector:
    """Non-zero feature values and, for each, the findings behind it (for the explanation)."""

    values: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, tuple[Finding, ...]] = field(default_factory=dict)


def extract(
    findings: Iterable[Finding], inventory: Iterable[Mapping[str, Any]] = ()
) -> FeatureVector:
    strongest: dict[str, Finding] = {}
    for finding in findings:
        if finding.category not in THREAT_CATEGORIES or strength(finding) == 0:
            continue
        current = strongest.get(finding.rule_id)
        if current is None or strength(finding) > strength(current):
            strongest[finding.rule_id] = finding
    by_category: dict[str, list[Finding]] = {}
    for rule_id in sorted(strongest):
        finding = strongest[rule_id]
        by_category.setdefault(finding.category, []).append(finding)
    values: dict[str, float] = {}
    evidence: dict[str, tuple[Finding, ...]] = {}
    for category, group in sorted(by_category.items()):
        absent = 1.0
        for finding in group:
            absent *= 1.0 - strength(finding)
        name = f"category:{category}"
        values[name] = round(1.0 - absent, 6)
        evidence[name] = tuple(sorted(group, key=strength, reverse=True))
    for severity in ("critical", "high", "medium"):
        group = [f for f in strongest.values() if f.severity == severity]
        if group:
            name = f"severity:{severity}"
            values[name] = max(CERTAINTY[f.confidence] for f in group)
            evidence[name] = tuple(sorted(group, key=strength, reverse=True))
    corroborating = sorted(
        {
            criterion
            for f in strongest.values()
            if strength(f) >= CORROBORATING_STRENGTH
            and (criterion := criterion_of(f.category)) is not None
        }
    )
    support = tuple(
        max(
            (f for f in strongest.values() if criterion_of(f.category) == criterion),
            key=strength,
        )
        for criterion in corroborating
    )
    for needed, name in zip((2, 3), CORROBORATION_FEATURES, strict=True):
        if len(corroborating) >= needed:
            values[name] = 1.0
            evidence[name] = support
    _inventory_features(list(inventory), values)
    return FeatureVector(values, evidence)


def _inventory_features(entries: list[Mapping[str, Any]], values: dict[str, float]) -> None:
    obeyed = [e for e in entries if e.get("obeyed")]
    verbs = {e.get("verb") for e in obeyed}
    if "reads" in verbs and "sends" in verbs:
        values["inventory:reads-and-sends"] = 1.0
    hidden = {
        (e.get("verb"), e.get("rule_id"))
        for e in obeyed
        if not e.get("declared") and e.get("verb") in _WEIGHED_VERBS
    }
    if hidden:
        values["inventory:undeclared"] = round(1.0 - 0.5 ** len(hidden), 6)
