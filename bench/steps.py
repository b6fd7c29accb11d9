"""Where a pipeline step's time goes: per step, its wall time, its round trips to the database
(statements among them) and their time, against one bare database round trip measured in the
same run.

    .venv/bin/python bench/steps.py [-n 300] [--database-url URL]

Runs the three steps of the chain (intake + Tier 1, judge, publish) in this process on ``-n``
new submissions of a small benign skill, in their own database (``skillgate_steps``, made
anew), the way a worker runs them but without the broker: each step between the connection
hooks a task runs (``close_old_connections``, config/celery.py), so the connection's health
check is counted as a worker pays it. The broker's part (a publish per step) is what
``bench/pipeline.py`` adds on top. Every round trip is timed at the driver: statements
(``connection.execute_wrapper``), the BEGIN psycopg sends before a transaction's first
statement (counted, its time is in that statement's), the COMMIT that ends it and the health
check's ``SELECT 1``. "other" is the rest of the step: grading, Python, the ORM building and
reading rows. Tier 1 and the judge alone on the same bundle are timed too, so "other" minus
grading is the framework's own cost. Prints a table and, as its last line, a JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._setup import database_url, prepare_database

DEFAULT_DATABASE_URL = database_url("_steps")
SKILL_MD = """---
name: {name}
description: Keeps short notes in a local markdown file and lists them on request.
---

# Note taker

Append a note with `scripts/note.py add "text"`; list them with `scripts/note.py list`.
"""
NOTE_PY = """import sys
from pathlib import Path

NOTES = Path.home() / "notes.md"


def main() -> None:
    if sys.argv[1] == "add":
        with NOTES.open("a") as out:
            out.write("- " + " ".join(sys.argv[2:]) + "\\n")
    else:
        print(NOTES.read_text() if NOTES.exists() else "")


main()
"""


@dataclass
class RoundTrips:
    """Round trips to the database and their time at the driver, while ``counting``: the
    statements, and of the others the BEGIN, COMMIT and health checks (see the module's
    docstring)."""

    trips: int = 0
    statements: int = 0
    seconds: float = 0.0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, ctx: Any):
        from django.db import connection
        from psycopg.pq import TransactionStatus

        if (
            not connection.get_autocommit()
            and connection.connection.info.transaction_status == TransactionStatus.IDLE
        ):
            self.trips += 1  # psycopg begins the transaction first
        self.statements += 1
        return self.timed(execute)(sql, params, many, ctx)

    def timed(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(*args)
            finally:
                self.seconds += time.perf_counter() - started
                self.trips += 1

        return counted


@dataclass
class StepFigures:
    wall_ms: list[float] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)
    database_ms: list[float] = field(default_factory=list)

    def row(self) -> dict[str, float]:
        wall = statistics.median(self.wall_ms)
        database = statistics.median(self.database_ms)
        return {
            "wall_ms": round(wall, 2),
            "round_trips": statistics.median(self.round_trips),
            "statements": statistics.median(self.statements),
            "database_ms": round(database, 2),
            "other_ms": round(wall - database, 2),
        }


@contextmanager
def measured(figures: StepFigures) -> Iterator[None]:
    """Time the block as a task runs it: between the task hooks' connection checks."""
    from django.db import close_old_connections, connection

    counting = RoundTrips()
    started = time.perf_counter()
    # The health check and the commit go around the statements' wrapper: counted here.
    with (
        patch.object(connection, "is_usable", counting.timed(connection.is_usable)),
        patch.object(connection, "commit", counting.timed(connection.commit)),
        connection.execute_wrapper(counting),
    ):
        close_old_connections()
        yield
        close_old_connections()
    figures.wall_ms.append((time.perf_counter() - started) * 1000)
    figures.round_trips.append(counting.trips)
    figures.statements.append(counting.statements)
    figures.database_ms.append(counting.seconds * 1000)


