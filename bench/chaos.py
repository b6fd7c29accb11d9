"""The chaos soak: submissions posted over HTTP while faults are injected on a schedule into a
real stack (gunicorn, Celery workers, beat, PostgreSQL, RabbitMQ), then the invariants checked
in SQL and printed as a table.

    .venv/bin/python bench/chaos.py [-n 1800] [--rate 15] [--workers 2]
        [--fault kill-workers@10+35] [--fault pg-stop@40+20] [--settle-timeout 600]

The stack is the run's own: a PostgreSQL cluster created for it (``pg_createcluster``, on a free
port, dropped at the end), so stopping its PostgreSQL disturbs nobody else's database, and a
RabbitMQ vhost of its own (deleted at the end). Run it as root (it manages a cluster), on a
machine with Debian's PostgreSQL and RabbitMQ (``scripts/services.sh start``).

Faults (``NAME@AT+FOR``, seconds from the first submission; repeat ``--fault`` for more):

* ``kill-worker@AT+FOR``: SIGKILL one worker (process group), start it again FOR s later;
* ``kill-workers@AT+FOR``: the same for every worker (a backlog builds meanwhile);
* ``pg-stop@AT+FOR``: stop PostgreSQL (``pg_ctlcluster … stop -m fast``), start it FOR s later;
* ``broker-blip@AT``: close every connection to the run's vhost (the broker drops its clients);
* ``kill-beat@AT+FOR``: SIGKILL beat, start it FOR s later.

Once the last fault is undone it times how soon every submission accepted until then is final
(the backlog cleared); after the last post it waits until none is left in an automated state
(settled). Each wait ends when submission-dlq also holds exactly the open dead letters, and
lasts at most ``--settle-timeout`` s. Then it prints the invariants table, and last a JSON line
with every figure. It exits 1 when an invariant does not hold or a wait ran out. The sweeps run
on tightened thresholds (stuck after 20 s) so a run settles in bounded time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_USER = "skillgate"
PG_PASSWORD = "skillgate"  # a throw-away cluster on 127.0.0.1
MQ_URL = os.environ.get("CHAOS_RABBITMQ", "amqp://skillgate:skillgate@127.0.0.1:5672")
TIGHT_SETTINGS = {
    "SKILLGATE_STUCK_AFTER_S": "20",
    "SKILLGATE_RECOVERY_BACKOFF_S": "5",
    "SKILLGATE_RECOVERY_MAX_TRIES": "5",
    "SKILLGATE_UNDELIVERED_AFTER_S": "5",
    "SKILLGATE_DLQ_RECONCILE_EVERY_S": "10",
    "SKILLGATE_SUBMISSION_RATE": "1000000/hour",
    "SKILLGATE_DEV_MODE": "1",
    "SKILLGATE_ENV_FILE": "",
    "DJANGO_HTTPS": "false",
    "PYTHONUNBUFFERED": "1",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(*command: str, timeout: float = 120) -> str:
    return subprocess.run(
        command, check=True, capture_output=True, text=True, timeout=timeout
    ).stdout


class PostgresCluster:
    """A PostgreSQL cluster of the run's own (Debian's ``pg_createcluster``)."""

    def __init__(self) -> None:
        versions = sorted(Path("/usr/lib/postgresql").iterdir(), key=lambda p: int(p.name))
        if not versions or shutil.which("pg_createcluster") is None:
            raise SystemExit("chaos needs Debian's PostgreSQL (scripts/services.sh start)")
        self.version = versions[-1].name
        self.name = f"chaos{uuid.uuid4().hex[:8]}"
        self.port = free_port()

    def create(self) -> None:
        run("pg_createcluster", self.version, self.name, "-p", str(self.port), timeout=300)
        self.start()
        self.psql(f"CREATE ROLE {PG_USER} LOGIN SUPERUSER PASSWORD '{PG_PASSWORD}'")

    def psql(self, sql: str) -> None:
        run("su", "postgres", "-c", f'psql -q -p {self.port} -c "{sql}"')

    def start(self) -> None:
        run("pg_ctlcluster", self.version, self.name, "start", timeout=120)

    def stop(self) -> None:
        run("pg_ctlcluster", self.version, self.name, "stop", "-m", "fast", timeout=120)

    def drop(self) -> None:
        subprocess.run(
            ["pg_dropcluster", self.version, self.name, "--stop"], capture_output=True, check=False
        )

    def url(self, database: str) -> str:
        return f"postgres://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{self.port}/{database}"


class Vhost:
    """A RabbitMQ vhost of the run's own."""

    def __init__(self) -> None:
        self.name = f"skillgate-chaos-{uuid.uuid4().hex[:8]}"
        self.url = f"{MQ_URL}/{self.name}"

    def create(self) -> None:
        run("rabbitmqctl", "-q", "add_vhost", self.name)
        run("rabbitmqctl", "-q", "set_permissions", "-p", self.name, PG_USER, ".*", ".*", ".*")

    def blip(self) -> None:
        run("rabbitmqctl", "-q", "close_all_connections", "-p", self.name, "chaos: broker blip")

    def delete(self) -> None:
        subprocess.run(["rabbitmqctl", "-q", "delete_vhost", self.name], capture_output=True)


