"""The real moving parts for integration and browser tests: Celery worker processes, a web
server and the broker, started as separate OS processes against the test database."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

T = TypeVar("T")


def database_url() -> str:
    """The URL of the test database pytest-django created, for child processes."""
    db = connection.settings_dict
    return (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


def stack_environment(**overrides: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "SKILLGATE_RETRY_BACKOFF_S": "1",
        "SKILLGATE_GIT_ALLOW_FILE_URLS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(overrides)
    return env


class ManagedProcess:
    """A child process whose output is kept in a log file under test-artifacts/."""

    def __init__(self, name: str, command: list[str], env: dict[str, str]) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.name = name
        self.command = command
        self.env = env
        self.log_path = ARTIFACTS / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_for_log(self, text: str, timeout: float = 60, after: int = 0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log()[after:]:
                return
            if self.process and self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited early:\n{self.log()[-3000:]}")
            time.sleep(0.1)
        raise TimeoutError(f"{self.name} never logged {text!r}:\n{self.log()[-3000:]}")

    def stop(self, timeout: float = 20) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)


class Worker(ManagedProcess):
    """``celery -A config worker``: prefork pool, the production settings, its own name."""

    def __init__(self, env: dict[str, str], concurrency: int = 2, queues: str = "") -> None:
        self.node = f"{worker_name_prefix()}{uuid.uuid4().hex[:8]}@%h"
        command = [
            sys.executable, "-m", "celery", "-A", "config", "worker",
            "--loglevel", "INFO", "--concurrency", str(concurrency), "-n", self.node,
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        if queues:
            command += ["-Q", queues]
        super().__init__(f"worker-{self.node.split('@')[0]}", command, env)

    def start(self) -> None:
        mark = len(self.log())
        super().start()
        self.wait_for_log(" ready.", after=mark)

    def child_pids(self) -> list[int]:
        assert self.process is not None
        out = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True
        ).stdout
        return [int(pid) for pid in out.split()]


def worker_name_prefix() -> str:
    """Test workers are named after the broker vhost they serve, so a run cleans up only its
    own leftovers and never kills the workers of a run on another vhost."""
    vhost = settings.CELERY_BROKER_URL.rsplit("/", 1)[-1] or "default"
    return f"test-{re.sub(r'[^A-Za-z0-9]', '', vhost)}-"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebServer(ManagedProcess):
    """gunicorn serving config.wsgi, as in production."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        super().__init__(
            f"web-{self.port}",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi",
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                "2",
                "--access-logfile",
                "-",
            ],
            env,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        super().start()
        self.wait_for_log("Booting worker")


def wait_until(
    predicate: Callable[[], T | None],
    timeout: float = 60,
    interval: float = 0.1,
    message: str = "condition",
) -> T:
    """The predicate's first truthy value, polling every ``interval`` for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {message}")


class WorkerFleet:
    """The Celery workers of a test session: one configuration at a time, restarted only when
    a test asks for a different one (two configurations would compete for the queues)."""

    def __init__(self) -> None:
        self.workers: list[Worker] = []
        self._config: tuple | None = None
        # Workers of an earlier, interrupted run would steal this run's messages.
        subprocess.run(
            ["pkill", "-9", "-f", f"celery -A config worker .*-n {worker_name_prefix()}"],
            check=False,
        )

    def ensure(self, count: int = 1, queues: str = "", **env: str) -> list[Worker]:
        config = (count, queues, tuple(sorted(env.items())))
        alive = all(w.process and w.process.poll() is None for w in self.workers)
        if config == self._config and alive and self.workers:
            return self.workers
        self.stop_all()
        self.workers = [Worker(stack_environment(**env), queues=queues) for _ in range(count)]
        for worker in self.workers:
            worker.start()
        self._config = config
        return self.workers

    def kill_all(self) -> None:
        """SIGKILL every worker process group: no graceful shutdown, no acks."""
        for worker in self.workers:
            if worker.process and worker.process.poll() is None:
                os.killpg(worker.process.pid, signal.SIGKILL)
                worker.process.wait(10)
        self.workers, self._config = [], None

    def stop_all(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.workers, self._config = [], None


def rabbitmq(action: str) -> None:
    """Stop, start or restart the real RabbitMQ server (the tests run as root, as CI does)."""
    subprocess.run(["service", "rabbitmq-server", action], check=True, capture_output=True)
    if action in {"start", "restart"}:
        subprocess.run(
            ["rabbitmqctl", "-q", "await_startup"], check=True, capture_output=True, timeout=120
        )
