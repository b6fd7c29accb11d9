"""The offline, deterministic judge: a score from Tier 1's evidence and fitted weights.

Formula (also in docs/grading.md)::

    x             = features(Tier 1 findings)        # one value in [0, 1) per threat category,
                                                     # plus corroboration across groups (features)
    P(harmful)    = sigmoid(intercept + Σ weight[f] × x[f])
    score         = round(100 × (1 − P(harmful)))
    injection cap : a finding in an injection category (instruction override, tool poisoning,
                    invisible Unicode; severity ≥ high, confidence ≥ medium) caps the score at
                    pass_min − 1
    verdict       = PASS if score ≥ pass_min (80), CONCERNS if score ≥ concerns_min (60), else FAIL

The weights are not chosen by hand: they are fitted to a labelled corpus by logistic regression
(``fitting``; ``manage.py fit_weights``), stored as data (``data/heuristic-weights.json``) and
injected, so a judgement records exactly which weights produced it (``judge_version``) and lists
in ``notes["contributions"]`` every feature that moved the score, with its value, its weight and
the findings behind it.

Per-criterion scores apply the same model to the categories of one criterion, rescaled so that a
criterion without evidence scores 100. Confidence is how far the probability is from a coin toss.
"""

from __future__ import annotations

import time
from typing import Any

from grading.capabilities import Capability, summary
from grading.judges.common import is_injection, verdict_for
from grading.judges.features import FEATURE_SET, FeatureVector, extract, strength
from grading.judges.weights import Weights, default_weights, sigmoid
from grading.taxonomy import CRITERIA
from grading.types import Concern, Finding, Judgement, SkillFiles, Tier1Report


class HeuristicJudge:
    provider = "heuristic"
    reads_files = False  # Tier 1's findings are its evidence

    def __init__(
        self, pass_min: int = 80, concerns_min: int = 60, weights: Weights | None = None
    ) -> None:
        self.pass_min = pass_min
        self.concerns_min = concerns_min
        self.weights = weights if weights is not None else default_weights()
        self.version = f"{self.provider}/{self.weights.version}"

    def judge(self, files: SkillFiles, tier1: Tier1Report) -> Judgement:
        started = time.perf_counter()
        vector = extract(tier1.findings, tier1.inventory)
        contributions = self._contributions(vector)
        evidence = sum(row["contribution"] for row in contributions)
        probability = sigmoid(self.weights.intercept + evidence)
        score = max(0, min(100, round(100 * (1 - probability))))
        capped = any(is_injection(f) for f in tier1.findings) and score >= self.pass_min
        if capped:
            score = self.pass_min - 1
        return Judgement(
            score=score,
            verdict=verdict_for(score, self.pass_min, self.concerns_min),
            concerns=_concerns(vector, contributions),
            criteria={name: self._criterion(vector, cats) for name, cats in CRITERIA.items()},
            confidence=round(max(probability, 1 - probability), 2),
            provider=self.provider,
            model="tier1-evidence",
            prompt_version=self.version,
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            judge_version=self.version,
            notes={
                "probability_harmful": round(probability, 4),
                "intercept": self.weights.intercept,
                "contributions": contributions,
                "injection_cap": capped,
                "features": FEATURE_SET,
                "inventory": summary(Capability.from_dict(e) for e in tier1.inventory),
            },
        )

    def _contributions(self, vector: FeatureVector) -> list[dict[str, Any]]:
        """Every feature that moved the score: value × weight, and the findings behind it."""
        rows = [
            {
                "feature": name,
                "value": value,
                "weight": self.weights.weight(name),
                "contribution": round(value * self.weights.weight(name), 6),
                "findings": [_cite(f) for f in vector.evidence.get(name, ())],
            }
            for name, value in vector.values.items()
            if self.weights.weight(name) > 0
        ]
        return sorted(rows, key=lambda row: (-row["contribution"], row["feature"]))

    def _criterion(self, vector: FeatureVector, categories: frozenset[str]) -> int:
        evidence = sum(
            self.weights.weight(f"category:{c}") * vector.values.get(f"category:{c}", 0.0)
            for c in sorted(categories)
        )
        base = sigmoid(self.weights.intercept)
        harmful = sigmoid(self.weights.intercept + evidence)
        return max(0, min(100, round(100 * (1 - (harmful - base) / (1 - base)))))


def _cite(finding: Finding) -> str:
    where = f"{finding.file}:{finding.line}"
    return f"{finding.rule_id} ({finding.severity}/{finding.confidence}) {where}"


def _concerns(vector: FeatureVector, contributions: list[dict[str, Any]]) -> tuple[Concern, ...]:
    """The findings behind the features that cost points, most costly feature first."""
    seen: set[str] = set()
    concerns: list[Concern] = []
    for row in contributions:
        for finding in sorted(vector.evidence.get(row["feature"], ()), key=strength, reverse=True):
            if finding.rule_id in seen:
                continue
            seen.add(finding.rule_id)
            concerns.append(
                Concern(
                    finding.category,
                    finding.severity,
                    finding.file,
                    finding.line,
                    f"{finding.rule_id}: {finding.snippet}",
                )
            )
    return tuple(concerns)
