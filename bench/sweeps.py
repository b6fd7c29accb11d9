"""Stuck-recovery cost against table size: it must grow with the stuck rows, not the table.

    .venv/bin/python bench/sweeps.py [--rows 1000000] [--database-url postgres://…]

Fills a dedicated PostgreSQL database with ROWS finished submissions (plus a small table of
ROWS/100 for comparison), marks S of them stuck for S in 0, 10, 100, 500, and times one
``recover_stuck`` run each (dispatch to the broker included). Prints a table, the query plan,
and as its last line a JSON object; ``ratio_big_vs_small`` near 1 means the sweep does not
care how many finished submissions the table holds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._setup import (
    DEFAULT_BROKER_URL,
    DEFAULT_DATABASE_URL,
    copy_rows,
    prepare_broker,
    prepare_database,
)

STUCK_COUNTS = (0, 10, 100, 500)  # 500 = one full sweep batch (SKILLGATE_SWEEP_BATCH)
REPEATS = 3


def fill(rows: int) -> None:
    """(Re)create exactly ``rows`` finished submissions in seconds: one made through the ORM
    (every column its real value), copied by SQL with new ids and names."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from pipeline.models import Submission
    from registry.bundles import Bundle
    from registry.services import store_snapshot
    from skillformat.skillmd import SkillManifest

    user, _ = get_user_model().objects.get_or_create(username="bench")
    bundle = store_snapshot(
        Bundle.from_texts({"SKILL.md": "---\nname: b\ndescription: b\n---\n"}),
        SkillManifest(name="b", description="b"),
    )
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE pipeline_submissionstateevent DISABLE TRIGGER USER")
        cursor.execute("TRUNCATE pipeline_submission CASCADE")
        cursor.execute("ALTER TABLE pipeline_submissionstateevent ENABLE TRIGGER USER")
    two_days_ago = timezone.now() - timedelta(days=2)
    template = Submission.objects.create(
        state="PUBLISHED",
        skill_owner="bench",
        skill_name="template",
        source_kind=Submission.SourceKind.INLINE,
        submitter=user,
        bundle=bundle,
        deadline_at=timezone.now() + timedelta(days=1),
        outcome_kind="verdict",
        outcome_code="PUBLISHED",
        state_changed_at=two_days_ago,
    )
    with connection.cursor() as cursor:
        copy_rows(
            cursor,
            "pipeline_submission",
            "pipeline_submission t, generate_series(1, %s) AS g WHERE t.id = %s",
            {
                "id": "gen_random_uuid()",
                "skill_name": "'skill-' || g",
                "created_at": "now() - interval '2 days'",
            },
            [rows, template.pk],
        )
        cursor.execute("DELETE FROM pipeline_submission WHERE id = %s", [template.pk])
        cursor.execute("ANALYZE pipeline_submission")


def mark_stuck(count: int) -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE pipeline_submission SET state = 'TIER1_SCANNING', outcome_kind = '',
                   outcome_code = '', recovery_attempts = 0, recovery_next_at = NULL,
                   state_changed_at = now() - interval '10 minutes'
            WHERE id IN (SELECT id FROM pipeline_submission WHERE state = 'PUBLISHED' LIMIT %s)
            RETURNING id
            """,
            [count],
        )
        return [str(row[0]) for row in cursor.fetchall()]


def unmark(ids: list[str]) -> None:
    from pipeline.models import Submission

    Submission.objects.filter(pk__in=ids).update(
        state="PUBLISHED", recovery_attempts=0, recovery_next_at=None
    )


def time_sweeps(rows: int) -> dict[int, float]:
    from pipeline.services.sweeps import recover_stuck

    fill(rows)
    timings = {}
    for stuck in STUCK_COUNTS:
        samples = []
        for _ in range(REPEATS):
            ids = mark_stuck(stuck)
            started = time.perf_counter()
            report = recover_stuck()
            samples.append((time.perf_counter() - started) * 1000)
            assert len(report.acted) == stuck, (len(report.acted), stuck)
            unmark(ids)
            prepare_broker(os.environ["CELERY_BROKER_URL"])
        timings[stuck] = statistics.median(samples)
    return timings


def query_plan() -> str:
    from django.db import connection
    from django.db.models import Q
    from django.utils import timezone

    from pipeline.models import Submission
    from pipeline.services.sweeps import _AUTOMATED

    now = timezone.now()
    queryset = (
        Submission.objects.filter(state__in=_AUTOMATED, state_changed_at__lt=now)
        .filter(Q(recovery_next_at__isnull=True) | Q(recovery_next_at__lte=now))
        .order_by("state_changed_at")[:500]
    )
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    prepare_database(args.database_url)
    prepare_broker(args.broker_url)

    small_rows = max(args.rows // 100, 1000)
    small = time_sweeps(small_rows)
    big = time_sweeps(args.rows)
    plan = query_plan()

    print(f"{'stuck rows':>10} | {small_rows:>9,} rows ms | {args.rows:>11,} rows ms")
    for stuck in STUCK_COUNTS:
        print(f"{stuck:>10} | {small[stuck]:>15.1f} | {big[stuck]:>17.1f}")
    print("query plan on the big table:\n" + plan)
    figures = {
        "rows": args.rows,
        "small_rows": small_rows,
        "sweep_ms_big": {str(k): round(v, 1) for k, v in big.items()},
        "sweep_ms_small": {str(k): round(v, 1) for k, v in small.items()},
        "ratio_big_vs_small": {
            str(k): round(big[k] / small[k], 2) if small[k] else None for k in STUCK_COUNTS
        },
        "uses_partial_index": "submission_automated_age" in plan,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
