"""Registry records in words, for the admin and the API."""

from __future__ import annotations

from registry.models import GradingResult


def produced_by(result: GradingResult) -> str:
    """What made a verdict: the rule catalogue, and for Tier 2 the judge and the policy's
    thresholds ("tier1-3f2a… · heuristic/weights-9c1d… · auto-approve ≥ 80, review ≥ 60")."""
    parts = [result.catalogue_version]
    if result.tier == GradingResult.Tier.TIER2:
        thresholds = result.tier2_record.thresholds
        parts += [
            result.judge_version,
            f"auto-approve ≥ {thresholds.auto_approve_min}, review ≥ {thresholds.review_min}",
        ]
    return " · ".join(parts)
