"""``manage.py create_account NAME [--role ROLE]… [--token NAME]``: an account, its password and
(for authors) an API token, printed once."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import services, tokens
from config import scopes


class Command(BaseCommand):
    help = (
        "Create an account with a generated password. Without --role it is an author (never "
        "staff) and gets an API token (read, submit, yank); --role Reviewers|Security|Operators "
        "(repeatable) makes a staff account in those groups. The password and token are shown "
        "once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--role", action="append", default=[], help=", ".join(services.ROLE_GROUPS)
        )
        parser.add_argument(
            "--token", default="", metavar="NAME", help="name of the API token (authors: 'cli')"
        )
        parser.add_argument(
            "--scope",
            action="append",
            default=[],
            choices=list(scopes.SCOPES),
            help="the token's scopes (repeatable; default read, submit, yank)",
        )
        parser.add_argument("--days", type=int, default=tokens.DEFAULT_DAYS, help="token life")

    def handle(self, *args: Any, **options: Any) -> None:
        roles = tuple(options["role"])
        try:
            made = services.create_account(options["username"], options["email"], roles)
            token_name = options["token"] or ("" if roles else "cli")
            issued = (
                tokens.issue(
                    made.user,
                    token_name,
                    options["scope"] or scopes.AUTHOR_SCOPES,
                    options["days"],
                )
                if token_name
                else None
            )
        except (services.AccountRefused, tokens.TokenRefused) as refused:
            raise CommandError(str(refused)) from refused
        kind = ", ".join(roles) if roles else "author"
        base = settings.SKILLGATE_BASE_URL
        self.stdout.write(f"created {made.user.username} ({kind})")
        where = f"{base}/admin/" if roles else f"{base}/account/"
        self.stdout.write(f"  password: {made.password}   (shown once; sign in at {where})")
        if issued is not None:
            self.stdout.write(
                f"  API token {issued.token.name!r} ({', '.join(issued.token.scopes)}, until "
                f"{issued.token.expires_at:%Y-%m-%d}): {issued.key}"
            )
            self.stdout.write(f"  then: skillgate login --registry {base}   (paste the token)")
