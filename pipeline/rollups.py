"""Reading the figures the database keeps as the data changes (pipeline.models): a few hundred
small rows instead of a million submissions and their events, so every operator view costs what
it shows, not the history.

On PostgreSQL the tables' triggers note each change in a log and a fold adds the log to the
figures (migration 0020): every reader here folds first, so what it reads includes every change
committed before it; folds are serialised and count each change once. SQLite counts in place.

Counts are exact. Latency percentiles are estimated from fixed log-spaced buckets (four per
doubling): an estimate lies in the bucket of the true value, within 19 % of it.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from datetime import datetime

from django.db import connection
from django.db.models import Sum

from pipeline.models import (
    HourlyStageLatency,
    HourlyStepMessages,
    HourlyTransitions,
    StateCount,
    TransitionTotal,
)
from pipeline.states import State

BUCKET_BOUNDS_MS: tuple[float, ...] = tuple(2 ** (i / 4) for i in range(121))
"""Bucket k holds latencies v with BUCKET_BOUNDS_MS[k-1] <= v < BUCKET_BOUNDS_MS[k] (ms);
bucket 0 those under 1 ms, the last one those of 2^30 ms (12.4 days) or more. Frozen in
migration 0016, which assigns the buckets."""
END_TO_END = "END_TO_END"
"""The histogram of submission → final state, for submissions that finished without human
review (the other histograms are keyed by the state whose dwell time they hold)."""


def bucket_of(latency_ms: float) -> int:
    """The bucket the database puts ``latency_ms`` in (PostgreSQL's ``width_bucket``)."""
    return bisect.bisect_right(BUCKET_BOUNDS_MS, latency_ms)


def fold_pending() -> int:
    """Add the changes noted since the last fold to the figures; how many there were."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pipeline_fold_figures()")
        return cursor.fetchone()[0]


def submissions_by_state() -> dict[str, int]:
    """Submissions per current state, every state present."""
    fold_pending()
    counts = dict(StateCount.objects.values_list("state").annotate(n=Sum("count")).order_by())
    return {state.value: counts.get(state.value, 0) for state in State}


def transitions_by_hour(first_hour: datetime) -> dict[datetime, dict[str, int]]:
    """Transitions per hour since ``first_hour`` (included), by target state."""
    fold_pending()
    rows = (
        HourlyTransitions.objects.filter(hour__gte=first_hour)
        .values_list("hour", "to_state")
        .annotate(n=Sum("count"))
        .order_by()
    )
    counts: dict[datetime, dict[str, int]] = defaultdict(dict)
    for hour, to_state, n in rows:
        counts[hour][to_state] = n
    return counts


def transitions_total() -> dict[str, int]:
    """Transitions ever made, by target state."""
    fold_pending()
    return dict(TransitionTotal.objects.values_list("to_state").annotate(n=Sum("count")).order_by())


def latency_histograms(first_hour: datetime, stages: list[str]) -> dict[str, dict[int, int]]:
    """Per stage: count per bucket since ``first_hour`` (included)."""
    fold_pending()
    rows = (
        HourlyStageLatency.objects.filter(hour__gte=first_hour, stage__in=stages)
        .values_list("stage", "bucket")
        .annotate(n=Sum("count"))
        .order_by()
    )
    histograms: dict[str, dict[int, int]] = {stage: {} for stage in stages}
    for stage, bucket, n in rows:
        histograms[stage][bucket] = n
    return histograms


def step_messages(first_hour: datetime) -> int:
    """Step messages whose first attempt started since ``first_hour`` (included)."""
    fold_pending()
    total = HourlyStepMessages.objects.filter(hour__gte=first_hour).aggregate(n=Sum("count"))["n"]
    return total or 0


def percentiles(histogram: dict[int, int]) -> tuple[float | None, float | None, int]:
    """Estimated p50 and p95 (ms) and the number of values of a histogram: the rank of each
    quantile as ``statistics.quantiles(method="inclusive")`` takes it, placed inside its bucket
    by geometric interpolation."""
    total = sum(histogram.values())
    if not total:
        return None, None, 0
    return _quantile(histogram, total, 0.50), _quantile(histogram, total, 0.95), total


def _quantile(histogram: dict[int, int], total: int, q: float) -> float:
    rank = q * (total - 1)
    seen = 0
    for bucket in sorted(histogram):
        count = histogram[bucket]
        if rank < seen + count:
            return round(_inside(bucket, (rank - seen + 0.5) / count), 1)
        seen += count
    return round(_inside(max(histogram), 1.0), 1)


def _inside(bucket: int, fraction: float) -> float:
    """The value ``fraction`` of the way through ``bucket`` (geometrically; linearly under 1 ms;
    the open last bucket answers its lower bound)."""
    if bucket == 0:
        return BUCKET_BOUNDS_MS[0] * fraction
    low = BUCKET_BOUNDS_MS[bucket - 1]
    if bucket == len(BUCKET_BOUNDS_MS):
        return low
    return low * (BUCKET_BOUNDS_MS[bucket] / low) ** fraction
