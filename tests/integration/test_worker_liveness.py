"""Operators see whether workers are alive and consuming: ``/metrics`` carries
``skillgate_workers_up{queue}`` (workers answering Celery's inspection, per queue) and
``skillgate_queue_consumers{queue}`` (the broker's count), and ``/readyz`` reports the workers
beside the database and the broker. Stopping the only worker brings both to zero, while the
web process stays ready (submissions are still accepted; they wait in their queue)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pipeline.fleet import CONSUMED_QUEUES
from tests.support.stack import WebServer, stack_environment, wait_until

METRICS_TOKEN = "liveness-test-token"


@pytest.fixture
def web(broker) -> Iterator[WebServer]:
    """gunicorn asking the workers on every request (no cached answer)."""
    server = WebServer(
        stack_environment(SKILLGATE_WORKER_STATUS_TTL_S="0", SKILLGATE_METRICS_TOKEN=METRICS_TOKEN)
    )
    server.start()
    yield server
    server.stop()


def metrics(server: WebServer) -> dict[str, dict[str, float]]:
    """``skillgate_workers_up`` and ``skillgate_queue_consumers``, by queue."""
    request = urllib.request.Request(
        f"{server.url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    wanted: dict[str, dict[str, float]] = {
        "skillgate_workers_up": {},
        "skillgate_queue_consumers": {},
    }
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in wanted:
                wanted[sample.name][sample.labels["queue"]] = sample.value
    return wanted


def readyz(server: WebServer) -> tuple[int, dict[str, Any]]:
    with urllib.request.urlopen(f"{server.url}/readyz", timeout=30) as response:
        return response.status, json.loads(response.read())


def counted(server: WebServer, workers: int) -> dict[str, dict[str, float]] | None:
    """The scrape, once every consumed queue counts exactly ``workers`` live workers."""
    scraped = metrics(server)
    up = scraped["skillgate_workers_up"]
    return scraped if up and all(up.get(q) == workers for q in CONSUMED_QUEUES) else None


def test_stopping_the_worker_brings_workers_up_to_zero_and_readyz_reports_it(fleet, web):
    worker = fleet.ensure(1)[0]
    worker_name = worker.node.split("@")[0]

    running = wait_until(
        lambda: counted(web, 1), timeout=30, message="the worker to be counted on every queue"
    )
    assert set(running["skillgate_workers_up"]) == set(CONSUMED_QUEUES)
    for queue in CONSUMED_QUEUES:
        assert running["skillgate_queue_consumers"][queue] >= 1, queue
    assert running["skillgate_queue_consumers"]["submission-dlq"] == 0
    status, body = readyz(web)
    assert status == 200 and body["status"] == "ready"
    assert body["workers"]["status"] == "ok"
    assert body["workers"]["alive"] == 1
    assert any(name.startswith(worker_name) for name in body["workers"]["workers"])

    fleet.stop_all()

    stopped = wait_until(
        lambda: counted(web, 0), timeout=30, message="skillgate_workers_up to fall to 0"
    )
    assert set(stopped["skillgate_workers_up"]) == set(CONSUMED_QUEUES)
    assert all(value == 0 for value in stopped["skillgate_queue_consumers"].values())
    status, body = readyz(web)
    assert status == 200 and body["status"] == "ready", "workers do not make the web unready"
    assert body["workers"]["status"] == "down"
    assert body["workers"]["alive"] == 0
    for queue in CONSUMED_QUEUES:
        assert body["workers"]["queues"][queue]["workers"] == 0
        assert body["workers"]["queues"][queue]["consumers"] == 0
