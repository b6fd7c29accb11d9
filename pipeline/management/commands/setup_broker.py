"""``manage.py setup_broker``: declare the queue topology on the configured broker."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from kombu import Connection

from config.celery import declare_topology


class Command(BaseCommand):
    help = (
        "Declare every pipeline queue, the dead-letter exchange and the dead-letter queue on "
        "the configured broker (idempotent), and print each queue's depth."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        with Connection(settings.CELERY_BROKER_URL, connect_timeout=5) as connection:
            connection.ensure_connection(max_retries=3)
            depths = declare_topology(connection.default_channel)
        if int(str(options.get("verbosity", 1))) >= 1:
            for name, depth in depths.items():
                self.stdout.write(f"{name}: {depth} ready")
