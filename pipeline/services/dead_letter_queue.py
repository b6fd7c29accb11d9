"""``submission-dlq``, the record of last resort, kept in step with the dead-letter rows.

A step that gives up publishes its ``GiveUp`` record into the queue (with the broker's
confirmation) before its message is acknowledged, whether or not the database took the row.
Messages the broker dead-letters itself (poison, unknown tasks, a give-up whose publish failed)
arrive as raw Celery messages.

``reconcile`` passes over the queue once: every message becomes a row if it is not one yet (with
the submission's transition), and stays in the queue while its row is open; the copy of a closed
row (replayed, dismissed, resolved) and any duplicate is removed, and an open row whose copy is
missing gets one. After a pass the queue's depth is the number of open dead letters; the
difference, while there is one, is reported by ``/readyz`` and ``/metrics``.

Messages are taken with ``basic.get`` and put back at the tail (published, confirmed, then the
original acknowledged): nothing is ever only in memory. One pass runs at a time (an advisory
lock); a pass that loses the database stops, leaves the message it held in the queue, and is
retried by its task.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from celery import current_app
from django.db import connection
from django.utils import timezone
from kombu import Connection
from kombu.message import Message

from config.celery import DEAD_LETTER_EXCHANGE, DEAD_LETTER_QUEUE, FAST_PUBLISH_RETRY_POLICY
from pipeline.error_classes import ErrorClass
from pipeline.models import DeadLetter
from pipeline.services import failures
from pipeline.services.failures import GiveUp
from pipeline.workflow import step_named

logger = logging.getLogger(__name__)

KEY_HEADER = "skillgate-dead-letter"
MISSING_GRACE = timedelta(seconds=60)
"""An open row this old with no copy in the queue gets one (a give-up publishes its copy a
moment after writing its row)."""
_LOCK = 0x5D1C  # the advisory lock of a pass


@dataclass
class ReconcileReport:
    messages: int = 0
    recorded: int = 0
    kept: int = 0
    removed: int = 0
    duplicates: int = 0
    restored: int = 0
    skipped: bool = False
    keys: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, int | bool]:
        return {
            "messages": self.messages,
            "recorded": self.recorded,
            "kept": self.kept,
            "removed": self.removed,
            "duplicates": self.duplicates,
            "restored": self.restored,
            "skipped": self.skipped,
        }


def publish(give_up: GiveUp, conn: Connection | None = None) -> None:
    """Put the record into submission-dlq and wait for the broker's confirmation."""
    with _connection(conn) as connection_:
        producer = connection_.Producer()
        producer.publish(
            json.dumps(give_up.as_dict()),
            exchange=DEAD_LETTER_EXCHANGE,
            routing_key=DEAD_LETTER_QUEUE.routing_key,
            content_type="application/json",
            content_encoding="utf-8",
            headers={KEY_HEADER: give_up.key},
            delivery_mode=2,
            declare=[DEAD_LETTER_QUEUE],
            retry=True,
            retry_policy=FAST_PUBLISH_RETRY_POLICY,
        )


@contextmanager
def _connection(conn: Connection | None) -> Iterator[Connection]:
    if conn is not None:
        yield conn
        return
    with current_app.connection_for_write() as fresh:
        fresh.ensure_connection(max_retries=1, timeout=3)
        yield fresh


def reconcile() -> ReconcileReport:
    """One pass over submission-dlq (see the module's docstring)."""
    report = ReconcileReport()
    with _one_pass_at_a_time() as acquired:
        if not acquired:
            report.skipped = True
            return report
        started = timezone.now()
        with _connection(None) as conn:
            queue = DEAD_LETTER_QUEUE(conn.default_channel)
            queue.declare()
            depth = queue.queue_declare(passive=True).message_count  # type: ignore[union-attr]
            for _ in range(depth):
                message = queue.get(no_ack=False)
                if message is None:
                    break
                report.messages += 1
                try:
                    _reconcile_message(message, conn, report)
                except BaseException:
                    _put_back(message)
                    raise
            _restore_missing(conn, report, started - MISSING_GRACE)
    return report


def _put_back(message: Message) -> None:
    """Return a message the pass could not handle to the queue (the broker does it anyway if
    the connection is gone)."""
    try:
        message.requeue()
    except Exception:
        logger.warning("could not put a dead letter back; the broker will", exc_info=True)


def _reconcile_message(message: Message, conn: Connection, report: ReconcileReport) -> None:
    give_up, is_record = _give_up_of(message)
    if give_up.key in report.keys:
        report.duplicates += 1
        message.ack()
        return
    report.keys.add(give_up.key)
    letter = _row_for(give_up, report)
    if not letter.is_open:
        report.removed += 1
        message.ack()
        return
    if is_record:
        _republish(message, conn)
    else:
        publish(_as_record(letter), conn)
    message.ack()
    report.kept += 1


