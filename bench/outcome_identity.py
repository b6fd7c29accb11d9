"""A fingerprint of what grading decides, to show a speed-up changed no outcome.

    PYTHONHASHSEED=0 python bench/outcome_identity.py [CORPUS] [--fixtures DIR] [--list FILE]

Every corpus entry (``CORPUS/manifest.csv``) and every fixture skill (each folder under
``--fixtures`` holding a SKILL.md) goes through Tier 1, the configured judge and the decision policy
exactly as ``scan_corpus`` does. Two SHA-256 hashes are printed: ``outcomes`` over each item's
(path, outcome, sorted finding rule ids, score), and ``reports`` over each Tier 1 report with its
timing left out (every finding's location and evidence, the inventory and the instruction graph) —
the stricter one; the last line repeats them as a JSON object, as every benchmark's does. Run it
on two branches under the same ``PYTHONHASHSEED`` and compare: an optimisation that changes
either hash changed what the scanner says. ``--list`` writes the rows behind the hashes, one a
line, for diffing when they differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from grading import tier1  # noqa: E402
from grading.corpus import _folder, iter_skills  # noqa: E402
from grading.judges import get_judge  # noqa: E402
from grading.policy import decide  # noqa: E402
from grading.types import Judge, SkillFiles  # noqa: E402


def _items(corpus: Path, fixtures: Path) -> Iterator[tuple[str, SkillFiles]]:
    """Every corpus entry, then every fixture skill, each named by its path."""
    for skill in iter_skills(corpus):
        if not skill.error:
            path = skill.entry.path
            name = path.relative_to(corpus) if path.is_relative_to(corpus) else path
            yield str(name), skill.files
    for manifest in sorted(fixtures.rglob("SKILL.md")):
        yield f"fixtures/{manifest.parent.relative_to(fixtures)}", _folder(manifest.parent)


def _row(name: str, files: SkillFiles, judge: Judge) -> tuple[str, str]:
    """The item's outcome row and its timing-free report, both as canonical JSON."""
    report = tier1.scan(files)
    judgement = judge.judge(files, report) if report.verdict != "FAIL" else None
    decision = decide(
        report,
        judgement,
        auto_approve_min=settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE,
        review_min=settings.SKILLGATE_REVIEW_MIN_SCORE,
    )
    rules = sorted(f.rule_id for f in report.findings)
    score = judgement.score if judgement else None
    full: dict[str, Any] = {k: v for k, v in report.to_dict().items() if k != "duration_ms"}
    outcome = json.dumps([name, decision.outcome, rules, score])
    return outcome, json.dumps([name, full], sort_keys=True, default=str)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, nargs="?", default=Path("/work/shared/corpus"))
    parser.add_argument("--fixtures", type=Path, default=ROOT / "tests/fixtures/grading")
    parser.add_argument("--list", type=Path, help="write every outcome row to this file")
    args = parser.parse_args()
    judge = get_judge(None)
    outcomes, reports = hashlib.sha256(), hashlib.sha256()
    rows: list[str] = []
    for name, files in _items(args.corpus, args.fixtures.resolve()):
        outcome, report = _row(name, files, judge)
        outcomes.update(outcome.encode() + b"\n")
        reports.update(report.encode() + b"\n")
        rows.append(outcome)
    if args.list:
        args.list.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"items {len(rows)}")
    print(f"outcomes {outcomes.hexdigest()}")
    print(f"reports {reports.hexdigest()}")
    figures = {"items": len(rows), "outcomes": outcomes.hexdigest(), "reports": reports.hexdigest()}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
