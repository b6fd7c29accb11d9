"""``manage.py rotate_signing_key``: a new signing key, endorsed by the old one."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from registry import signing


class Command(BaseCommand):
    help = (
        "Make a new ed25519 signing key current. The old key signs an endorsement of the new "
        "one and its private half is deleted; its public half stays in the keyring, so what it "
        "signed still verifies and clients that pinned it follow the endorsement to the new key."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--init",
            action="store_true",
            help="only create the first key when the folder has none (a new deployment); an "
            "existing key is kept and its id printed",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["init"]:
            created = signing.ensure_key()
            verb = "created" if created else "kept"
            self.stdout.write(f"signing key {verb}: {signing.keyring().current_id}")
            return
        old, new = signing.rotate()
        self.stdout.write(f"signing key rotated: {old} retired, {new} current")
        self.stdout.write(
            "Every web process reads the new key on its next signature; publish the new key id "
            "where your users check fingerprints."
        )
