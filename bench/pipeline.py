"""Pipeline throughput and end-to-end latency on RabbitMQ + PostgreSQL + 2 worker processes,
against bare 3-task Celery chains of no-op tasks on the same broker, in the same run.

    .venv/bin/python bench/pipeline.py [-n 1000] [--rate 20] [--repeats 5]

The workers start once and are warmed up; between phases they hold (their consumers are
cancelled), so each phase measures the steady state: no worker start-up, no worker joining
the drain a second after the other, no first connections in its figures.

1. pipeline: N submissions are created (the service the API calls; offline heuristic judge)
   while the workers hold, then released → pipeline throughput =
   N / (last PUBLISHED − first step started);
2. baseline: N chains of three no-op tasks queued the same way and drained by the same
   workers → bare throughput = N / (last chain finished − first task received), from the
   workers' own events;
3. paced: N submissions created at RATE per second with the workers consuming → end-to-end
   p50/p95 (created → PUBLISHED), creation included.

After each pipeline drain the operator figures are folded (the beat's job every minute,
done here once for the whole drain) inside the CPU window, so its cost is in the figures per
submission. Phases 1 and 2 alternate ``--repeats`` times; the ratio is the median of the pairs'
ratios (a pair runs within a minute or two, so a machine that slows down for a while moves both
of its sides), printed with every pair's ratio. During both drains the CPU
time of every worker process, of PostgreSQL, of RabbitMQ and of this process is read from
``/proc`` (``bench/_cpu.py``) and printed per submission and per bare chain: the ratio's why.
The last line is a JSON object with ``throughput_ratio``, ``pair_ratios``, ``e2e_p50_s``,
``e2e_p95_s``, ``cpu_ms_per_submission``, ``cpu_ms_per_bare_chain`` and the raw figures.
Targets: ratio ≥ 0.5; p95 ≤ 2 s at 20 submissions/s.
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

from bench._cpu import ROLES, CpuSampler  # noqa: E402
from bench._setup import (  # noqa: E402
    DEFAULT_BROKER_URL,
    DEFAULT_DATABASE_URL,
    prepare_broker,
    prepare_database,
    refuse_stale_workers,
    wait_for_workers,
)

WORKERS = 2


def start_workers(env: dict[str, str]) -> list[subprocess.Popen]:
    processes = []
    for index in range(WORKERS):
        log = open(ROOT / "var" / f"bench-worker-{index}.log", "wb")  # noqa: SIM115
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "1",
            "--loglevel", "WARNING", "-n", f"bench{index}-{uuid.uuid4().hex[:6]}@%h",
            "--include", "bench.noop_tasks", "--without-gossip", "--without-mingle", "-E",
        ]  # fmt: skip
        processes.append(
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        )
    return processes


def create_submissions(count: int, rate: float | None, author, tag: str) -> list[str]:
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
        time.sleep(1.0)  # the figures come from database timestamps, not from this loop
    raise TimeoutError("submissions did not all publish in time")


def end_to_end_seconds(ids: list[str]) -> list[float]:
    from pipeline.models import Submission

    rows = Submission.objects.filter(pk__in=ids).values_list("created_at", "state_changed_at")
    return sorted((done - created).total_seconds() for created, done in rows)


def queue_bare_chains(app, count: int) -> None:
    from celery import chain

    for index in range(count):
        chain(
            *[
                app.signature("bench.noop", args=(f"{index}-{step}",), immutable=True,
                              options={"queue": "skillgate.maintenance"})
                for step in range(3)
            ]
        ).apply_async()  # fmt: skip


def consumed_queues() -> list[str]:
    from config.celery import TASK_QUEUES

    return [queue.name for queue in TASK_QUEUES]


def hold(app) -> None:
    """Every worker stops taking messages (its consumers cancelled), and has said so."""
    for queue in consumed_queues():
        _broadcast_to_all(app, app.control.cancel_consumer, queue)


def release(app) -> None:
    """Every worker takes messages again, from every queue it consumed at start."""
    for queue in consumed_queues():
        _broadcast_to_all(app, app.control.add_consumer, queue)


def _broadcast_to_all(app, command, queue: str) -> None:
    replies = command(queue, reply=True, limit=WORKERS, timeout=10.0) or []
    if len(replies) < WORKERS:
        raise TimeoutError(f"only {len(replies)} of {WORKERS} workers answered for {queue}")


def drain_pipeline(app, ids: list[str], timeout: float) -> float:
    """Release the holding workers on a backlog of submissions, then hold them again once all
    are published; submissions per second, by the database's own timestamps."""
    release(app)
    try:
        wait_published(ids, timeout)
    finally:
        hold(app)
    return len(ids) / drain_seconds(ids)


