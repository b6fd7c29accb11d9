"""The Celery app (``celery -A config worker``) and the whole queue topology, declared once.

Work flows through one durable queue per pipeline step so that judge workers can be scaled on
their own (``-Q submission-pipeline.judge``). Every step queue dead-letters into the
``submission-dlx`` exchange, which routes to ``submission-dlq``: a message a worker rejects
without requeue (retries exhausted, poison, unknown task) lands there, never in a loop.
Workers never consume ``submission-dlq`` as tasks: a reconciliation sweep keeps it in step with
the dead-letter records (pipeline/services/dead_letter_queue.py), and operators replay, dismiss
or resolve dead letters from those records.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from celery import Celery, bootsteps, signals
from django.conf import settings
from kombu import Exchange, Queue

from config.logging import log_sweep_actions, quiet_routine_sweeps
from pipeline.workflow import ALL_STEPS, RESCAN, SCAN, SUBMISSION_STEPS, step_named

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

PIPELINE_EXCHANGE = Exchange("submission-pipeline", type="direct", durable=True)
DEAD_LETTER_EXCHANGE = Exchange("submission-dlx", type="direct", durable=True)
DEAD_LETTER_QUEUE = Queue(
    "submission-dlq",
    exchange=DEAD_LETTER_EXCHANGE,
    routing_key="submission-dlq",
    durable=True,
)

MAINTENANCE_QUEUE = "skillgate.maintenance"
# Every step's queue, route and time limits come from the step registry (pipeline/workflow.py).
STEP_QUEUES = tuple(step.queue for step in SUBMISSION_STEPS)
SCAN_QUEUE, JUDGE_QUEUE, PUBLISH_QUEUE = STEP_QUEUES
RESCAN_QUEUE = RESCAN.queue


def _dead_lettering_queue(name: str) -> Queue:
    return Queue(
        name,
        exchange=PIPELINE_EXCHANGE,
        routing_key=name,
        durable=True,
        queue_arguments={
            "x-dead-letter-exchange": DEAD_LETTER_EXCHANGE.name,
            "x-dead-letter-routing-key": DEAD_LETTER_QUEUE.routing_key,
        },
    )


TASK_QUEUES = tuple(
    _dead_lettering_queue(name) for name in (*(step.queue for step in ALL_STEPS), MAINTENANCE_QUEUE)
)

TASK_ROUTES = {
    **{step.task: {"queue": step.queue, "routing_key": step.queue} for step in ALL_STEPS},
    "pipeline.sweeps.*": {"queue": MAINTENANCE_QUEUE, "routing_key": MAINTENANCE_QUEUE},
    "reviews.sweeps.*": {"queue": MAINTENANCE_QUEUE, "routing_key": MAINTENANCE_QUEUE},
}


class StepTimeLimits:
    """Each step's time limits, as a Celery annotation: read when the tasks are bound, after
    the settings are loaded (this module is imported before them, by ``config``). Tier 1's soft
    limit is a setting (SKILLGATE_SCAN_TIME_LIMIT_S), its hard limit as far behind it as the
    step declares. Hard limits stop a wedged step; the soft limit raises inside the task first
    so the failure is classified (and, unless it is Tier 1's deterministic scan, retried)."""

    def annotate(self, task: Any) -> dict[str, float] | None:
        step = step_named(task.name)
        if step is None:
            return None
        if step is not SCAN:
            return {"soft_time_limit": step.soft_time_limit_s, "time_limit": step.time_limit_s}
        soft = settings.SKILLGATE_SCAN_TIME_LIMIT_S
        return {
            "soft_time_limit": soft,
            "time_limit": soft + step.time_limit_s - step.soft_time_limit_s,
        }


TASK_ANNOTATIONS = (StepTimeLimits(),)


FAST_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}


def _is_amqp(broker_url: str) -> bool:
    return broker_url.split("://", 1)[0] in {"amqp", "amqps", "pyamqp"}


app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_queues=TASK_QUEUES,
    task_routes=TASK_ROUTES,
    task_annotations=TASK_ANNOTATIONS,
    task_default_queue=MAINTENANCE_QUEUE,
    task_default_exchange=PIPELINE_EXCHANGE.name,
    task_default_routing_key=MAINTENANCE_QUEUE,
    task_create_missing_queues=False,
    # Messages carry ids only, as JSON.
    task_serializer="json",
    accept_content=["json"],
    result_serializer="json",
    task_ignore_result=True,
    # At-least-once delivery: ack after the step ran, requeue when the worker process dies,
    # reject (→ dead letter) on a final failure, hold one message per worker process.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    task_acks_on_failure_or_timeout=False,
    worker_prefetch_multiplier=1,
    worker_cancel_long_running_tasks_on_connection_loss=True,
    # Workers publishing the next step ride out a broker restart (~25 s of retries); API
    # requests and sweeps pass FAST_PUBLISH_RETRY_POLICY instead and leave the rest to sweeps.
    broker_connection_timeout=3,
    task_publish_retry_policy={
        "max_retries": 10,
        "interval_start": 0,
        "interval_step": 1,
        "interval_max": 3,
    },
    worker_consumer="pipeline.consumer:DeadLetteringConsumer",
    enable_utc=True,
    timezone="UTC",
)
if _is_amqp(app.conf.broker_url):
    app.conf.broker_transport_options = {"confirm_publish": True}


ALL_QUEUES = (*TASK_QUEUES, DEAD_LETTER_QUEUE)


class QueueFigures(NamedTuple):
    """What the broker says of one queue: messages ready, and consumers attached."""

    messages: int
    consumers: int


def declare_topology(channel: Any) -> dict[str, int]:
    """Declare every exchange, queue and dead-letter binding (idempotent) and return the
    messages ready in each queue.

    Called wherever the broker is first used — worker start, ``manage.py setup_broker`` (run by
    ``make run``, compose, the tests and the benchmarks) and the operators' queue depths — so a
    fresh vhost never makes a queue look missing.
    """
    return {name: figures.messages for name, figures in declare_and_measure(channel).items()}


def declare_and_measure(channel: Any) -> dict[str, QueueFigures]:
    """``declare_topology``, keeping each queue's consumer count too (for the operators' view
    of who consumes what)."""
    figures = {}
    for queue in ALL_QUEUES:
        bound = queue(channel)
        bound.declare()
        # kombu-stubs type queue_declare() as ``str | None``; kombu returns the broker's
        # queue_declare_ok_t (queue, message_count, consumer_count).
        declared: Any = bound.queue_declare(passive=True)
        figures[queue.name] = QueueFigures(declared.message_count, declared.consumer_count)
    return figures


class DeclareTopology(bootsteps.StartStopStep):
    """Declares the whole topology, ``submission-dlq`` included (never consumed), before the
    worker consumes or rejects anything."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        declare_topology(parent.connection.default_channel)


app.steps["consumer"].add(DeclareTopology)

# Celery's Django fixup closes the database connection around every task unless this is set,
# which costs a PostgreSQL connection (and server-side backend) per task. Instead connections
# live for CONN_MAX_AGE and are dropped when unusable, exactly as Django does per request.
app.conf.update(CELERY_DB_REUSE_MAX=1_000_000)


quiet_routine_sweeps()


@signals.task_success.connect
def _log_sweeps_that_acted(sender: Any = None, result: Any = None, **kwargs: Any) -> None:
    if sender is not None:
        log_sweep_actions(sender.name, result)


@signals.task_prerun.connect
@signals.task_postrun.connect
def _close_unusable_or_obsolete_connections(sender: Any = None, **kwargs: Any) -> None:
    if getattr(sender.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


app.autodiscover_tasks()
