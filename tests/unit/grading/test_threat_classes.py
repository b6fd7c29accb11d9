"""The threat classes of issue 10, each with true-positive and true-negative skills of our own
(``tests/fixtures/grading/threats``): where Tier 1, the shipped weights and the policy send them.

``expect.txt`` holds the outcome: ``auto_approve``, ``review``, or ``blocked`` (rejected by the
judge or failed by Tier 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import policy, tier1
from grading.judges.heuristic import HeuristicJudge

THREATS = Path(__file__).resolve().parents[2] / "fixtures" / "grading" / "threats"
CASES = sorted(p.name for p in THREATS.iterdir() if (p / "expect.txt").is_file())


def outcome(folder: Path) -> str:
    files = {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "expect.txt"
    }
    report = tier1.scan(files)
    judgement = None if report.verdict == "FAIL" else HeuristicJudge().judge(files, report)
    decided = policy.decide(report, judgement, auto_approve_min=80, review_min=60).outcome
    return "blocked" if decided in ("reject", "tier1_fail") else decided


@pytest.mark.parametrize("case", CASES)
def test_each_threat_class_lands_where_it_should(case: str) -> None:
    expected = (THREATS / case / "expect.txt").read_text(encoding="utf-8").strip()
    assert outcome(THREATS / case) == expected


def test_there_are_positives_and_negatives() -> None:
    expectations = {(THREATS / c / "expect.txt").read_text().strip() for c in CASES}
    assert expectations == {"auto_approve", "review", "blocked"}
