"""Pipeline throughput and end-to-end latency on RabbitMQ + PostgreSQL + 2 worker processes,
against bare 3-task Celery chains of no-op tasks on the same broker, in the same run.

    .venv/bin/python bench/pipeline.py [-n 1000] [--rate 20]

1. burst: N submissions created as fast as possible (the service the API calls, offline
   heuristic judge) → pipeline throughput = N / time until the last is PUBLISHED;
2. paced: N submissions at RATE per second → end-to-end p50/p95 (RECEIVED → PUBLISHED);
3. baseline: N chains of three no-op tasks as fast as possible on the same broker and workers.

The last line is a JSON object with ``throughput_ratio`` (pipeline / bare), ``e2e_p50_s``,
``e2e_p95_s`` and the raw figures. Targets: ratio ≥ 0.5; p95 ≤ 2 s at 20 submissions/s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._setup import DEFAULT_BROKER_URL, DEFAULT_DATABASE_URL, prepare_database  # noqa: E402

WORKERS = 2


def start_workers(env: dict[str, str]) -> list[subprocess.Popen]:
    processes = []
    for index in range(WORKERS):
        log = open(ROOT / "var" / f"bench-worker-{index}.log", "wb")  # noqa: SIM115
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "1",
            "--loglevel", "WARNING", "-n", f"bench{index}-{uuid.uuid4().hex[:6]}@%h",
            "--include", "bench.noop_tasks", "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        processes.append(
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        )
    return processes


def wait_for_workers(app, count: int, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=1.0) or []
        if len(replies) >= count:
            return
    raise TimeoutError("the benchmark workers did not start")


def create_submissions(count: int, rate: float | None, author, tag: str) -> list[str]:  # type: ignore[no-untyped-def]
    from pipeline.services.submissions import SubmissionRequest, create_submission

    ids = []
    started = time.perf_counter()
    for index in range(count):
        if rate:
            delay = started + index / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        skill = (
            f"---\nname: bench-{tag}-{index}\ndescription: Formats meeting notes.\n---\n"
            "# Notes\nTurn the user's notes into a tidy bulleted summary.\n"
        )
        request = SubmissionRequest(files={"SKILL.md": skill})
        ids.append(str(create_submission(author, request, trigger="bench").pk))
    return ids


def wait_published(ids: list[str], timeout: float) -> float:
    from pipeline.models import Submission

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        remaining = Submission.objects.filter(pk__in=ids).exclude(state="PUBLISHED").count()
        if remaining == 0:
            return time.perf_counter()
        time.sleep(0.05)
    raise TimeoutError("submissions did not all publish in time")


def end_to_end_seconds(ids: list[str]) -> list[float]:
    from pipeline.models import Submission

    rows = Submission.objects.filter(pk__in=ids).values_list("created_at", "state_changed_at")
    return sorted((done - created).total_seconds() for created, done in rows)


def bare_chains(app, count: int, timeout: float) -> float:  # type: ignore[no-untyped-def]
    """Seconds for ``count`` chains of three no-op tasks, measured by worker events."""
    from celery import chain

    finals: set[str] = set()
    done = threading.Event()

    def on_succeeded(event: dict) -> None:
        if event["uuid"] in final_ids:
            finals.add(event["uuid"])
            if len(finals) == count:
                done.set()

    final_ids: set[str] = set()
    with app.connection() as conn:
        receiver = app.events.Receiver(conn, handlers={"task-succeeded": on_succeeded})
        listener = threading.Thread(
            target=lambda: receiver.capture(limit=None, timeout=timeout), daemon=True
        )
        listener.start()
        time.sleep(1.0)
        started = time.perf_counter()
        for index in range(count):
            tasks = [app.signature("bench.noop", args=(f"{index}-{step}",), immutable=True,
                                   options={"queue": "skillgate.maintenance"})
                     for step in range(3)]  # fmt: skip
            final_id = str(uuid.uuid4())
            tasks[-1].set(task_id=final_id)
            final_ids.add(final_id)
            chain(*tasks).apply_async()
        if not done.wait(timeout):
            raise TimeoutError(f"only {len(finals)} of {count} bare chains finished")
        receiver.should_stop = True
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000, help="submissions (and bare chains)")
    parser.add_argument("--rate", type=float, default=20.0, help="paced phase, per second")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    os.environ["SKILLGATE_SUBMISSION_RATE"] = "1000000/hour"
    prepare_database(args.database_url)

    from django.contrib.auth import get_user_model

    from config.celery import TASK_QUEUES, app

    with app.connection() as conn:
        for queue in TASK_QUEUES:
            queue(conn.default_channel).declare()
            queue(conn.default_channel).purge()
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url}
    workers = start_workers(env)
    try:
        wait_for_workers(app, WORKERS)
        author, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")

        run = uuid.uuid4().hex[:6]
        started = time.perf_counter()
        burst_ids = create_submissions(args.n, None, author, f"b{run}")
        finished = wait_published(burst_ids, timeout=max(120, args.n))
        pipeline_throughput = args.n / (finished - started)

        paced_ids = create_submissions(args.n, args.rate, author, f"p{run}")
        wait_published(paced_ids, timeout=max(120, args.n))
        latencies = end_to_end_seconds(paced_ids)

        bare_seconds = bare_chains(app, args.n, timeout=max(120, args.n))
        bare_throughput = args.n / bare_seconds
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            process.wait(30)

    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    figures = {
        "n": args.n,
        "workers": WORKERS,
        "pipeline_per_s": round(pipeline_throughput, 1),
        "bare_chains_per_s": round(bare_throughput, 1),
        "throughput_ratio": round(pipeline_throughput / bare_throughput, 3),
        "paced_rate_per_s": args.rate,
        "e2e_p50_s": round(cuts[49], 3),
        "e2e_p95_s": round(cuts[94], 3),
        "e2e_max_s": round(latencies[-1], 3),
    }
    print(f"pipeline (burst)   {figures['pipeline_per_s']:>8} submissions/s")
    print(f"bare 3-task chains {figures['bare_chains_per_s']:>8} chains/s")
    print(f"ratio              {figures['throughput_ratio']:>8}")
    print(f"end to end at {args.rate:g}/s  p50 {figures['e2e_p50_s']} s  "
          f"p95 {figures['e2e_p95_s']} s  max {figures['e2e_max_s']} s")  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