def _row_for(give_up: GiveUp, report: ReconcileReport) -> DeadLetter:
    letter = DeadLetter.objects.filter(message_key=give_up.key).first()
    if letter is not None:
        return letter
    # A row written before rows had keys, by the task id of its raw message.
    legacy = DeadLetter.objects.filter(message_key__isnull=True, task_id=give_up.task_id)
    if give_up.task_id and legacy.update(message_key=give_up.key):
        return DeadLetter.objects.get(message_key=give_up.key)
    report.recorded += 1
    return failures.record(give_up)


def _give_up_of(message: Message) -> tuple[GiveUp, bool]:
    """The record a message carries, or one made from a raw Celery message; and whether it
    was a record already."""
    headers = {str(k): v for k, v in (message.headers or {}).items()}
    body: bytes | str = message.body or b""
    if KEY_HEADER in headers:
        try:
            return GiveUp.from_dict(json.loads(body)), True
        except (ValueError, TypeError):
            logger.warning("a dead-letter record that does not decode: %r", body[:200])
    task = str(headers.get("task") or "")
    task_id = str(headers.get("id") or "")
    known = step_named(task) is not None or task in current_app.tasks
    deaths: Any = headers.get("x-death") or [{}]
    death = deaths[0] if isinstance(deaths, list) and deaths else {}
    preview = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    return (
        GiveUp(
            key=failures.message_key(task_id, headers.get("retries"), body),
            task_name=task,
            task_id=task_id,
            submission_id=failures.submission_in(str(headers.get("argsrepr") or "")),
            reason=DeadLetter.Reason.RETRIES_EXHAUSTED if known else DeadLetter.Reason.POISON,
            error_class=ErrorClass.UNKNOWN,
            error_message=(
                f"dead-lettered by the broker ({death.get('reason', 'rejected')} from "
                f"{death.get('queue', 'a queue')}) without a failure record"
            ),
            attempts=int(headers.get("retries") or 0) + 1 if known else 0,
            failures=int(headers.get("retries") or 0) + 1 if known else 0,
            at=_when(death.get("time")),
            payload={
                "headers": {k: str(v)[:500] for k, v in headers.items()},
                "content_type": message.content_type or "",
                "body_preview": preview[:2000],
            },
        ),
        False,
    )


def _when(dead_lettered_at: Any) -> str:
    """When the broker dead-lettered the message (``x-death``), else now."""
    if isinstance(dead_lettered_at, datetime):
        moment = dead_lettered_at
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()
    return timezone.now().isoformat()


def _as_record(letter: DeadLetter) -> GiveUp:
    return GiveUp(
        key=letter.message_key or f"row:{letter.pk}",
        task_name=letter.task_name,
        task_id=letter.task_id,
        submission_id=str(letter.submission_id) if letter.submission_id else None,
        reason=letter.reason,
        error_class=letter.error_class,
        error_message=letter.error_message,
        attempts=letter.attempts,
        at=letter.created_at.isoformat(),
    )


def _republish(message: Message, conn: Connection) -> None:
    conn.Producer().publish(
        message.body,
        exchange=DEAD_LETTER_EXCHANGE,
        routing_key=DEAD_LETTER_QUEUE.routing_key,
        content_type=message.content_type,
        content_encoding=message.content_encoding,
        headers=message.headers,
        delivery_mode=2,
        retry=True,
        retry_policy=FAST_PUBLISH_RETRY_POLICY,
    )


def _restore_missing(conn: Connection, report: ReconcileReport, before: Any) -> None:
    """Give a copy to each open row old enough that its own copy should be there."""
    missing = DeadLetter.objects.filter(status=DeadLetter.Status.OPEN, created_at__lt=before)
    for letter in missing.exclude(message_key__in=report.keys).iterator():
        if letter.message_key is None:
            DeadLetter.objects.filter(pk=letter.pk).update(message_key=f"row:{letter.pk}")
            letter.message_key = f"row:{letter.pk}"
        publish(_as_record(letter), conn)
        report.restored += 1


@contextmanager
def _one_pass_at_a_time() -> Iterator[bool]:
    if connection.vendor != "postgresql":
        yield True
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [_LOCK])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [_LOCK])
            except Exception:
                # The connection is gone, and the lock with it.
                connection.close()


def request_pass() -> bool:
    """Ask a worker for a pass now (after a dead letter was closed); False if the broker is
    unreachable (the beat's next pass does it)."""
    try:
        current_app.send_task(
            "pipeline.sweeps.reconcile_dead_letters", retry_policy=FAST_PUBLISH_RETRY_POLICY
        )
    except Exception:
        logger.warning("could not ask for a dead-letter pass", exc_info=True)
        return False
    return True


def depth() -> int | None:
    """Messages in submission-dlq now; None when the broker cannot be reached."""
    try:
        with _connection(None) as conn:
            queue = DEAD_LETTER_QUEUE(conn.default_channel)
            queue.declare()
            return queue.queue_declare(passive=True).message_count  # type: ignore[union-attr]
    except Exception:
        logger.warning("submission-dlq depth: the broker is unreachable", exc_info=True)
        return None
