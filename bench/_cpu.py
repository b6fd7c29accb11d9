"""CPU time by process role while a benchmark phase runs, read from ``/proc`` (Linux).

A throughput ratio says how far the pipeline is from the bare broker, not why: on a small
machine the workers, PostgreSQL and RabbitMQ share the same cores, so the question is which of
them spends the CPU each submission costs. The sampler reads every process's CPU time ten times
a second; a process that exits during the phase (a worker stopped at its end) keeps the time it
had used at its last sample, so up to a tenth of a second of its last work is missed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

PROC = Path("/proc")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

WORKER_POOL = "worker pool"
WORKER_MAIN = "worker main"
POSTGRESQL = "postgresql"
RABBITMQ = "rabbitmq"
BENCHMARK = "benchmark"
ROLES = (WORKER_POOL, WORKER_MAIN, POSTGRESQL, RABBITMQ, BENCHMARK)

Classifier = Callable[[int, str, str], str | None]


def _read_process(pid: int) -> tuple[str, int, float] | None:
    """The command line, parent pid and CPU seconds (user + system) of ``pid``; None if gone."""
    try:
        command = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        stat = (PROC / str(pid) / "stat").read_text()
    except (OSError, UnicodeDecodeError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, …
    return command, int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _command_of(pid: int) -> str:
    process = _read_process(pid)
    return process[0] if process else ""


def role(pid: int, command: str, parent_command: str) -> str | None:
    """Which part of the system a process is, for the roles a pipeline benchmark compares;
    None for the rest of the machine."""
    if pid == os.getpid():
        return BENCHMARK
    if command.startswith("postgres"):
        return POSTGRESQL
    if "beam.smp" in command or "erl_child_setup" in command:
        return RABBITMQ
    if "celery" in command and " worker" in command:
        return WORKER_POOL if "celery" in parent_command else WORKER_MAIN
    return None


class CpuSampler:
    """``with CpuSampler() as cpu: …`` then ``cpu.seconds`` — CPU seconds per role spent
    inside the block, by processes that ran then (those alive at the start count from their
    time at the start)."""

    def __init__(self, classify: Classifier = role, interval: float = 0.1) -> None:
        self._classify = classify
        self._interval = interval
        self._start: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._roles: dict[int, str] = {}
        self._ignored: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.seconds: dict[str, float] = {}

    def __enter__(self) -> CpuSampler:
        self._sample(starting=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        totals: dict[str, float] = {}
        for pid, cpu in self._last.items():
            name = self._roles[pid]
            totals[name] = totals.get(name, 0.0) + cpu - self._start.get(pid, 0.0)
        self.seconds = totals

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def _sample(self, starting: bool = False) -> None:
        if not PROC.is_dir():
            return
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            if pid in self._ignored:
                continue
            process = _read_process(pid)
            if process is None:
                continue
            command, parent, cpu = process
            if pid not in self._roles:
                name = self._classify(pid, command, _command_of(parent))
                if name is None:
                    self._ignored.add(pid)
                    continue
                self._roles[pid] = name
                if starting:
                    self._start[pid] = cpu
            self._last[pid] = cpu
