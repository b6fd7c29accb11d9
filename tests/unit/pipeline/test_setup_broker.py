"""``manage.py setup_broker`` makes a broker nobody used yet ready: every queue exists, with its
dead-lettering, before anything publishes."""

from __future__ import annotations

from django.core.management import call_command
from kombu import Connection

from config.celery import ALL_QUEUES, DEAD_LETTER_QUEUE, PIPELINE_EXCHANGE, SCAN_QUEUE
from tests.support.rabbitmq import fresh_vhost
from tests.support.stack import wait_until


def test_it_declares_every_queue_on_a_fresh_vhost(settings, capsys):
    with fresh_vhost() as broker_url:
        settings.CELERY_BROKER_URL = broker_url
        call_command("setup_broker")
        with Connection(broker_url) as connection:
            channel = connection.default_channel
            for queue in ALL_QUEUES:
                # kombu-stubs type queue_declare() as ``str | None``: it is queue_declare_ok_t.
                declared = queue(channel).queue_declare(passive=True)
                assert declared.message_count == 0  # type: ignore[union-attr]
            connection.Producer().publish(
                {"poison": True}, exchange=PIPELINE_EXCHANGE, routing_key=SCAN_QUEUE
            )
            scan = next(q for q in ALL_QUEUES if q.name == SCAN_QUEUE)(channel)
            wait_until(lambda: scan.get(no_ack=False), message="the message").reject()
            dead = DEAD_LETTER_QUEUE(channel)
            letter = wait_until(lambda: dead.get(no_ack=True), message="the dead letter")
            assert letter.payload == {"poison": True}
    printed = capsys.readouterr().out
    assert all(f"{queue.name}: 0 ready" in printed for queue in ALL_QUEUES)
