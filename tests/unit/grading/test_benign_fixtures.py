"""Honest skills near the rules' boundaries stay auto-approved (tests/fixtures/grading/benign).

Each fixture does something a careless rule would flag — calls documented APIs with the user's
token, quotes attack phrases in a security checklist, runs a Python here-document from a shell
script, ranks data, caches conversions, builds SQL safely next to a "BAD" example, takes
screenshots on request — and must pass Tier 1, score at least the auto-approval threshold with
the offline judge and be auto-approved by the policy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.judges.heuristic import HeuristicJudge
from grading.policy import decide
from grading.tier1 import scan
from grading.types import SEVERITY_ORDER

from .conftest import FIXTURES

BENIGN = FIXTURES / "benign"
SKILLS = sorted(p.name for p in BENIGN.iterdir() if p.is_dir())


def _files(root: Path) -> dict[str, str | bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*")
        if p.is_file()
    }


def test_there_are_benign_fixtures_of_several_kinds() -> None:
    assert len(SKILLS) >= 8


@pytest.mark.parametrize("name", SKILLS)
def test_a_benign_fixture_is_auto_approved(name: str) -> None:
    files = _files(BENIGN / name)
    report = scan(files)
    judgement = HeuristicJudge().judge(files, report)
    decision = decide(report, judgement, auto_approve_min=80, review_min=60)
    worst = max((SEVERITY_ORDER[f.severity] for f in report.findings), default=0)
    assert report.verdict == "PASS"
    assert not report.high_privilege, report.privileges
    assert worst <= SEVERITY_ORDER["medium"], [f.rule_id for f in report.findings]
    assert (decision.outcome, judgement.score >= 80) == ("auto_approve", True), judgement.concerns
