"""Recording grading results: once per (bundle, tier, catalogue version, judge version).

Graders are deterministic for a given catalogue and judge version, so a result that already
exists for the same key is reused: an identical resubmission, a redelivered message or a re-scan
that finds nothing new adds no row.
"""

from __future__ import annotations

from grading.records import Tier2Record, encode_tier1, encode_tier2
from grading.types import Tier1Report
from registry.models import GradingResult

_KEY = ("bundle", "tier", "catalogue_version", "judge_version")


def tier1_record(bundle_sha256: str, report: Tier1Report) -> GradingResult:
    """The (unsaved) Tier 1 result of the bundle."""
    return GradingResult(
        bundle_id=bundle_sha256,
        tier=GradingResult.Tier.TIER1,
        catalogue_version=report.catalogue_version,
        judge_version="",
        verdict=report.verdict,
        report=encode_tier1(report),
        duration_ms=report.duration_ms,
    )


def tier2_record(bundle_sha256: str, catalogue_version: str, record: Tier2Record) -> GradingResult:
    """The (unsaved) Tier 2 result: the judge's verdict on the bundle given the Tier 1 report
    of ``catalogue_version``, and the policy's decision."""
    judgement = record.judgement
    return GradingResult(
        bundle_id=bundle_sha256,
        tier=GradingResult.Tier.TIER2,
        catalogue_version=catalogue_version,
        judge_version=judgement.judge_version,
        verdict=judgement.verdict,
        score=judgement.score,
        decision=record.decision.outcome,
        report=encode_tier2(record),
        duration_ms=judgement.duration_ms,
    )


def record_tier1(bundle_sha256: str, report: Tier1Report) -> GradingResult:
    return _stored(tier1_record(bundle_sha256, report))


def record_tier2(bundle_sha256: str, catalogue_version: str, record: Tier2Record) -> GradingResult:
    return _stored(tier2_record(bundle_sha256, catalogue_version, record))


def save_all(results: list[GradingResult]) -> None:
    """Store new results in one statement; one that appeared meanwhile (another worker graded
    the same bundle with the same graders) is the same verdict, and is taken instead."""
    GradingResult.objects.bulk_create(
        results, update_conflicts=True, unique_fields=_KEY, update_fields=["verdict"]
    )


def _stored(result: GradingResult) -> GradingResult:
    stored, _ = GradingResult.objects.get_or_create(
        bundle_id=result.bundle_id,
        tier=result.tier,
        catalogue_version=result.catalogue_version,
        judge_version=result.judge_version,
        defaults={
            field: getattr(result, field)
            for field in ("verdict", "score", "decision", "report", "duration_ms")
        },
    )
    return stored
