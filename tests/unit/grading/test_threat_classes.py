"""The threat classes of issue 10, each with true-positive and true-negative skills of our own
(``tests/fixtures/grading/threats``): where Tier 1, the shipped weights and the policy send them.

``expect.txt`` holds the outcome: ``auto_approve``, ``review``, or ``blocked`` (rejected by the
judge or failed by Tier 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.grading.bundles import BLOCKED, FIXTURES, decide, read

THREATS = FIXTURES / "threats"
CASES = sorted(p.name for p in THREATS.iterdir() if (p / "expect.txt").is_file())


def outcome(folder: Path) -> str:
    files = read(folder)
    del files["expect.txt"]
    decided = decide(files).outcome
    return "blocked" if decided in BLOCKED else decided


@pytest.mark.parametrize("case", CASES)
def test_each_threat_class_lands_where_it_should(case: str) -> None:
    expected = (THREATS / case / "expect.txt").read_text(encoding="utf-8").strip()
    assert outcome(THREATS / case) == expected


def test_there_are_positives_and_negatives() -> None:
    expectations = {(THREATS / c / "expect.txt").read_text().strip() for c in CASES}
    assert expectations == {"auto_approve", "review", "blocked"}
