"""``manage.py bootstrap_demo``: the demo accounts, before ``make run`` starts its processes
(Flower's login is the admin's, so it must exist first)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand

from config.roles import REVIEWERS_GROUP
from pipeline.services.demo import ensure_account


class Command(BaseCommand):
    help = "Create the demo admin, reviewer and author accounts and Flower's login file."

    def handle(self, *args: Any, **options: Any) -> None:
        secrets_dir = settings.VAR_DIR / "secrets"
        admin = ensure_account("admin", secrets_dir / "admin-password", superuser=True)
        ensure_account(
            "author", secrets_dir / "author-password", token_file=secrets_dir / "author-token"
        )
        ensure_account("reviewer", secrets_dir / "reviewer-password", groups=(REVIEWERS_GROUP,))
        lines = [f"FLOWER_BASIC_AUTH=admin:{admin.password}"]
        broker = urlsplit(settings.CELERY_BROKER_URL)
        if broker.scheme in {"amqp", "pyamqp"}:
            # Flower's Broker tab reads queue lengths from RabbitMQ's management API.
            lines.append(
                f"FLOWER_BROKER_API=http://{broker.username}:{broker.password}@"
                f"{broker.hostname}:15672/api/"
            )
        (settings.VAR_DIR / "flower.env").write_text("\n".join(lines) + "\n")
