"""Seed 001 AD-004: failures counted per classification in hourly buckets, by atomic upsert."""

from __future__ import annotations

from datetime import datetime

from django.db import connection
from django.utils import timezone

from pipeline.models import TimeoutBucket

_UPSERT = f"""
INSERT INTO {TimeoutBucket._meta.db_table} (hour, classification, count, total_duration_ms)
VALUES (%s, %s, 1, %s)
ON CONFLICT (hour, classification) DO UPDATE SET
    count = {TimeoutBucket._meta.db_table}.count + 1,
    total_duration_ms = {TimeoutBucket._meta.db_table}.total_duration_ms
                        + excluded.total_duration_ms
"""


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def record_timeout(classification: str, duration_ms: float, at: datetime | None = None) -> None:
    """Count one failure of ``classification`` in its hour; safe under any concurrency."""
    hour = hour_of(at or timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(_UPSERT, [hour, classification, duration_ms])
