"""Fixtures shared by every tier, and the real stack the integration and browser tiers use.

The stack fixtures never skip: a missing PostgreSQL or RabbitMQ fails the test.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from kombu import Connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.celery import DEAD_LETTER_QUEUE, TASK_QUEUES
from tests.support.stack import WorkerFleet

collect_ignore = ["fixtures"]
"""Scanner input, never run: fixture skills ship their own ``test_*.py`` and ``conftest.py``
(some of them hostile), which a bare ``pytest`` would otherwise collect and execute."""


@pytest.fixture(scope="session")
def django_db_setup(django_test_environment, django_db_blocker):
    """Always create the test database, even for a tier whose tests only use committed data
    through ``live_db`` (pytest-django would otherwise point them at the real database)."""
    from django.test.utils import setup_databases, teardown_databases

    with django_db_blocker.unblock():
        old_config = setup_databases(
            verbosity=0,
            interactive=False,
            keepdb=False,
            # django-stubs type aliases as a Mapping; Django takes any collection of names.
            aliases={"default"},  # type: ignore[arg-type]
        )
    yield
    with django_db_blocker.unblock():
        teardown_databases(old_config, verbosity=0)


@pytest.fixture(scope="session", autouse=True)
def _real_services_when_required(django_db_setup, django_db_blocker):
    """Under ``make test`` (and so in CI) the database must be the real PostgreSQL: a missing
    server fails the run instead of quietly falling back to SQLite."""
    if os.environ.get("SKILLGATE_REQUIRE_REAL_SERVICES") != "1":
        return
    with django_db_blocker.unblock():
        assert connection.vendor == "postgresql", (
            f"tests must run on PostgreSQL under make test, got {connection.vendor}; "
            "is DATABASE_URL set and scripts/services.sh run?"
        )


@pytest.fixture
def make_user(db):
    def make(username: str = "alice", *, staff: bool = False, **extra):
        user = get_user_model().objects.create_user(
            username=username, password="pw-for-tests", is_staff=staff, **extra
        )
        return user

    return make


@pytest.fixture
def client_for():
    """An API client authenticated with the user's token, as an author's script would be."""

    def make(user) -> APIClient:
        client = APIClient()
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make


@pytest.fixture(autouse=True)
def _skillgate_home(tmp_path_factory, monkeypatch):
    """The ``skillgate`` client's trusted keys, one folder per test (a fake registry's port may
    be another test's)."""
    monkeypatch.setenv("SKILLGATE_HOME", str(tmp_path_factory.mktemp("skillgate-home")))


@pytest.fixture
def scraper(settings):
    """Prometheus as it scrapes /metrics: a client carrying the metrics token."""
    settings.SKILLGATE_METRICS_TOKEN = "metrics-token-for-tests"
    return Client(HTTP_AUTHORIZATION="Bearer metrics-token-for-tests")


@pytest.fixture(scope="session")
def live_db(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        assert connection.vendor == "postgresql", (
            f"the integration tier needs PostgreSQL (DATABASE_URL), got {connection.vendor}"
        )
        yield


@pytest.fixture(scope="session")
def broker(live_db):
    """The real RabbitMQ, with every pipeline queue declared and emptied."""
    url = settings.CELERY_BROKER_URL
    assert url.startswith("amqp"), f"the integration tier needs RabbitMQ, got {url}"
    with Connection(url, connect_timeout=5) as conn:
        conn.ensure_connection(max_retries=3)
        channel = conn.default_channel
        for queue in (*TASK_QUEUES, DEAD_LETTER_QUEUE):
            queue(channel).declare()
            queue(channel).purge()
    return url


@pytest.fixture(scope="session")
def fleet(broker):
    workers = WorkerFleet()
    yield workers
    workers.stop_all()


@pytest.fixture
def git_host(tmp_path, settings):
    """A real git host on 127.0.0.1 over smart HTTP (TLS), allowed and trusted by the registry;
    ``git_host.serve(repo)`` publishes a repository made under ``git_host.root``."""
    from tests.support.git_server import GitHost

    host = GitHost(tmp_path / "git-host").start()
    settings.SKILLGATE_GIT_ALLOWED_HOSTS = [host.host]
    settings.SKILLGATE_GIT_CA_BUNDLE = str(host.ca_bundle)
    yield host
    host.stop()
