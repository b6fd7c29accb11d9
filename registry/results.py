"""Recording grading results: once per (bundle, tier, catalogue version, judge version).

Graders are deterministic for a given catalogue and judge version, so a result that already
exists for the same key is reused: an identical resubmission, a redelivered message or a re-scan
that finds nothing new adds no row.
"""

from __future__ import annotations

from grading.records import Tier2Record, encode_tier1, encode_tier2
from grading.types import Tier1Report
from registry.models import GradingResult


def record_tier1(bundle_sha256: str, report: Tier1Report) -> GradingResult:
    result, _ = GradingResult.objects.get_or_create(
        bundle_id=bundle_sha256,
        tier=GradingResult.Tier.TIER1,
        catalogue_version=report.catalogue_version,
        judge_version="",
        defaults={
            "verdict": report.verdict,
            "report": encode_tier1(report),
            "duration_ms": report.duration_ms,
        },
    )
    return result


def record_tier2(bundle_sha256: str, catalogue_version: str, record: Tier2Record) -> GradingResult:
    """The judge's verdict on the bundle given the Tier 1 report of ``catalogue_version``."""
    judgement = record.judgement
    result, _ = GradingResult.objects.get_or_create(
        bundle_id=bundle_sha256,
        tier=GradingResult.Tier.TIER2,
        catalogue_version=catalogue_version,
        judge_version=judgement.judge_version,
        defaults={
            "verdict": judgement.verdict,
            "score": judgement.score,
            "decision": record.decision.outcome,
            "report": encode_tier2(record),
            "duration_ms": judgement.duration_ms,
        },
    )
    return result
