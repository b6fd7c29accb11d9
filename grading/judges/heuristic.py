"""The offline, deterministic judge: a score from Tier 1's evidence.

Formula (also in the README)::

    weight(f)      = POINTS[f.severity] × CERTAINTY[f.confidence]
        POINTS     = {critical: 60, high: 30, medium: 12, low: 4, info: 0}
        CERTAINTY  = {high: 1.0, medium: 0.8, low: 0.5}
    penalty(rule)  = max weight(f) over that rule's findings      # repeats add nothing
    groups         = the CRITERIA groups holding a finding of severity ≥ medium and
                     confidence ≥ medium                          # independent kinds of evidence
    corroboration  = CORROBORATION × min(len(groups) − 1, 2)     # CORROBORATION = 10; 0 if ≤ 1
    score          = clamp(round(100 − Σ_rules penalty(rule) − corroboration), 0, 100)
    injection cap  : a finding in an injection category (instruction_override, tool_poisoning,
                     invisible_unicode) with severity ≥ high and confidence ≥ medium caps the
                     score at pass_min − 1
    verdict        = PASS if score ≥ pass_min (80), CONCERNS if score ≥ concerns_min (60), else FAIL

Counting each rule once keeps a large, honest bundle (many files, many ordinary API calls) from
drowning in repeats, while distinct kinds of evidence add up: one high-confidence "high" finding
alone sends a skill to review (70), two reject it (40).

Corroboration: evidence of *different kinds* — say, concealment and exfiltration, or a
steering instruction and an unsafe script — is worth more than the sum of its parts, because an
honest skill that trips one rule by accident rarely trips rules of two unrelated groups, while a
malicious one needs several behaviours (a payload, a way to hide it, a way to move the data).
So one medium-or-worse, medium-or-better finding in each of two groups costs an extra 10 points,
in three or more groups 20: a "high" plus a "medium" finding of different groups rejects (56),
two unrelated "medium" ones go to review (71) instead of passing (81).

Per-criterion scores apply the same sum to the rules of one group of categories. Confidence is
the penalty-weighted mean certainty of the findings that cost points (0.9 when none did).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from grading.judges.common import is_injection, verdict_for
from grading.taxonomy import CRITERIA
from grading.types import Concern, Finding, Judgement, SkillFiles, Tier1Report

PROMPT_VERSION = "heuristic/1.1"
POINTS = {"critical": 60, "high": 30, "medium": 12, "low": 4, "info": 0}
CORROBORATION = 10
MAX_CORROBORATING_GROUPS = 3
CERTAINTY = {"high": 1.0, "medium": 0.8, "low": 0.5}
_CERTAINTY_AS_CONFIDENCE = {"high": 0.9, "medium": 0.7, "low": 0.5}


def weight(finding: Finding) -> float:
    return POINTS[finding.severity] * CERTAINTY[finding.confidence]


class HeuristicJudge:
    provider = "heuristic"

    def __init__(self, pass_min: int = 80, concerns_min: int = 60) -> None:
        self.pass_min = pass_min
        self.concerns_min = concerns_min
        self.version = f"heuristic/formula-{PROMPT_VERSION.rsplit('/', 1)[-1]}"

    def judge(self, files: SkillFiles, tier1: Tier1Report) -> Judgement:
        started = time.perf_counter()
        worst = _worst_per_rule(tier1.findings)
        groups = corroborating_groups(worst.values())
        score = _score(worst.values(), _corroboration(groups))
        capped = any(is_injection(f) for f in tier1.findings) and score >= self.pass_min
        if capped:
            score = self.pass_min - 1
        ranked = sorted(worst.values(), key=weight, reverse=True)
        return Judgement(
            score=score,
            verdict=verdict_for(score, self.pass_min, self.concerns_min),  # type: ignore[arg-type]
            concerns=tuple(
                Concern(f.category, f.severity, f.file, f.line, f"{f.rule_id}: {f.snippet}")
                for f in ranked
                if weight(f) > 0
            ),
            criteria={
                name: _score(f for f in worst.values() if f.category in categories)
                for name, categories in CRITERIA.items()
            },
            confidence=_confidence(ranked),
            provider=self.provider,
            model="tier1-evidence",
            prompt_version=PROMPT_VERSION,
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            judge_version=self.version,
            notes={
                "injection_cap": capped,
                "rules_penalised": len(ranked),
                "corroborating_groups": sorted(groups),
            },
        )


def _worst_per_rule(findings: tuple[Finding, ...]) -> dict[str, Finding]:
    worst: dict[str, Finding] = {}
    for finding in findings:
        current = worst.get(finding.rule_id)
        if current is None or weight(finding) > weight(current):
            worst[finding.rule_id] = finding
    return worst


def corroborating_groups(findings: Iterable[Finding]) -> set[str]:
    """The CRITERIA groups holding at least one medium-or-worse, medium-or-better finding."""
    return {
        name
        for f in findings
        if POINTS[f.severity] >= POINTS["medium"] and CERTAINTY[f.confidence] >= CERTAINTY["medium"]
        for name, categories in CRITERIA.items()
        if f.category in categories
    }


def _corroboration(groups: set[str]) -> int:
    return CORROBORATION * max(0, min(len(groups), MAX_CORROBORATING_GROUPS) - 1)


def _score(findings: Iterable[Finding], corroboration: int = 0) -> int:
    return max(0, min(100, round(100 - sum(weight(f) for f in findings) - corroboration)))


def _confidence(ranked: list[Finding]) -> float:
    total = sum(weight(f) for f in ranked)
    if total == 0:
        return 0.9
    mean = sum(weight(f) * _CERTAINTY_AS_CONFIDENCE[f.confidence] for f in ranked) / total
    return round(mean, 2)
