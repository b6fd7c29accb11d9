"""The decision policy: what the pipeline does with the two tiers' results.

Order: a Tier 1 FAIL is final; a score ≥ auto_approve_min auto-approves unless the skill is
high-privilege or carries a dual-use capability (→ review: the review floor); a score in the
review band goes to review; a lower score is a rejection only when some finding is evidence of
malice — a low score that dual-use capabilities alone explain (an installer, sudo, a scheduled
job, deleting files without asking…) goes to review, because a person, not the registry, decides
whether a risky capability is acceptable. What counts as dual-use and how strong a finding must
be are data (``policy.yaml``; rules opt in with ``dual_use: true``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from grading.judges.features import strength
from grading.taxonomy import THREAT_CATEGORIES
from grading.tier1.catalogue import load_catalogue
from grading.types import Decision, Finding, Judgement, Tier1Report

POLICY_FILE = Path(__file__).with_name("policy.yaml")


@dataclass(frozen=True)
class EvidencePolicy:
    acted_on_spans: frozenset[str]
    accounted_spans: frozenset[str]
    review_floor_strength: float
    malice_min_strength: float
    accumulation: dict[str, int]


@lru_cache(maxsize=1)
def evidence_policy() -> EvidencePolicy:
    raw = yaml.safe_load(POLICY_FILE.read_text(encoding="utf-8"))
    return EvidencePolicy(
        acted_on_spans=frozenset(raw["acted_on_spans"]),
        accounted_spans=frozenset(raw["accounted_spans"]),
        review_floor_strength=float(raw["review_floor_strength"]),
        malice_min_strength=float(raw["malice_min_strength"]),
        accumulation={str(k): int(v) for k, v in (raw.get("accumulation") or {}).items()},
    )


@dataclass(frozen=True)
class Evidence:
    """The findings the policy reads, split into dual-use capabilities and signs of malice."""

    dual_use: tuple[Finding, ...]
    malice: tuple[Finding, ...]


def classify(findings: tuple[Finding, ...]) -> Evidence:
    rules = load_catalogue().by_id
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
    for category, enough in sorted(policy.accumulation.items()):
        group = [f for f in dual if f.category == category]
        if len({f.rule_id for f in group}) >= enough:
            malice.extend(group)
            dual = [f for f in dual if f.category != category]
    return Evidence(tuple(dual), tuple(malice))


def _names(findings: tuple[Finding, ...]) -> str:
    return ", ".join(sorted({f.rule_id for f in findings}))


def decide(
    tier1: Tier1Report, judgement: Judgement | None, *, auto_approve_min: int, review_min: int
) -> Decision:
    """Tier 1 FAIL is final; then score ≥ auto_approve_min auto-approves unless the skill is
    high-privilege or has a dual-use capability (→ review), review_min ≤ score < auto_approve_min
    goes to review, lower scores are rejected when some finding is evidence of malice and sent
    to review when dual-use capabilities alone explain them."""
    if tier1.verdict == "FAIL":
        return Decision("tier1_fail", ("tier 1 found high-confidence critical issues",))
    if judgement is None:
        raise ValueError("a Tier 1 pass needs a judgement to decide")
    score = judgement.score
    evidence = classify(tier1.findings)
    if score >= auto_approve_min:
        if tier1.high_privilege:
            privileges = ", ".join(tier1.privileges) or "high privilege"
            return Decision("review", (f"score {score} but high-privilege: {privileges}",))
        if evidence.dual_use:
            found = _names(evidence.dual_use)
            return Decision("review", (f"score {score} but a capability to review: {found}",))
        return Decision("auto_approve", (f"score {score} ≥ {auto_approve_min}",))
    if score >= review_min:
        band = f"{review_min}–{auto_approve_min - 1}"
        return Decision("review", (f"score {score} in the review band {band}",))
    if evidence.dual_use and not evidence.malice:
        found = _names(evidence.dual_use)
        reason = (
            f"score {score} < {review_min}, but only capabilities to review and no sign of"
            f" malice: {found}"
        )
        return Decision("review", (reason,))
    return Decision("reject", (f"score {score} < {review_min}",))
