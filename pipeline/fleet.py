"""Who is consuming the pipeline's queues: the workers that answer Celery's own inspection,
per queue, beside what the broker says of each queue (messages ready, consumers attached).

The two answer different questions. The broker's consumer count says a connection holds the
queue; a worker answering the inspection says a process is alive enough to reply. A worker
wedged in a step holds its consumer but does not answer; a queue with workers but no
consumers is being drained by nobody. Both are shown (admin home, ``/readyz``, ``/metrics``).

Asking the workers is a broadcast that waits ``SKILLGATE_WORKER_PING_TIMEOUT_S`` for replies,
so the answer is kept for ``SKILLGATE_WORKER_STATUS_TTL_S`` in each process: a Prometheus
scrape, a readiness probe and an operator's page share one inspection.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from kombu import Connection

from config.celery import ALL_QUEUES, TASK_QUEUES, QueueFigures, app, declare_and_measure

logger = logging.getLogger(__name__)

CONSUMED_QUEUES = tuple(queue.name for queue in TASK_QUEUES)
"""The queues workers consume (``submission-dlq`` is never consumed as tasks)."""


@dataclass(frozen=True)
class QueueHealth:
    name: str
    messages: int | None
    """Ready messages; None when the broker could not be asked."""
    consumers: int | None
    """Consumers the broker counts on the queue; None when it could not be asked."""
    workers: int | None
    """Workers that answered the inspection and consume the queue; None when the workers
    could not be asked (broker unreachable, or a broker without broadcasts)."""


@dataclass(frozen=True)
class FleetStatus:
    broker_reachable: bool
    inspected: bool
    """Whether the workers could be asked at all (an AMQP broker that answered)."""
    workers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each worker that answered, with the queues it consumes."""
    queues: tuple[QueueHealth, ...] = ()

    @property
    def alive(self) -> int | None:
        return len(self.workers) if self.inspected else None

    @property
    def idle_queues(self) -> list[str]:
        """Consumed queues that no live worker consumes: their messages wait."""
        return [q.name for q in self.queues if q.name in CONSUMED_QUEUES and q.workers == 0]

    @property
    def status(self) -> str:
        """``ok`` (every consumed queue has a live worker), ``degraded`` (some have none),
        ``down`` (no worker answered) or ``unknown`` (the workers could not be asked)."""
        if not self.inspected:
            return "unknown"
        if not self.workers:
            return "down"
        return "degraded" if self.idle_queues else "ok"

    def as_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "alive": self.alive,
            "workers": {name: list(queues) for name, queues in sorted(self.workers.items())},
            "queues": {
                q.name: {"messages": q.messages, "consumers": q.consumers, "workers": q.workers}
                for q in self.queues
            },
        }


_cache: tuple[float, FleetStatus] | None = None
_cache_lock = threading.Lock()


def fleet_status(*, fresh: bool = False) -> FleetStatus:
    """The fleet as last inspected in this process, inspected anew once the answer is older
    than ``SKILLGATE_WORKER_STATUS_TTL_S`` (or when ``fresh``)."""
    global _cache
    with _cache_lock:
        now = time.monotonic()
        if (
            not fresh
            and _cache is not None
            and now - _cache[0] < settings.SKILLGATE_WORKER_STATUS_TTL_S
        ):
            return _cache[1]
        status = inspect_fleet()
        _cache = (time.monotonic(), status)
        return status


def inspect_fleet() -> FleetStatus:
    """Ask the broker for each queue's figures, then the workers which queues they consume."""
    figures = _queue_figures()
    if figures is None:
        return FleetStatus(
            broker_reachable=False,
            inspected=False,
            queues=tuple(QueueHealth(q.name, None, None, None) for q in ALL_QUEUES),
        )
    workers = _active_queues()
    return FleetStatus(
        broker_reachable=True,
        inspected=workers is not None,
        workers=workers or {},
        queues=tuple(
            QueueHealth(
                name,
                counts.messages,
                counts.consumers,
                None if workers is None else sum(name in consumed for consumed in workers.values()),
            )
            for name, counts in figures.items()
        ),
    )


def _queue_figures() -> dict[str, QueueFigures] | None:
    try:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=3) as conn:
            conn.ensure_connection(max_retries=1)
            return declare_and_measure(conn.default_channel)
    except Exception:
        logger.warning("fleet: the broker is unreachable", exc_info=True)
        return None


def _active_queues() -> dict[str, tuple[str, ...]] | None:
    """Each live worker and the queues it consumes; None when the broker carries no
    broadcasts (the embedded SQLAlchemy transport) or the broadcast failed."""
    if settings.CELERY_BROKER_URL.split("://", 1)[0] not in {"amqp", "amqps", "pyamqp"}:
        return None
    try:
        inspector = app.control.inspect(timeout=settings.SKILLGATE_WORKER_PING_TIMEOUT_S)
        replies = inspector.active_queues() or {}
    except Exception:
        logger.warning("fleet: the workers could not be asked", exc_info=True)
        return None
    return {
        worker: tuple(sorted(queue["name"] for queue in queues or ()))
        for worker, queues in replies.items()
    }