class Process:
    def __init__(self, name: str, command: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.command, self.env = name, command, env
        self.log = logs / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        log = self.log.open("ab")
        self.popen = subprocess.Popen(
            self.command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.starts += 1

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self) -> None:
        if self.alive():
            assert self.popen is not None
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)

    def stop(self) -> None:
        if self.alive():
            assert self.popen is not None
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass(frozen=True)
class Fault:
    kind: str
    at: float
    lasting: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Fault:
        kind, _, when = text.partition("@")
        at, _, lasting = when.partition("+")
        if kind not in {"kill-worker", "kill-workers", "pg-stop", "broker-blip", "kill-beat"}:
            raise argparse.ArgumentTypeError(f"unknown fault {kind!r}")
        return cls(kind, float(at), float(lasting or 0))


@dataclass
class Posting:
    accepted: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Stack:
    def __init__(self, workers: int, logs: Path) -> None:
        self.cluster = PostgresCluster()
        self.vhost = Vhost()
        self.logs = logs
        self.port = free_port()
        self.worker_count = workers
        self.env: dict[str, str] = {}
        self.workers: list[Process] = []
        self.beat: Process | None = None
        self.web: Process | None = None
        self.events: list[tuple[float, str]] = []

    def up(self) -> None:
        self.cluster.create()
        self.vhost.create()
        database_url = self.cluster.url("skillgate")
        self.env = {
            **os.environ,
            **TIGHT_SETTINGS,
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": self.vhost.url,
        }
        os.environ.update({k: v for k, v in self.env.items() if k not in os.environ})
        os.environ["DATABASE_URL"], os.environ["CELERY_BROKER_URL"] = (
            database_url,
            self.vhost.url,
        )
        from bench._setup import prepare_broker, prepare_database

        prepare_database(database_url)
        prepare_broker(self.vhost.url)
        python = sys.executable
        for index in range(self.worker_count):
            self.workers.append(
                Process(
                    f"worker{index}",
                    [python, "-m", "celery", "-A", "config", "worker", "--concurrency", "2",
                     "--loglevel", "INFO", "-n", f"chaos{index}-{uuid.uuid4().hex[:6]}@%h",
                     "--without-gossip", "--without-mingle"],
                    self.env,
                    self.logs,
                )
            )  # fmt: skip
        self.beat = Process(
            "beat",
            [python, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
             "--schedule", str(self.logs / "beat-schedule")],
            self.env,
            self.logs,
        )  # fmt: skip
        self.web = Process(
            "web",
            [python, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{self.port}",
             "--workers", "2", "--access-logfile", "-"],
            self.env,
            self.logs,
        )  # fmt: skip
        for process in (*self.workers, self.beat, self.web):
            process.start()
        self._wait_ready()

    def _wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready = all(" ready." in w.log.read_text(errors="replace") for w in self.workers)
            try:
                with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=2):
                    pass
            except OSError:
                ready = False
            if ready:
                return
            time.sleep(0.5)
        raise SystemExit(f"the stack did not start in {timeout:.0f}s: see {self.logs}")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def down(self) -> None:
        for process in (*self.workers, self.beat, self.web):
            if process is not None:
                process.stop()
        from django.db import connections

        connections.close_all()
        self.vhost.delete()
        self.cluster.drop()

    def note(self, started: float, what: str) -> None:
        self.events.append((round(time.monotonic() - started, 1), what))
        print(f"  t={time.monotonic() - started:6.1f}s {what}", flush=True)

    def inject(self, fault: Fault, started: float) -> None:
        """Apply ``fault`` now and undo it ``fault.lasting`` seconds later (blocking)."""
        if fault.kind == "broker-blip":
            self.vhost.blip()
            self.note(started, "broker: every connection of the vhost closed")
            return
        if fault.kind == "pg-stop":
            self.cluster.stop()
            self.note(started, "PostgreSQL stopped")
            time.sleep(fault.lasting)
            self.cluster.start()
            self.note(started, "PostgreSQL started")
            return
        victims = {
            "kill-worker": self.workers[:1],
            "kill-workers": self.workers,
            "kill-beat": [self.beat] if self.beat else [],
        }[fault.kind]
        for victim in victims:
            victim.kill()
        self.note(started, f"SIGKILL {', '.join(v.name for v in victims)}")
        time.sleep(fault.lasting)
        for victim in victims:
            victim.start()
        self.note(started, f"started {', '.join(v.name for v in victims)} again")


