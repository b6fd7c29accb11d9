"""The blind8 suite (``tests/fixtures/grading/blind8``), written by someone who never read the
scanner: its first look is the figure in its README. Its misses were fixed as classes, so it now
holds the line it reached: no plainly malicious skill is auto-approved, and neither a dual-use
nor an honest skill is blocked (the last one, a secret scanner that checks key files' permissions
and advises a history rewrite, since round 7: ``test_precision8_classes.py``)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.unit.grading.test_recall_classes import outcome

SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "grading" / "blind8"
LABELS = {
    row["id"]: row["label"]
    for row in csv.DictReader((SUITE / "manifest.csv").open(encoding="utf-8"))
}
BLOCKED = {"reject", "tier1_fail"}


def test_the_suite_holds_every_label_it_was_written_with() -> None:
    assert sorted(set(LABELS.values())) == ["benign", "dual-use", "malicious"]
    assert all((SUITE / skill / "SKILL.md").is_file() for skill in LABELS)


@pytest.mark.parametrize("skill", sorted(s for s, label in LABELS.items() if label == "malicious"))
def test_a_plainly_malicious_skill_is_never_auto_approved(skill: str) -> None:
    assert outcome(SUITE / skill) != "auto_approve"


@pytest.mark.parametrize("skill", sorted(s for s, label in LABELS.items() if label != "malicious"))
def test_a_dual_use_or_honest_skill_is_never_blocked(skill: str) -> None:
    assert outcome(SUITE / skill) not in BLOCKED
