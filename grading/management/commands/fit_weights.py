"""``manage.py fit_weights ROOT [--out FILE] [--regularisation L]``: fit the heuristic judge's
weights to a labelled corpus.

Scans every skill of ROOT/manifest.csv with Tier 1, turns the findings into features and fits
the logistic regression of ``grading.judges.fitting``; writes the weights (by default over the
shipped ``grading/judges/data/heuristic-weights.json``) and prints them with their version.
Deterministic: the same corpus and catalogue give byte-identical weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grading.corpus import CorpusError, read_manifest
from grading.evaluation import samples, scan_corpus
from grading.judges.fitting import REGULARISATION, fit
from grading.judges.weights import WEIGHTS_FILE


class Command(BaseCommand):
    help = "Fit the heuristic judge's weights to a labelled corpus and write them."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("root", type=Path, help="folder holding manifest.csv")
        parser.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="weights file to write")
        parser.add_argument("--regularisation", type=float, default=REGULARISATION)

    def handle(self, *args: Any, **options: Any) -> None:
        root: Path = options["root"]
        try:
            read_manifest(root)
        except CorpusError as exc:
            raise CommandError(f"unusable corpus: {exc}") from exc
        training = samples(scan_corpus(root))
        if len({s.harmful for s in training}) < 2:
            raise CommandError("the corpus needs both benign and malicious skills")
        weights = fit(training, regularisation=options["regularisation"])
        weights.save(options["out"])
        self.stdout.write(f"heuristic/{weights.version} from {len(training)} skills")
        self.stdout.write(f"  {'intercept':40} {weights.intercept:+.3f}")
        for name, value in sorted(weights.coefficients.items(), key=lambda kv: -kv[1]):
            self.stdout.write(f"  {name:40} {value:+.3f}")
        self.stdout.write(f"wrote {options['out']}")
