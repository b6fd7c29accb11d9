"""``manage.py bootstrap_demo``: accounts and demo skills for ``make run``; prints the logins."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.management.base import BaseCommand

from pipeline.services.demo import ensure_account, submit_demo_skills
from reviews.roles import REVIEWERS_GROUP


class Command(BaseCommand):
    help = "Create the demo admin and author accounts and submit the demo skills."

    def handle(self, *args: object, **options: object) -> None:
        secrets_dir = settings.VAR_DIR / "secrets"
        admin = ensure_account("admin", secrets_dir / "admin-password", superuser=True)
        author = ensure_account("author", secrets_dir / "author-password")
        reviewer = ensure_account(
            "reviewer", secrets_dir / "reviewer-password", groups=(REVIEWERS_GROUP,)
        )
        submitted = submit_demo_skills(author.user, settings.BASE_DIR / "demo" / "skills")
        (settings.VAR_DIR / "flower.env").write_text(f"FLOWER_BASIC_AUTH=admin:{admin.password}\n")
        port = os.environ.get("PORT", "8000")
        self.stdout.write(
            "\n".join(
                [
                    "",
                    "Skillgate is starting:",
                    f"  API        http://127.0.0.1:{port}/api/v1/   (docs: /api/docs/)",
                    f"  Admin      http://127.0.0.1:{port}/admin/    login: admin / "
                    f"{admin.password}",
                    f"  Flower     http://127.0.0.1:5555/            login: admin / "
                    f"{admin.password}",
                    f"  Reviewer   login: reviewer / {reviewer.password}"
                    "   (the admin's review queue)",
                    f"  Author     login: author / {author.password}   API token: {author.token}",
                    f"  Demo skills submitted now: {len(submitted)}",
                    "  Try:  .venv/bin/python manage.py submit demo/skills/weather-report --wait",
                    "",
                ]
            )
        )
