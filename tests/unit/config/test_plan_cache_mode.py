"""The web app plans operators' queries for their values; workers keep PostgreSQL's generic
plans for their few fixed statements (see DATABASES in config/settings.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import connection

SHOW_PLAN_CACHE_MODE = (
    "from django.db import connection\n"
    "with connection.cursor() as cursor:\n"
    "    cursor.execute('SHOW plan_cache_mode')\n"
    "    print(cursor.fetchone()[0])\n"
)


def plan_cache_mode_of(entry_point: str, **env: str) -> str:
    """``plan_cache_mode`` of a database connection opened by a fresh process that loaded
    Django through ``entry_point`` (on the database the tests' environment names)."""
    inherited = {k: v for k, v in os.environ.items() if k != "DATABASE_PLAN_CACHE_MODE"}
    environment = {**inherited, **env}
    result = subprocess.run(
        [sys.executable, "-c", entry_point + SHOW_PLAN_CACHE_MODE],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


WEB = "import config.wsgi\n"
WORKER = (
    "import os, django\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
    "django.setup()\n"
)


@pytest.fixture(autouse=True)
def _postgresql() -> None:
    assert connection.vendor == "postgresql", "plan cache modes are PostgreSQL's"


def test_the_web_app_plans_every_query_for_its_values():
    assert plan_cache_mode_of(WEB) == "force_custom_plan"


def test_workers_keep_the_default_generic_plans():
    assert plan_cache_mode_of(WORKER) == "auto"


def test_the_environment_chooses_and_a_typo_is_refused():
    assert plan_cache_mode_of(WEB, DATABASE_PLAN_CACHE_MODE="auto") == "auto"
    with pytest.raises(AssertionError, match="must be one of auto, force_custom_plan"):
        plan_cache_mode_of(WORKER, DATABASE_PLAN_CACHE_MODE="custom")
