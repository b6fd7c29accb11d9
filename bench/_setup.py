"""Shared set-up for the benchmarks: a dedicated PostgreSQL database and broker vhost, each
prepared from nothing (a fresh machine has neither the database nor the queues).

Where they live is overridable, so parallel runs (and CI) do not collide:
``SKILLGATE_BENCH_DATABASE_URL`` is the benchmarks' database (default ``skillgate_bench``); a
benchmark that needs a database of its own takes that name with its suffix (``skillgate_bench_
scale``, ``…_steps``, ``…_rescan``) on the same server. ``SKILLGATE_BENCH_BROKER_URL`` is their
vhost (default ``skillgate-bench``). A ``--database-url`` / ``--broker-url`` option still wins.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
_DEFAULT_DATABASE_URL = "postgres://skillgate:skillgate@127.0.0.1:5432/skillgate_bench"
_DEFAULT_BROKER_URL = "amqp://skillgate:skillgate@127.0.0.1:5672/skillgate-bench"


def database_url(suffix: str = "") -> str:
    """The benchmarks' database URL, or the one of their databases named with ``suffix``."""
    base = urlsplit(os.environ.get("SKILLGATE_BENCH_DATABASE_URL") or _DEFAULT_DATABASE_URL)
    return urlunsplit(base._replace(path=f"{base.path.rstrip('/')}{suffix}"))


def broker_url() -> str:
    """The benchmarks' broker vhost URL."""
    return os.environ.get("SKILLGATE_BENCH_BROKER_URL") or _DEFAULT_BROKER_URL


DEFAULT_DATABASE_URL = database_url()
DEFAULT_BROKER_URL = broker_url()


def prepare_database(url: str, *, fresh: bool = False) -> None:
    """Create the benchmark database if needed (anew when ``fresh``), point Django at it and
    migrate it."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = url
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SKILLGATE_DEV_MODE", "1")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def prepare_broker(url: str) -> None:
    """Point Celery at the benchmark vhost, declare the whole queue topology and empty it.
    Call after ``prepare_database`` (it needs Django)."""
    from config.celery import ALL_QUEUES, app, declare_topology

    app.conf["broker_url"] = url  # what attribute assignment does (the stubs make it read-only)
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=3)
        declare_topology(conn.default_channel)
        for queue in ALL_QUEUES:
            queue(conn.default_channel).purge()


def table_columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "ORDER BY ordinal_position",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]


def copy_rows(
    cursor: Any,
    table: str,
    source_sql: str,
    overrides: dict[str, str | None],
    params: Any = (),
) -> None:
    """``INSERT INTO table SELECT`` every column of the rows ``source_sql`` yields (aliased
    ``t``), taking ``overrides[column]`` as an SQL expression instead; a None override leaves
    the column to its default (serial ids). Copying a row made through the ORM gives every
    column its real value, so a new column never breaks a benchmark's seeding."""
    columns = [c for c in table_columns(cursor, table) if overrides.get(c, "") is not None]
    select = ", ".join(overrides.get(c) or f"t.{c}" for c in columns)
    cursor.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM {source_sql}", params
    )


def refuse_stale_workers(app: Any) -> None:
    """Workers left on the benchmark's vhost by an interrupted run would take messages and skew
    the figures: stop instead of killing processes by name on a machine others share."""
    replies = app.control.ping(timeout=1.0) or []
    if replies:
        names = ", ".join(name for reply in replies for name in reply)
        raise SystemExit(f"workers are still consuming the benchmark vhost ({names}): stop them")


def wait_for_workers(app: Any, count: int, timeout: float = 60) -> None:
    """Until ``count`` workers answer a ping on the benchmark's vhost."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = app.control.ping(timeout=1.0) or []
        if len(replies) >= count:
            return
    raise TimeoutError("the benchmark workers did not start")