def fold_figures() -> float:
    """Fold the changes the drain noted into the operator figures; milliseconds it took."""
    from pipeline.rollups import fold_pending

    started = time.perf_counter()
    fold_pending()
    return (time.perf_counter() - started) * 1000


def drain_bare_chains(app, count: int, timeout: float) -> float:
    """Release the holding workers on a backlog of ``count`` bare chains; chains per second,
    from the first task received to the last chain's final task succeeded, by the workers'
    event timestamps."""
    received: list[float] = []
    finals: list[float] = []
    done = threading.Event()

    def on_received(event: dict) -> None:
        received.append(event["timestamp"])

    def on_succeeded(event: dict) -> None:
        finals.append(event["timestamp"])
        if len(finals) == 3 * count:
            done.set()

    with app.connection() as conn:
        receiver = app.events.Receiver(
            conn, handlers={"task-received": on_received, "task-succeeded": on_succeeded}
        )
        listener = threading.Thread(
            target=lambda: receiver.capture(limit=None, timeout=timeout), daemon=True
        )
        listener.start()
        time.sleep(1.0)
        release(app)
        try:
            if not done.wait(timeout):
                raise TimeoutError(f"only {len(finals)} of {3 * count} bare tasks finished")
        finally:
            receiver.should_stop = True
            hold(app)
    return count / (max(finals) - min(received))


def warm_up(app, author, run: str, timeout: float, count: int = 50) -> None:
    """A few submissions and chains through the fresh workers, not measured: their first
    connections, prepared statements and caches are not part of any drain."""
    drain_pipeline(app, create_submissions(count, None, author, f"w{run}"), timeout)
    queue_bare_chains(app, count)
    drain_bare_chains(app, count, timeout)


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for process in workers:
        process.terminate()
    for process in workers:
        process.wait(30)


def drain_seconds(ids: list[str]) -> float:
    from django.db.models import Max, Min

    from pipeline.models import ProcessingAttempt, Submission

    first = ProcessingAttempt.objects.filter(submission_id__in=ids).aggregate(t=Min("started_at"))
    last = Submission.objects.filter(pk__in=ids).aggregate(t=Max("state_changed_at"))
    return (last["t"] - first["t"]).total_seconds()


def add_up(totals: dict[str, float], seconds: dict[str, float]) -> None:
    for role, value in seconds.items():
        totals[role] = totals.get(role, 0.0) + value


def per_item_ms(seconds: dict[str, float], items: int) -> dict[str, float]:
    return {role: round(seconds.get(role, 0.0) * 1000 / items, 2) for role in ROLES}


