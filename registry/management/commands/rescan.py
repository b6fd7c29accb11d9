"""``manage.py rescan [--all | --owner X | --since DATE] [--wait]``: start a re-scan campaign."""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from registry import rescans
from registry.models import RescanCampaign

STALL_S = 120


class Command(BaseCommand):
    help = (
        "Re-scan published versions with today's rules and judge: what is now worse goes to "
        "review, what now fails Tier 1 is quarantined."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--all", action="store_true", help="every published version")
        which.add_argument("--owner", help="one owner's skills")
        which.add_argument("--since", type=date.fromisoformat, help="published since YYYY-MM-DD")
        parser.add_argument("--by", default="operator", help="who starts it, for the record")
        parser.add_argument("--wait", action="store_true", help="follow it until it finishes")

    def handle(self, *args: Any, **options: Any) -> None:
        scope = rescans.RescanScope(
            owner=str(options["owner"] or ""),
            since=options["since"],
        )
        campaign = rescans.start_campaign(scope, started_by=str(options["by"]))
        self.stdout.write(f"re-scan {campaign.pk} started: {campaign.total} version(s)")
        if options["wait"]:
            self._follow(campaign)

    def _follow(self, campaign: RescanCampaign) -> None:
        """Print progress as it changes; give up when nothing moved for STALL_S seconds."""
        shown, moved_at = "", time.monotonic()
        while campaign.status != RescanCampaign.Status.FINISHED:
            time.sleep(1)
            campaign.refresh_from_db()
            line = (
                f"{campaign.done + campaign.failed}/{campaign.total} re-scanned, "
                f"{campaign.changed} worse, {campaign.failed} failed"
            )
            if line != shown:
                self.stdout.write(line)
                shown, moved_at = line, time.monotonic()
            elif time.monotonic() - moved_at > STALL_S:
                raise CommandError(
                    f"no progress for {STALL_S} s: are the re-scan workers running "
                    "(celery -A config worker -Q registry.rescan)?"
                )
        self.stdout.write(f"finished: {campaign.changed} version(s) worse than before")
