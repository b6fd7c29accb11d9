"""The blind suites (``tests/fixtures/grading/blind7`` … ``blind14``), each written by
someone who never read the scanner: its first look is the figure in its README, and that is the
figure closest to what we will meet. Their misses were then fixed as classes (each with
fixtures in words of our own), so here every suite holds the line it reached: a plainly
malicious skill is blocked, a dual-use skill reaches a person, and an honest skill is never
blocked (a person may still see it). An error not yet fixed is a strict expected failure, so
that its fix is seen."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.unit.grading.bundles import BLOCKED, outcome

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "grading"
SUITES = ("blind7", "blind8", "blind9", "blind10", "blind11", "blind12", "blind13", "blind14")

OPEN: dict[str, str] = {}
"""Skills of a suite whose line is not held yet, with the reason."""


def _labels(suite: str) -> dict[str, str]:
    rows = csv.DictReader((FIXTURES / suite / "manifest.csv").open(encoding="utf-8"))
    return {row["id"]: row["label"] for row in rows}


def _cases(*labels: str) -> list[object]:
    return [
        pytest.param(suite, skill, id=skill, marks=_open(skill))
        for suite in SUITES
        for skill, label in sorted(_labels(suite).items())
        if label in labels
    ]


def _open(skill: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=OPEN[skill])] if skill in OPEN else []


@pytest.mark.parametrize("suite", SUITES)
def test_a_suite_holds_every_label_it_was_written_with(suite: str) -> None:
    labels = _labels(suite)
    assert sorted(set(labels.values())) == ["benign", "dual-use", "malicious"]
    assert all((FIXTURES / suite / skill / "SKILL.md").is_file() for skill in labels)


@pytest.mark.parametrize(("suite", "skill"), _cases("malicious"))
def test_a_plainly_malicious_skill_is_blocked(suite: str, skill: str) -> None:
    assert outcome(FIXTURES / suite / skill) in BLOCKED


@pytest.mark.parametrize(("suite", "skill"), _cases("dual-use"))
def test_a_dual_use_skill_reaches_a_person(suite: str, skill: str) -> None:
    assert outcome(FIXTURES / suite / skill) == "review"


@pytest.mark.parametrize(("suite", "skill"), _cases("benign"))
def test_an_honest_skill_is_never_blocked(suite: str, skill: str) -> None:
    assert outcome(FIXTURES / suite / skill) not in BLOCKED