def print_cpu(pipeline: dict[str, float], bare: dict[str, float]) -> None:
    """CPU milliseconds per submission and per bare chain, by role, with the difference: the
    pipeline's own cost, and whose it is."""
    print(f"{'CPU ms':<14} {'per submission':>15} {'per bare chain':>15} {'difference':>11}")
    for role in (*ROLES, "total"):
        ours = sum(pipeline.values()) if role == "total" else pipeline[role]
        theirs = sum(bare.values()) if role == "total" else bare[role]
        print(f"{role:<14} {ours:>15.2f} {theirs:>15.2f} {ours - theirs:>+11.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1000, help="submissions (and bare chains)")
    parser.add_argument("--rate", type=float, default=20.0, help="paced phase, per second")
    parser.add_argument(
        "--repeats", type=int, default=5, help="alternating pipeline/bare pairs (median)"
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--broker-url", default=DEFAULT_BROKER_URL)
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = args.broker_url
    os.environ["SKILLGATE_SUBMISSION_RATE"] = "1000000/hour"
    prepare_database(args.database_url)

    from django.contrib.auth import get_user_model

    from config.celery import app

    app.conf.update(broker_url=args.broker_url)
    refuse_stale_workers(app)
    prepare_broker(args.broker_url)
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url}
    author, _ = get_user_model().objects.get_or_create(username=f"bench-{uuid.uuid4().hex[:6]}")
    run = uuid.uuid4().hex[:6]
    timeout = max(120, args.n)

    workers = start_workers(env)
    try:
        wait_for_workers(app, WORKERS)
        hold(app)
        warm_up(app, author, run, timeout)
        fold_figures()
        pipeline_runs, bare_runs, fold_ms = [], [], []
        pipeline_cpu: dict[str, float] = {}
        bare_cpu: dict[str, float] = {}
        for repeat in range(args.repeats):
            backlog_ids = create_submissions(args.n, None, author, f"b{run}{repeat}")
            with CpuSampler() as cpu:
                pipeline_runs.append(drain_pipeline(app, backlog_ids, timeout))
                fold_ms.append(fold_figures())
            add_up(pipeline_cpu, cpu.seconds)

            queue_bare_chains(app, args.n)
            with CpuSampler() as cpu:
                bare_runs.append(drain_bare_chains(app, args.n, timeout))
            add_up(bare_cpu, cpu.seconds)

        release(app)
        paced_ids = create_submissions(args.n, args.rate, author, f"p{run}")
        wait_published(paced_ids, timeout)
    finally:
        stop_workers(workers)
    latencies = end_to_end_seconds(paced_ids)
    pair_ratios = [ours / theirs for ours, theirs in zip(pipeline_runs, bare_runs, strict=True)]
    pipeline_throughput = statistics.median(pipeline_runs)
    bare_throughput = statistics.median(bare_runs)

    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    figures = {
        "n": args.n,
        "workers": WORKERS,
        "pipeline_per_s": round(pipeline_throughput, 1),
        "bare_chains_per_s": round(bare_throughput, 1),
        "pipeline_runs_per_s": [round(value, 1) for value in pipeline_runs],
        "bare_runs_per_s": [round(value, 1) for value in bare_runs],
        "throughput_ratio": round(statistics.median(pair_ratios), 3),
        "pair_ratios": [round(value, 3) for value in pair_ratios],
        "paced_rate_per_s": args.rate,
        "e2e_p50_s": round(cuts[49], 3),
        "e2e_p95_s": round(cuts[94], 3),
        "e2e_max_s": round(latencies[-1], 3),
        "fold_ms_per_drain": [round(value, 1) for value in fold_ms],
        "cpu_ms_per_submission": per_item_ms(pipeline_cpu, args.n * args.repeats),
        "cpu_ms_per_bare_chain": per_item_ms(bare_cpu, args.n * args.repeats),
    }
    print(f"pipeline (drain)   {figures['pipeline_per_s']:>8} submissions/s")
    print(f"bare 3-task chains {figures['bare_chains_per_s']:>8} chains/s")
    print(f"ratio              {figures['throughput_ratio']:>8}  (median of the pairs: "
          f"{', '.join(str(value) for value in figures['pair_ratios'])})")  # fmt: skip
    print(f"end to end at {args.rate:g}/s  p50 {figures['e2e_p50_s']} s  "
          f"p95 {figures['e2e_p95_s']} s  max {figures['e2e_max_s']} s")  # fmt: skip
    print(f"figures folded after each drain of {args.n}: "
          f"{', '.join(f'{value:.0f}' for value in fold_ms)} ms")  # fmt: skip
    print_cpu(figures["cpu_ms_per_submission"], figures["cpu_ms_per_bare_chain"])
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