def post_submissions(
    stack: Stack, tokens: list[str], count: int, rate: float, posting: Posting
) -> None:
    """POST ``count`` submissions at ``rate`` per second from 4 threads; keep the ids of the
    accepted ones and every status code in ``posting``."""
    run_id = uuid.uuid4().hex[:6]
    started = time.monotonic()
    slots = iter(range(count))
    slot_lock = threading.Lock()

    def poster() -> None:
        while True:
            with slot_lock:
                index = next(slots, None)
            if index is None:
                return
            delay = started + index / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            name = f"chaos-{run_id}-{index}"
            body = json.dumps(
                {
                    "files": {
                        "SKILL.md": f"---\nname: {name}\ndescription: Keeps tidy notes.\n---\n"
                        f"# {name}\n\nWrite the notes the user dictates as a bulleted list.\n"
                    }
                }
            ).encode()
            request = urllib.request.Request(
                f"{stack.base_url}/api/v1/submissions",
                data=body,
                method="POST",
                headers={
                    "Content-Type": "application/json",
                    "Authorization": f"Token {tokens[index % len(tokens)]}",
                },
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status, answer = response.status, response.read()
            except urllib.error.HTTPError as error:
                status, answer = error.code, error.read()
            except OSError:
                status, answer = 0, b""
            with posting.lock:
                posting.statuses[status] += 1
                if status == 201:
                    posting.accepted.append(json.loads(answer)["id"])

    threads = [threading.Thread(target=poster) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


AUTOMATED = ("RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "AUTO_APPROVED", "VENDOR_APPROVED")


def unsettled(ids: list[str]) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pipeline_submission WHERE id::text = ANY(%s) AND state = ANY(%s)",
            [ids, list(AUTOMATED)],
        )
        return cursor.fetchone()[0]


def dead_letter_figures() -> tuple[int, int]:
    """(messages in submission-dlq, open dead letters), read from the broker and the table."""
    from django.db import connection
    from kombu import Connection

    from config.celery import DEAD_LETTER_QUEUE

    with Connection(os.environ["CELERY_BROKER_URL"], connect_timeout=5) as conn:
        declared = DEAD_LETTER_QUEUE(conn.default_channel).queue_declare(passive=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pipeline_deadletter WHERE status = 'open'")
        opened = cursor.fetchone()[0]
    return declared.message_count, opened  # type: ignore[union-attr]


def wait_to_settle(ids: list[str], timeout: float) -> float | None:
    """Seconds until nothing is left in an automated state and the DLQ agrees with the open
    rows; None if that never happened within ``timeout``."""
    from django.db import connections

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            queue, opened = dead_letter_figures()
            if unsettled(ids) == 0 and queue == opened:
                return time.monotonic() - started
        except Exception:
            connections.close_all()  # the database may still be coming back
        time.sleep(1)
    return None


def valid_edges() -> list[tuple[str, str]]:
    from pipeline.states import VALID_TRANSITIONS

    return [(source.value, target.value) for source, targets in VALID_TRANSITIONS.items()
            for target in targets]  # fmt: skip


INVARIANTS = (
    # name, SQL returning one number, expected
    (
        "accepted submissions missing from the database",
        "SELECT %(accepted)s - count(*) FROM pipeline_submission WHERE id::text = ANY(%(ids)s)",
        0,
    ),
    (
        "accepted submissions not final (or waiting for review)",
        "SELECT count(*) FROM pipeline_submission WHERE id::text = ANY(%(ids)s)"
        " AND state = ANY(%(automated)s)",
        0,
    ),
    (
        "duplicate transitions (same target twice)",
        "SELECT count(*) FROM (SELECT submission_id, to_state FROM pipeline_submissionstateevent"
        " WHERE submission_id::text = ANY(%(ids)s) AND to_state <> 'NEEDS_REVIEW'"
        " GROUP BY 1, 2 HAVING count(*) > 1) d",
        0,
    ),
    (
        "audit trails that are not a valid path",
        "WITH trail AS (SELECT submission_id, from_state, to_state,"
        " lag(to_state) OVER (PARTITION BY submission_id ORDER BY created_at, id) AS before,"
        " row_number() OVER (PARTITION BY submission_id ORDER BY created_at DESC, id DESC)"
        " AS from_end FROM pipeline_submissionstateevent"
        " WHERE submission_id::text = ANY(%(ids)s)),"
        " edges(source, target) AS (SELECT * FROM unnest(%(sources)s::text[], %(targets)s::text[]))"
        " SELECT count(DISTINCT t.submission_id) FROM trail t"
        " JOIN pipeline_submission s ON s.id = t.submission_id"
        " WHERE (t.before IS NULL AND (t.from_state IS NOT NULL OR t.to_state <> 'RECEIVED'))"
        " OR (t.before IS NOT NULL AND (t.from_state IS DISTINCT FROM t.before OR NOT EXISTS"
        " (SELECT 1 FROM edges e WHERE e.source = t.from_state AND e.target = t.to_state)))"
        " OR (t.from_end = 1 AND t.to_state <> s.state)",
        0,
    ),
    (
        "duplicate versions",
        "SELECT count(*) FROM (SELECT submission_id FROM registry_skillversion"
        " WHERE submission_id::text = ANY(%(ids)s) GROUP BY 1 HAVING count(*) > 1) d",
        0,
    ),
    (
        "author-visible error outcomes (our outage is never an author's verdict)",
        "SELECT count(*) FROM pipeline_submission WHERE id::text = ANY(%(ids)s)"
        " AND outcome_kind = 'error'",
        0,
    ),
    (
        "attempts still 'running' on the record",
        "SELECT count(*) FROM pipeline_processingattempt a"
        " JOIN pipeline_submission s ON s.id = a.submission_id"
        " WHERE s.id::text = ANY(%(ids)s) AND a.status = 'running'",
        0,
    ),
)


def check_invariants(posting: Posting) -> list[tuple[str, object, object, bool]]:
    from django.db import connection

    edges = valid_edges()
    params: dict[str, Any] = {
        "ids": posting.accepted,
        "accepted": len(posting.accepted),
        "automated": list(AUTOMATED),
        "sources": [e[0] for e in edges],
        "targets": [e[1] for e in edges],
    }
    rows: list[tuple[str, object, object, bool]] = []
    with connection.cursor() as cursor:
        for name, sql, expected in INVARIANTS:
            cursor.execute(sql, params)
            value = cursor.fetchone()[0]
            rows.append((name, value, expected, value == expected))
    queue, opened = dead_letter_figures()
    rows.append(("submission-dlq depth = open dead letters", f"{queue} / {opened}",
                 "equal", queue == opened))  # fmt: skip
    server_errors = sum(
        n for status, n in posting.statuses.items() if status >= 500 and status != 503
    )
    rows.append(("HTTP 5xx other than 503 (while the database was down)", server_errors, 0,
                 server_errors == 0))  # fmt: skip
    return rows


def outcomes(posting: Posting) -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT state || coalesce('/' || nullif(outcome_code, ''), ''), count(*)"
            " FROM pipeline_submission WHERE id::text = ANY(%s) GROUP BY 1 ORDER BY 1",
            [posting.accepted],
        )
        return dict(cursor.fetchall())


def failed_attempts(posting: Posting) -> dict[str, int]:
    """Failed step runs by class: ``infrastructure`` counts the runs our outage interrupted."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT error_class, count(*) FROM pipeline_processingattempt"
            " WHERE submission_id::text = ANY(%s) AND status = 'failed' GROUP BY 1 ORDER BY 1",
            [posting.accepted],
        )
        return dict(cursor.fetchall())


def print_table(rows: list[tuple[str, object, object, bool]]) -> None:
    width = max(len(row[0]) for row in rows)
    print(f"{'invariant':<{width}}  {'value':>10}  {'expected':>8}  ok")
    for name, value, expected, ok in rows:
        print(f"{name:<{width}}  {value!s:>10}  {expected!s:>8}  {'yes' if ok else 'NO'}")


def load() -> str:
    """The 1, 5 and 15-minute load averages: how busy the machine was."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=1800, help="submissions to post")
    parser.add_argument("--rate", type=float, default=15.0, help="submissions per second")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fault", type=Fault.parse, action="append", default=[])
    parser.add_argument("--settle-timeout", type=float, default=600.0)
    parser.add_argument("--logs", type=Path, default=ROOT / "var" / "chaos")
    args = parser.parse_args()
    faults = args.fault or [Fault("kill-workers", 10, 35), Fault("pg-stop", 40, 20)]

    args.logs.mkdir(parents=True, exist_ok=True)
    for old in args.logs.glob("*.log"):
        old.unlink()
    print(f"chaos: {args.n} submissions at {args.rate}/s, {args.workers} workers, faults: "
          + ", ".join(f"{f.kind}@{f.at:g}+{f.lasting:g}" for f in faults))  # fmt: skip
    print(f"machine: {os.cpu_count()} cores, load average at start {load()}")
    stack = Stack(args.workers, args.logs)
    # A SIGTERM (a test's time-out, Ctrl-C's cousin) still drops the cluster and the vhost.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(1))
    try:
        stack.up()
        from django.contrib.auth import get_user_model
        from rest_framework.authtoken.models import Token

        tokens = [
            Token.objects.create(
                user=get_user_model().objects.create_user(f"chaos-{uuid.uuid4().hex[:8]}")
            ).key
            for _ in range(4)
        ]
        started = time.monotonic()
        injectors = [
            threading.Timer(fault.at, stack.inject, args=(fault, started)) for fault in faults
        ]
        for injector in injectors:
            injector.start()
        posting = Posting()
        poster = threading.Thread(
            target=post_submissions, args=(stack, tokens, args.n, args.rate, posting)
        )
        poster.start()
        for injector in injectors:
            injector.join()
        # The backlog: what was accepted until the last fault was undone, cleared how soon after.
        with posting.lock:
            backlog = list(posting.accepted)
        cleared = wait_to_settle(backlog, args.settle_timeout)
        stack.note(started, f"the {len(backlog)} accepted until the last fault are final")
        poster.join()
        stack.note(started, f"last submission posted ({dict(posting.statuses)})")
        settled = wait_to_settle(posting.accepted, args.settle_timeout)
        stack.note(started, "settled" if settled is not None else "did NOT settle")
        rows = check_invariants(posting)
        print()
        print_table(rows)
        figures = {
            "submissions": args.n,
            "accepted": len(posting.accepted),
            "http_statuses": {str(k): v for k, v in sorted(posting.statuses.items())},
            "outcomes": outcomes(posting),
            "failed_attempts": failed_attempts(posting),
            "backlog_cleared_after_last_fault_s": None if cleared is None else round(cleared, 1),
            "settle_after_last_post_s": None if settled is None else round(settled, 1),
            "faults": [f"{f.kind}@{f.at:g}+{f.lasting:g}" for f in faults],
            "events": stack.events,
            "invariants": {name: {"value": str(value), "ok": ok}
                           for name, value, _, ok in rows},
            "load_average_end": load(),
        }  # fmt: skip
        print(f"\noutcomes: {figures['outcomes']}")
        print(f"failed step runs by class: {figures['failed_attempts']}")
        print(f"backlog cleared {figures['backlog_cleared_after_last_fault_s']} s after the last "
              f"fault ended; all settled {figures['settle_after_last_post_s']} s after the last "
              f"post; load average at the end {figures['load_average_end']}")  # fmt: skip
        print(json.dumps(figures))
        return 0 if all(row[3] for row in rows) and None not in (cleared, settled) else 1
    finally:
        stack.down()


if __name__ == "__main__":
    sys.exit(main())