def new_submission(author: Any, index: int) -> str:
    from datetime import timedelta

    from django.utils import timezone

    from pipeline.models import Submission
    from pipeline.states import State
    from pipeline.transitions import Actor, record_received
    from registry.bundles import Bundle
    from registry.services import store_snapshot
    from skillformat.skillmd import parse_manifest

    name = f"note-taker-{index}"
    skill_md = SKILL_MD.format(name=name)
    bundle = Bundle.from_texts({"SKILL.md": skill_md, "scripts/note.py": NOTE_PY})
    now = timezone.now()
    submission = Submission.objects.create(
        skill_owner=author.username,
        skill_name=name,
        source_kind=Submission.SourceKind.INLINE,
        submitter=author,
        bundle=store_snapshot(bundle, parse_manifest(skill_md)),
        deadline_at=now + timedelta(minutes=30),
        state=State.RECEIVED,
        state_changed_at=now,
    )
    record_received(submission, "bench", Actor.system())
    return str(submission.pk)


def round_trip_ms(repeats: int = 200) -> float:
    from django.db import connection

    times = []
    with connection.cursor() as cursor:
        for _ in range(repeats):
            started = time.perf_counter()
            cursor.execute("SELECT 1")
            cursor.fetchone()
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def grading_ms(repeats: int = 50) -> dict[str, float]:
    from grading import tier1
    from grading.judges import get_judge
    from registry.bundles import Bundle

    files = Bundle.from_texts(
        {"SKILL.md": SKILL_MD.format(name="note-taker"), "scripts/note.py": NOTE_PY}
    ).scan_input()
    judge = get_judge()
    scans, judgements = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        report = tier1.scan(files)
        scans.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        judge.judge(files, report)
        judgements.append((time.perf_counter() - started) * 1000)
    return {
        "tier1_ms": round(statistics.median(scans), 2),
        "judge_ms": round(statistics.median(judgements), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=300, help="submissions")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    prepare_database(args.database_url, fresh=True)

    from django.contrib.auth import get_user_model

    from pipeline.services import steps
    from pipeline.services.attempts import StepContext

    author, _ = get_user_model().objects.get_or_create(username="bench-author")
    ids = [new_submission(author, index) for index in range(args.n)]
    chain = (
        ("intake+scan", "pipeline.scan", steps.run_intake_and_scan),
        ("judge", "pipeline.judge", steps.run_judge),
        ("publish", "pipeline.publish", steps.run_publish),
    )
    figures = {label: StepFigures() for label, _, _ in chain}
    for submission_id in ids:
        for label, task_name, step in chain:
            context = StepContext(task_name, f"{submission_id}-{task_name}", "bench@host")
            with measured(figures[label]):
                step(submission_id, context)

    baseline = round_trip_ms()
    rows = {label: step_figures.row() for label, step_figures in figures.items()}
    total = {
        key: round(sum(row[key] for row in rows.values()), 2)
        for key in ("wall_ms", "round_trips", "statements", "database_ms", "other_ms")
    }
    print(
        f"{'step':<12} {'wall ms':>8} {'trips':>6} {'stmts':>6} {'db ms':>7} {'other ms':>9}"
        f" {'× trip':>7}"
    )
    for label, row in [*rows.items(), ("total", total)]:
        print(
            f"{label:<12} {row['wall_ms']:>8} {row['round_trips']:>6} {row['statements']:>6}"
            f" {row['database_ms']:>7} {row['other_ms']:>9} {row['wall_ms'] / baseline:>7.1f}"
        )
    grading = grading_ms()
    print(f"one round trip (SELECT 1): {baseline:.3f} ms; grading alone: {grading}")
    print(
        json.dumps(
            {
                "submissions": args.n,
                "steps": rows,
                "total": total,
                "round_trip_ms": round(baseline, 3),
                "ratio_total_to_round_trip": round(total["wall_ms"] / baseline, 1),
                **grading,
            }
        )
    )


if __name__ == "__main__":
    main()
