"""``manage.py set_roles NAME --add ROLE | --remove ROLE``: put an account in or out of the
Reviewers, Security and Operators groups (staff follows)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import services


class Command(BaseCommand):
    help = (
        "Add an account to, or remove it from, the groups Reviewers, Security and Operators. "
        "A role makes the account staff (the admin is where roles work); an account left with "
        "no role stops being staff, unless it is a superuser."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--add", action="append", default=[], metavar="ROLE")
        parser.add_argument("--remove", action="append", default=[], metavar="ROLE")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["add"] and not options["remove"]:
            raise CommandError(
                f"say --add ROLE or --remove ROLE; the roles are {', '.join(services.ROLE_GROUPS)}"
            )
        try:
            user = services.account(options["username"])
            if options["add"]:
                services.add_roles(user, options["add"])
            if options["remove"]:
                services.remove_roles(user, options["remove"])
        except services.AccountRefused as refused:
            raise CommandError(str(refused)) from refused
        held = sorted(
            user.groups.filter(name__in=services.ROLE_GROUPS).values_list("name", flat=True)
        )
        staff = "staff" if user.is_staff else "not staff"
        self.stdout.write(f"{user.username}: {', '.join(held) or 'no role'} ({staff})")
