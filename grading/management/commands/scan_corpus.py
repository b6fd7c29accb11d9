"""``manage.py scan_corpus ROOT [--json FILE] [--judge NAME] [--cv source]``: grade a labelled
corpus offline.

Runs Tier 1, the judge and the decision policy on every skill listed in ROOT/manifest.csv — no
queue, no database — and reports outcome rates per label and per source plus Tier 1 latency.
With ``--cv source`` it also measures how the heuristic judge's fitted weights generalise:
leave-one-source-out, each source graded by weights fitted on all the others (the in-sample
table, graded by the shipped weights, is printed first); and then how the rules do, each source
also graded without the rules that fire on it alone among the malicious sources. Exits non-zero
only when the corpus itself is unusable (no manifest, missing columns).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.corpus import CorpusError, read_manifest
from grading.evaluation import OUTCOMES, cross_validate, grade, scan_corpus, summarise
from grading.judges import get_judge


class Command(BaseCommand):
    help = "Grade every skill of a labelled corpus (Tier 1 + judge + policy) and report rates."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("root", type=Path, help="folder holding manifest.csv")
        parser.add_argument("--json", type=Path, help="write the full results to this file")
        parser.add_argument("--judge", help="judge to use (default: settings.SKILLGATE_JUDGE)")
        parser.add_argument(
            "--cv",
            choices=["source"],
            help="also cross-validate the heuristic judge's weights, leaving one source out",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root: Path = options["root"]
        try:
            read_manifest(root)
        except CorpusError as exc:
            raise CommandError(f"unusable corpus: {exc}") from exc
        judge = get_judge(options["judge"])
        if options["cv"] and judge.provider != "heuristic":
            raise CommandError("--cv fits the heuristic judge's weights: use --judge heuristic")
        thresholds = {
            "auto_approve_min": settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE,
            "review_min": settings.SKILLGATE_REVIEW_MIN_SCORE,
        }
        scanned = scan_corpus(root)
        items = list(grade(scanned, judge, **thresholds))
        summary = {"corpus": str(root), "judge": judge.version, **summarise(items)}
        self._print(summary, f"corpus {root} — judge {judge.version} (in-sample)")
        document: dict[str, Any] = {"summary": summary, "items": [i.to_dict() for i in items]}
        if options["cv"]:
            for key, hold_out_rules, title in _CROSS_VALIDATIONS:
                held_out = cross_validate(
                    scanned,
                    auto_approve_min=thresholds["auto_approve_min"],
                    review_min=thresholds["review_min"],
                    hold_out_rules=hold_out_rules,
                )
                cv_summary = {"cv": options["cv"], **summarise(held_out)}
                self.stdout.write("")
                self._print(cv_summary, title, timing=False)
                document[key] = {"summary": cv_summary, "items": [i.to_dict() for i in held_out]}
        if options["json"]:
            options["json"].write_text(json.dumps(document, indent=1), encoding="utf-8")
            self.stdout.write(f"wrote {options['json']}")

    def _print(self, summary: dict[str, Any], title: str, *, timing: bool = True) -> None:
        header = f"{'':34}{'n':>5}" + "".join(f"{o:>14}" for o in OUTCOMES)
        header += f"{'not-auto':>10}{'blocked':>9}"
        self.stdout.write(title)
        self.stdout.write(header)
        self.stdout.write("by label")
        for label, row in summary["by_label"].items():
            self.stdout.write(_row(label, row))
        self.stdout.write("by source")
        for key, row in summary["by_source"].items():
            self.stdout.write(_row(key, row))
        if timing:
            ms = summary["tier1_ms"]
            self.stdout.write(
                f"tier 1 ms: median {ms['median']:.2f}  p95 {ms['p95']:.2f}"
                f"  p99 {ms['p99']:.2f}  max {ms['max']:.2f}"
            )
        for error in summary["errors"]:
            self.stderr.write(f"not graded: {error['id']}: {error['error']}")


_CROSS_VALIDATIONS = (
    (
        "cross_validation",
        False,
        "leave-one-source-out — each source graded by weights fitted without it",
    ),
    (
        "cross_validation_rules",
        True,
        "leave-one-source-out, rules too — each source also loses the rules only it trips"
        " (a pessimistic estimate for skills no rule was written from)",
    ),
)


def _row(name: str, row: dict[str, Any]) -> str:
    cells = "".join(f"{row['counts'][o]:>6} ({row['rates'][o]:>5.1%})" for o in OUTCOMES)
    return (
        f"  {name[:32]:32}{row['total']:>5}{cells}"
        f"{row['not_auto_approved_rate']:>10.1%}{row['blocked_rate']:>9.1%}"
    )
