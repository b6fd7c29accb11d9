"""The demo skills ``make run`` submits show each way a submission can end."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import policy, tier1
from grading.judges import get_judge

DEMO = Path(__file__).resolve().parents[3] / "demo" / "skills"


def decide(folder: Path) -> str:
    files = {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}
    report = tier1.scan(files)
    judgement = get_judge("heuristic").judge(files, report) if report.verdict == "PASS" else None
    return policy.decide(report, judgement, auto_approve_min=80, review_min=60).outcome


@pytest.mark.parametrize(
    ("skill", "outcome"),
    [
        ("weather-report", "auto_approve"),
        ("nightly-cleanup", "review"),
        ("answer-personaliser", "reject"),
        ("quick-setup", "tier1_fail"),
        ("prompt-booster", "tier1_fail"),
    ],
)
def test_each_demo_skill_lands_where_the_readme_says(skill, outcome):
    assert decide(DEMO / skill) == outcome
