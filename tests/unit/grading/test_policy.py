"""The decision policy: tier 1 fail, auto-approve, review (band or privilege), reject."""

from __future__ import annotations

from typing import Literal

import pytest

from grading.policy import decide
from grading.types import Judgement, Tier1Report


def tier1(
    verdict: Literal["PASS", "FAIL"] = "PASS", privileges: tuple[str, ...] = ()
) -> Tier1Report:
    return Tier1Report(verdict, (), bool(privileges), privileges, "test", 0.0)


def judged(score: int) -> Judgement:
    return Judgement(score, "PASS", (), {}, 0.9, "test", "m", "v")


@pytest.mark.parametrize(
    ("report", "score", "outcome"),
    [
        (tier1("FAIL"), None, "tier1_fail"),
        (tier1(), 80, "auto_approve"),
        (tier1(privileges=("elevated_execution",)), 95, "review"),
        (tier1(), 79, "review"),
        (tier1(), 60, "review"),
        (tier1(), 59, "reject"),
    ],
)
def test_outcomes(report: Tier1Report, score: int | None, outcome: str) -> None:
    judgement = judged(score) if score is not None else None
    decision = decide(report, judgement, auto_approve_min=80, review_min=60)
    assert decision.outcome == outcome
    assert decision.reasons
    assert decision.to_dict()["outcome"] == outcome


def test_a_high_privilege_review_names_the_privileges() -> None:
    decision = decide(
        tier1(privileges=("host_persistence",)), judged(99), auto_approve_min=80, review_min=60
    )
    assert "host_persistence" in decision.reasons[0]


def test_a_tier1_pass_needs_a_judgement() -> None:
    with pytest.raises(ValueError):
        decide(tier1(), None, auto_approve_min=80, review_min=60)
