"""Shared set-up for the benchmarks: a dedicated PostgreSQL database and broker vhost, each
prepared from nothing (a fresh machine has neither the database nor the queues)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE_URL = "postgres://skillgate:skillgate@127.0.0.1:5432/skillgate_bench"
DEFAULT_BROKER_URL = "amqp://skillgate:skillgate@127.0.0.1:5672/skillgate-bench"


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
