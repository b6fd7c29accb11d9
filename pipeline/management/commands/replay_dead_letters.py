"""``manage.py replay_dead_letters [ID ...] [--all]``: re-send dead-lettered submissions."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.models import DeadLetter
from pipeline.services.dead_letters import replay


class Command(BaseCommand):
    help = "Replay dead letters: each submission resumes from its current state."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="dead letter ids")
        parser.add_argument("--all", action="store_true", help="every dead letter not replayed")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = options["ids"]
        if bool(ids) == bool(options["all"]):
            raise CommandError("give dead letter ids, or --all (not both)")
        letters = DeadLetter.objects.select_related("submission").order_by("created_at")
        letters = letters.filter(pk__in=ids) if ids else letters.filter(replayed_at__isnull=True)
        missing = set(ids) - set(letters.values_list("pk", flat=True)) if ids else set()
        if missing:
            raise CommandError(f"no dead letters with ids {sorted(missing)}")
        replayed = 0
        for letter in letters:
            result = replay(letter, actor="cli")
            replayed += result.replayed
            self.stdout.write(f"#{letter.pk}: {result.message}")
        self.stdout.write(f"replayed {replayed} of {len(letters)}")
