"""Outcomes never depend on the interpreter's hash seed (set and dict iteration order).

Tier 1 keeps a bounded number of hits per rule and file; if the order in which views or rules
were visited depended on ``PYTHONHASHSEED``, the hits kept — downgraded documentation or
full-severity instructions — and so the score would vary from one worker process to the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "grading"

_GRADE_FIXTURES = """
import json, sys
from pathlib import Path
from grading.judges.heuristic import HeuristicJudge
from grading.policy import decide
from grading.tier1 import scan

judge = HeuristicJudge()
results = {}
for folder in sorted(p.parent for p in Path(sys.argv[1]).rglob("SKILL.md")):
    files = {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*")) if p.is_file()
    }
    report = scan(files)
    judgement = None if report.verdict == "FAIL" else judge.judge(files, report)
    decision = decide(report, judgement, auto_approve_min=80, review_min=60)
    results[folder.relative_to(sys.argv[1]).as_posix()] = {
        "findings": [f.to_dict() for f in report.findings],
        "privileges": list(report.privileges),
        "score": judgement.score if judgement else None,
        "notes": judgement.notes if judgement else None,
        "outcome": decision.outcome,
    }
print(json.dumps(results, sort_keys=True))
"""


def _grade_under(seed: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", _GRADE_FIXTURES, str(FIXTURES)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=240,
    )
    return json.loads(completed.stdout)


def test_every_fixture_grades_identically_under_different_hash_seeds() -> None:
    first, second, third = (_grade_under(seed) for seed in ("0", "1", "4"))
    assert "determinism" in first  # the HTML page whose views used to be visited in set order
    assert first == second == third
