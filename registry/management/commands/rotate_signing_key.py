"""``manage.py rotate_signing_key``: a new signing key, endorsed by the old one."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from registry import signing


class Command(BaseCommand):
    help = (
        "Make a new ed25519 signing key current. The old key signs an endorsement of the new "
        "one and its private half is deleted; its public half stays in the keyring, so what it "
        "signed still verifies and clients that pinned it follow the endorsement to the new key."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        old, new = signing.rotate()
        self.stdout.write(f"signing key rotated: {old} retired, {new} current")
        self.stdout.write(
            "Every web process reads the new key on its next signature; publish the new key id "
            "where your users check fingerprints."
        )
