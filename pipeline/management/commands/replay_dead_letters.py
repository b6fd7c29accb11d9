"""``manage.py replay_dead_letters [ID ...] [--all]``: re-send dead-lettered submissions, and
optionally close those that cannot move any more.

Prints what it did for each dead letter and a summary; exits 1 when nothing could be replayed
(or resolved) — a script or an operator sees at once that the dead letters are still open.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from pipeline.models import DeadLetter
from pipeline.services import dead_letters


class Command(BaseCommand):
    help = (
        "Replay open dead letters: each submission resumes from its current state. With "
        "--resolve-ended, those whose submission has ended are resolved instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="dead letter ids")
        parser.add_argument("--all", action="store_true", help="every open dead letter")
        parser.add_argument(
            "--resolve-ended",
            action="store_true",
            help="resolve (close) the dead letters whose submission has ended",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        ids = options["ids"]
        if bool(ids) == bool(options["all"]):
            raise CommandError("give dead letter ids, or --all (not both)")
        letters = DeadLetter.objects.select_related("submission").order_by("created_at")
        letters = letters.filter(pk__in=ids) if ids else letters.filter(status="open")
        missing = set(ids) - set(letters.values_list("pk", flat=True)) if ids else set()
        if missing:
            raise CommandError(f"no dead letters with ids {sorted(missing)}")
        replayed = resolved = 0
        for letter in letters:
            result = dead_letters.replay(letter, actor="cli")
            if not result.done and options["resolve_ended"]:
                resolution = dead_letters.resolve(letter, actor="cli")
                if resolution.done:
                    resolved += 1
                    self.stdout.write(f"#{letter.pk}: {resolution.message}")
                    continue
            replayed += result.done
            self.stdout.write(f"#{letter.pk}: {result.message}")
        total = len(letters)
        summary = f"replayed {replayed} of {total}" + (
            f", resolved {resolved}" if options["resolve_ended"] else ""
        )
        if total and not (replayed or resolved):
            raise CommandError(f"{summary}: nothing could be done")
        self.stdout.write(summary)
