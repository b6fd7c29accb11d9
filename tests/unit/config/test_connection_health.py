"""A persistent database connection is checked before each request or task without a round
trip while its server has said nothing, and replaced when its server hung up on it (see
config/postgresql/base.py)."""

from __future__ import annotations

import time

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(autouse=True)
def _fresh_connection() -> None:
    """A connection opened now: one an earlier test opened may be past its maximum age, and
    Django replaces such a connection whatever its health."""
    assert connection.vendor == "postgresql", "the health check is PostgreSQL's"
    connection.close()
    connection.ensure_connection()


@pytest.fixture
def asked(monkeypatch) -> list[bool]:
    """Each ``SELECT 1`` health check the connection makes, with its answer."""
    answers: list[bool] = []
    is_usable = connection.is_usable

    def recorded() -> bool:
        answers.append(is_usable())
        return answers[-1]

    monkeypatch.setattr(connection, "is_usable", recorded)
    return answers


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def next_task() -> None:
    """What the task hooks (and Django, per request) do between two units of work."""
    connection.close_if_unusable_or_obsolete()


def test_a_quiet_connection_is_reused_without_asking_the_server(asked):
    pid = backend_pid()
    next_task()
    assert backend_pid() == pid
    assert asked == []


def test_a_connection_the_server_ended_is_replaced_before_it_is_used(asked):
    pid = backend_pid()
    other = connection.get_new_connection(connection.get_connection_params())
    try:
        other.autocommit = True
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()
    time.sleep(0.2)  # the server's goodbye reaches the socket
    next_task()
    assert backend_pid() != pid
    assert asked == [False]
