"""What the findings of a scan add up to: capabilities for a person, or corroborated malice.

The one place where the rule "a block is a claim of malice and needs corroboration" is written.
Tier 1's verdict and the decision policy both ask it (``assess``):

* A finding counts only in text the agent obeys or code that runs (``acted_on_spans`` of
  ``policy.yaml``): instructions, shipped code, engine inferences. A quotation in a security
  guide is evidence for the judge, not for a block.
* A finding is a *capability* when its rule says it has legitimate uses (``dual_use``) or the
  skill's own declarations account for it (``first_party``, ``declared`` spans): a person
  decides; alone it never rejects. Every other threat finding is a sign of *malice*.
* Each finding carries one or more *signals* (``taxonomy.SIGNALS``): independent kinds of
  evidence such as a secret source, a sink, concealment, obfuscation, execution.
* Malice is *corroborated* when a sign of malice stands with a second, independent signal
  (from it or from any other counted finding, capability or not) — a secret source and a sink,
  concealment and a harmful action, obfuscation and execution — or when a finding's rule says
  it has no benign reading (``conclusive``: a reverse shell, instructions in invisible tag
  characters). Nothing else may block: no single finding of one signal, whatever its severity.
* Capabilities made malice by their number alone (``accumulation``: several credential stores
  named) are a sign of malice only by count; what corroborates them must be a sign of malice
  too, not one more capability. A secret scanner that names key files and suggests a history
  rewrite holds two capabilities, not a harvest and its cover (``swept``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import yaml

from grading.taxonomy import CATEGORY_SIGNALS, THREAT_CATEGORIES
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Finding

POLICY_FILE = Path(__file__).with_name("policy.yaml")

SEVERITY_STRENGTH = {"info": 0.0, "low": 0.15, "medium": 0.4, "high": 0.7, "critical": 1.0}
CERTAINTY = {"low": 0.4, "medium": 0.75, "high": 1.0}


def strength(finding: Finding) -> float:
    """Severity times certainty, both in [0, 1]: medium/medium is 0.3."""
    return SEVERITY_STRENGTH[finding.severity] * CERTAINTY[finding.confidence]


class RuleFacts(Protocol):
    """What the evidence rules need to know of a finding's rule (``catalogue.Rule``)."""

    @property
    def dual_use(self) -> bool: ...
    @property
    def signals(self) -> tuple[str, ...]: ...
    @property
    def conclusive(self) -> bool: ...


@dataclass(frozen=True)
class EvidencePolicy:
    acted_on_spans: frozenset[str]
    accounted_spans: frozenset[str]
    privilege_accounted_spans: frozenset[str]
    accountable_privileges: frozenset[str]
    review_floor_strength: float
    malice_min_strength: float
    accumulation: dict[str, int]
    review_rules: frozenset[str]


@lru_cache(maxsize=1)
def evidence_policy() -> EvidencePolicy:
    raw = yaml.safe_load(POLICY_FILE.read_text(encoding="utf-8"))
    return EvidencePolicy(
        acted_on_spans=frozenset(raw["acted_on_spans"]),
        accounted_spans=frozenset(raw["accounted_spans"]),
        privilege_accounted_spans=frozenset(raw["privilege_accounted_spans"]),
        accountable_privileges=frozenset(raw["accountable_privileges"]),
        review_floor_strength=float(raw["review_floor_strength"]),
        malice_min_strength=float(raw["malice_min_strength"]),
        accumulation={str(k): int(v) for k, v in (raw.get("accumulation") or {}).items()},
        review_rules=frozenset(raw.get("review_rules") or ()),
    )


@dataclass(frozen=True)
class Evidence:
    """The counted findings of a scan, split into capabilities and signs of malice."""

    dual_use: tuple[Finding, ...]
    malice: tuple[Finding, ...]
    conclusive: tuple[Finding, ...]
    """Signs of malice whose rule says they have no benign reading."""
    signals: tuple[str, ...]
    """The distinct signals of every counted finding, in a stable order."""
    swept: tuple[Finding, ...]
    """Signs of malice only by their number (``accumulation``): capabilities of one category
    from several rules."""
    malice_signals: tuple[str, ...]
    """The distinct signals of the signs of malice alone."""
    final: tuple[Finding, ...]
    """Findings Tier 1 fails a skill on (final for the author): conclusive ones, and critical,
    high-confidence signs of malice whose rule joins two signals by itself (a script piped into
    a shell from a host that is not the skill's own, a secret store's contents sent out)."""

    @property
    def corroborated(self) -> bool:
        """Malice that a block may rest on: a conclusive finding, a sign of malice by its rule
        with a second independent signal, or signs of malice (swept ones included) that carry
        two signals between them — a sweep of capabilities is not corroborated by another
        capability."""
        ruled = any(f not in self.swept for f in self.malice)
        return (
            bool(self.conclusive)
            or (ruled and len(self.signals) >= 2)
            or len(self.malice_signals) >= 2
        )

    @property
    def counted(self) -> tuple[Finding, ...]:
        return self.malice + self.dual_use


def assess(findings: Iterable[Finding], rules: Mapping[str, RuleFacts]) -> Evidence:
    """Split ``findings`` into capabilities and signs of malice (see the module docstring)."""
    policy = evidence_policy()
    dual: list[Finding] = []
    malice: list[Finding] = []
    for finding in findings:
        if finding.category not in THREAT_CATEGORIES or finding.span not in policy.acted_on_spans:
            continue
        rule = rules.get(finding.rule_id)
        if (rule is not None and rule.dual_use) or finding.span in policy.accounted_spans:
            if strength(finding) >= policy.review_floor_strength:
                dual.append(finding)
        elif strength(finding) >= policy.malice_min_strength:
            malice.append(finding)
    swept: list[Finding] = []
    for category, enough in sorted(policy.accumulation.items()):
        group = [f for f in dual if f.category == category]
        if len({f.rule_id for f in group}) >= enough:
            swept.extend(group)
            dual = [f for f in dual if f.category != category]
    malice.extend(swept)
    conclusive = tuple(f for f in malice if _conclusive(f, rules.get(f.rule_id)))
    signals: dict[str, None] = {}
    malice_signals: dict[str, None] = {}
    for finding in (*malice, *dual):
        for signal in signals_of(finding, rules.get(finding.rule_id)):
            signals.setdefault(signal)
            if finding in malice:
                malice_signals.setdefault(signal)
    final = conclusive + tuple(
        f
        for f in malice
        if f not in conclusive
        and (f.severity, f.confidence) == ("critical", "high")
        and len(signals_of(f, rules.get(f.rule_id))) >= 2
    )
    return Evidence(
        dual_use=tuple(dual),
        malice=tuple(malice),
        conclusive=conclusive,
        signals=tuple(signals),
        swept=tuple(swept),
        malice_signals=tuple(malice_signals),
        final=final,
    )


def signals_of(finding: Finding, rule: RuleFacts | None) -> tuple[str, ...]:
    """The finding's signals: its rule's, else the one its category carries."""
    if rule is not None and rule.signals:
        return rule.signals
    default = CATEGORY_SIGNALS.get(finding.category)
    return (default,) if default else ()


def _conclusive(finding: Finding, rule: RuleFacts | None) -> bool:
    """A conclusive rule's hit counts as conclusive only at its full weight: a hit that its
    kind of text lowered (quoted, discussed) is not."""
    return (
        rule is not None
        and rule.conclusive
        and SEVERITY_ORDER[finding.severity] >= SEVERITY_ORDER["high"]
        and CONFIDENCE_ORDER[finding.confidence] >= CONFIDENCE_ORDER["medium"]
    )
