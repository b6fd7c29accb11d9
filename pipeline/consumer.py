"""The worker's message consumer, changed in one respect: a poison message is dead-lettered
and recorded, never acknowledged away (Celery's default for undecodable messages) or looped.

Celery already rejects unknown tasks and malformed messages without requeue (so RabbitMQ
dead-letters them into ``submission-dlq``); the signal handlers here record those too.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import signals
from celery.worker.consumer import Consumer
from kombu.message import Message

from pipeline.services.failures import record_poison

logger = logging.getLogger(__name__)


def _record(message: Message, error: str) -> None:
    try:
        record_poison(message.headers, message.body, message.content_type or "", error)
    except Exception:
        logger.exception("could not record a poison message")


class DeadLetteringConsumer(Consumer):
    def on_decode_error(self, message: Message, exc: Exception) -> None:
        logger.error("undecodable message dead-lettered: %r", exc)
        _record(message, f"undecodable message: {exc!r}")
        message.reject(requeue=False)


@signals.task_unknown.connect
def _on_unknown_task(
    sender: Any, message: Message, exc: Exception, name: str, id: str, **kwargs: Any
) -> None:
    _record(message, f"unknown task {name!r}")


@signals.task_rejected.connect
def _on_rejected(sender: Any, message: Message, exc: Exception | None, **kwargs: Any) -> None:
    _record(message, f"malformed message: {exc!r}" if exc else "message of an unknown format")
