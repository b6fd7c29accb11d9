"""``manage.py demo_session``: the last process of ``make run``. It waits until the web server,
a worker and Flower are up, submits the demo skills, prints where everything is and the logins,
then stays until Ctrl-C (the process manager stops everything when one process exits)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.roles import REVIEWERS_GROUP
from pipeline.services.demo import (
    FleetNotReady,
    demo_outcomes,
    ensure_account,
    submit_demo_skills,
    wait_for_fleet,
)

READY_TIMEOUT_S = 180
SETTLE_TIMEOUT_S = 60


class Command(BaseCommand):
    help = "Wait for the fleet of `make run`, submit the demo skills and print the banner."

    def handle(self, *args: Any, **options: Any) -> None:
        started = float(os.environ.get("SKILLGATE_RUN_STARTED", time.time()))
        # honcho gives each process its own PORT; the web server's is passed on by `make run`.
        port = os.environ.get("SKILLGATE_WEB_PORT", "8000")
        web_url = f"http://127.0.0.1:{port}"
        flower_port = os.environ.get("FLOWER_PORT", "5555")
        with_flower = settings.CELERY_BROKER_URL.split("://", 1)[0] in {"amqp", "pyamqp"}
        flower_url = f"http://127.0.0.1:{flower_port}" if with_flower else None
        secrets_dir = settings.VAR_DIR / "secrets"
        admin = ensure_account("admin", secrets_dir / "admin-password", superuser=True)
        author = ensure_account(
            "author", secrets_dir / "author-password", token_file=secrets_dir / "author-token"
        )
        reviewer = ensure_account(
            "reviewer", secrets_dir / "reviewer-password", groups=(REVIEWERS_GROUP,)
        )
        try:
            wait_for_fleet(
                web_url,
                flower_url=flower_url,
                flower_auth=f"admin:{admin.password}",
                timeout_s=READY_TIMEOUT_S,
                log=lambda line: self.stdout.write(line),
            )
        except FleetNotReady as exc:
            raise CommandError(str(exc)) from exc
        folder = settings.BASE_DIR / "demo" / "skills"
        submit_demo_skills(author.user, folder)
        outcomes = demo_outcomes(author.user, folder, SETTLE_TIMEOUT_S)
        flower_line = (
            f"  Flower     {flower_url}/   login: admin / {admin.password}"
            if flower_url
            else "  Flower     not started: the embedded broker carries no worker events; "
            "`make run` (RabbitMQ) has it"
        )
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"Skillgate is ready ({time.time() - started:.0f} s after `make`):",
                    f"  Home       {web_url}/",
                    f"  API        {web_url}/api/v1/   (docs: {web_url}/api/docs/)",
                    f"  Admin      {web_url}/admin/    login: admin / {admin.password}",
                    flower_line,
                    f"  Reviewer   login: reviewer / {reviewer.password}   (admin review queue)",
                    f"  Author     login: author / {author.password}   {web_url}/account/",
                    f"             API token (read, submit, yank): {author.token}",
                    "  Demo skills: "
                    + ", ".join(f"{name} {state}" for name, state in outcomes.items()),
                    f"  Database   {_redacted(settings.DATABASES['default'])}",
                    f"  Broker     {_redacted_url(settings.CELERY_BROKER_URL)}",
                    f"  Try:  .venv/bin/skillgate login --registry {web_url}   (paste the token)",
                    "        .venv/bin/skillgate submit demo/skills/weather-report --wait",
                    "        .venv/bin/skillgate install author/weather-report --dest /tmp/skills",
                    "  Ctrl-C stops everything.",
                    "",
                ]
            )
        )
        _wait_for_stop()


def _redacted(database: Mapping[str, Any]) -> str:
    if database["ENGINE"].endswith("sqlite3"):
        return f"SQLite {database['NAME']}"
    return f"PostgreSQL {database['NAME']} on {database['HOST'] or 'localhost'}"


def _redacted_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rsplit('@', 1)[-1]}"


def _wait_for_stop() -> None:
    """Sleep until SIGINT or SIGTERM, then leave quietly (exit 0)."""

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while True:
        signal.pause()
