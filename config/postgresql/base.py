"""Django's PostgreSQL backend, with a health check that asks the socket before the server.

With ``CONN_HEALTH_CHECKS`` Django checks a persistent connection before its first use in each
request, and in each task (the hooks in ``config/celery.py`` reset the check as a request
does), by running ``SELECT 1``: a round trip of its own, one per pipeline step. A server that
ends a connection — a restart, ``pg_terminate_backend``, an idle timeout — says so on its
socket: it sends the reason and hangs up, and the socket turns readable. An idle connection
has nothing to read otherwise. So a connection whose socket has nothing to read is taken as
usable without asking, and one with anything pending is asked with ``SELECT 1`` as before and
replaced if it fails. What neither check sees (a peer gone without a word, a connection ended
after the check) fails the step's first statement, which is retried like any database error.
"""

from __future__ import annotations

import select

import psycopg
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if self._idle_and_unspoken_to():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _idle_and_unspoken_to(self) -> bool:
        """Whether a check is due on an open connection whose server has sent nothing since its
        last answer (False also when no check is due: the base class then does nothing)."""
        # django-stubs omit health_check_enabled (set by connect() since Django 4.1).
        enabled = self.health_check_enabled  # type: ignore[attr-defined]
        if self.connection is None or not enabled or self.health_check_done:
            return False
        try:
            socket = self.connection.pgconn.socket
        except psycopg.Error:
            return False
        poller = select.poll()
        poller.register(socket, select.POLLIN)
        return not poller.poll(0)
