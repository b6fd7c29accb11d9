"""The benchmarks' CPU sampler: time spent in the block, by role, including processes that exit
before the block ends."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench._cpu import BENCHMARK, POSTGRESQL, RABBITMQ, WORKER_MAIN, WORKER_POOL, CpuSampler, role

BUSY = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass\n"


def busy_role(pid: int, command: str, parent_command: str) -> str | None:
    return "busy" if "process_time" in command else None


def test_a_process_that_exits_inside_the_block_keeps_the_cpu_it_used() -> None:
    with CpuSampler(busy_role, interval=0.05) as cpu:
        subprocess.run([sys.executable, "-c", BUSY], check=True)
    assert 0.45 <= cpu.seconds["busy"] <= 0.8


def test_cpu_used_before_the_block_is_not_counted() -> None:
    process = subprocess.Popen([sys.executable, "-c", BUSY + "time.sleep(5)\n"])
    try:
        deadline = time.monotonic() + 30
        while cpu_seconds_of(process.pid) < 0.6 and time.monotonic() < deadline:
            time.sleep(0.02)
        with CpuSampler(busy_role, interval=0.05) as cpu:
            subprocess.run([sys.executable, "-c", "import time; time.sleep(0.2)"], check=True)
        assert cpu.seconds.get("busy", 0.0) < 0.1
    finally:
        process.kill()
        process.wait()


def cpu_seconds_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_roles_are_told_apart_by_command_line() -> None:
    worker = "/usr/bin/python -m celery -A config worker --concurrency 1"
    assert role(1, worker, "/usr/bin/python bench/pipeline.py") == WORKER_MAIN
    assert role(2, worker, worker) == WORKER_POOL
    backend = "postgres: 15/main: skillgate skillgate_bench 127.0.0.1(5) idle"
    assert role(3, backend, "") == POSTGRESQL
    assert role(4, "/usr/lib/erlang/erts-12.2/bin/beam.smp -W w -- -root", "") == RABBITMQ
    assert role(5, "/usr/bin/python -m celery -A config beat", "") is None
    assert role(os.getpid(), "anything", "") == BENCHMARK
