"""Throw-away RabbitMQ vhosts, made through the management API, for tests that need a broker
exactly as a new machine has it."""

from __future__ import annotations

import base64
import json
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit

from django.conf import settings


def _management(method: str, path: str, body: object | None = None) -> None:
    broker = urlsplit(settings.CELERY_BROKER_URL)
    credentials = f"{broker.username}:{broker.password}".encode()
    request = urllib.request.Request(
        f"http://{broker.hostname}:15672/api{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Basic {base64.b64encode(credentials).decode()}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=10):
        pass


@contextmanager
def fresh_vhost() -> Iterator[str]:
    """A new, empty vhost on the test broker (deleted afterwards); yields its broker URL."""
    broker = urlsplit(settings.CELERY_BROKER_URL)
    assert broker.scheme.startswith("amqp"), f"needs RabbitMQ, got {broker.scheme}"
    name = f"skillgate-fresh-{uuid.uuid4().hex[:8]}"
    _management("PUT", f"/vhosts/{quote(name)}")
    try:
        _management(
            "PUT",
            f"/permissions/{quote(name)}/{quote(str(broker.username))}",
            {"configure": ".*", "write": ".*", "read": ".*"},
        )
        yield broker._replace(path=f"/{name}").geturl()
    finally:
        _management("DELETE", f"/vhosts/{quote(name)}")
