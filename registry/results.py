"""Recording grading results: once per (bundle, tier, catalogue version, judge version).

Graders are deterministic for a given catalogue and judge version, so a result that already
exists for the same key is reused: an identical resubmission, a redelivered message or a re-scan
that finds nothing new adds no row.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils import timezone

from config.statements import (
    column,
    prepared,
    single_statements,
    table,
    without_waiting_for_disk,
)
from grading.records import Tier2Record, encode_tier1, encode_tier2
from grading.types import Tier1Report
from registry.models import GradingResult

_KEY = ("bundle_id", "tier", "catalogue_version", "judge_version")
_FIELDS = (*_KEY, "verdict", "score", "decision", "report", "duration_ms", "created_at")


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
    return recorded(tier1_record(bundle_sha256, report))


def record_tier2(bundle_sha256: str, catalogue_version: str, record: Tier2Record) -> GradingResult:
    return recorded(tier2_record(bundle_sha256, catalogue_version, record))


def upsert(result: GradingResult) -> tuple[str, list[Any]]:
    """One statement (for a ``WITH`` clause) storing ``result`` or keeping the stored one with
    its key, and returning the stored row's ``id`` either way. The conflict "updates" a key
    column to itself: unlike DO NOTHING, that returns the row, also one another transaction
    stored after this statement began."""
    result.created_at = timezone.now()
    key = ", ".join(column(GradingResult, name) for name in _KEY)
    tier = column(GradingResult, "tier")
    return (
        f"INSERT INTO {table(GradingResult)}"
        f" ({', '.join(column(GradingResult, name) for name in _FIELDS)})"
        f" VALUES ({', '.join(['%s'] * len(_FIELDS))})"
        f" ON CONFLICT ({key}) DO UPDATE SET {tier} = excluded.{tier} RETURNING id",
        [prepared(GradingResult, name, getattr(result, name)) for name in _FIELDS],
    )


def save_all(results: list[GradingResult]) -> None:
    """Store new results in one statement; one that appeared meanwhile (another worker graded
    the same bundle with the same graders) is the same verdict, and is taken instead."""
    GradingResult.objects.bulk_create(
        results,
        update_conflicts=True,
        unique_fields=["bundle", "tier", "catalogue_version", "judge_version"],
        update_fields=["verdict"],
    )


def recorded(result: GradingResult) -> GradingResult:
    """The stored result with ``result``'s key: ``result`` itself, stored now, or the one
    stored before.

    On PostgreSQL a new result takes one statement (an insert that yields to an existing row).
    Outside a transaction it commits without waiting for the disk: a result is a deterministic
    fact about a bundle, cheap to compute again, and whatever later commits durably and points
    to it (a scan, a version) flushes it to disk first, the log being written in order.
    """
    key = {name: getattr(result, name) for name in _KEY}
    if not single_statements():
        stored, _ = GradingResult.objects.get_or_create(
            **key,
            defaults={name: getattr(result, name) for name in _FIELDS[len(_KEY) : -1]},
        )
        return stored
    result.created_at = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table(GradingResult)}"
            f" ({', '.join(column(GradingResult, name) for name in _FIELDS)})"
            f" VALUES ({', '.join(['%s'] * len(_FIELDS))})"
            f" ON CONFLICT ({', '.join(column(GradingResult, name) for name in _KEY)}) DO NOTHING"
            f" RETURNING id{without_waiting_for_disk()}",
            [prepared(GradingResult, name, getattr(result, name)) for name in _FIELDS],
        )
        row = cursor.fetchone()
    if row is None:
        return GradingResult.objects.get(**key)
    result.pk = row[0]
    result._state.adding = False
    result._state.db = connection.alias
    return result
