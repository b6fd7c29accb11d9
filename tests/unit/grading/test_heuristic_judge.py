"""The heuristic judge's documented formula, case by case."""

from __future__ import annotations

from grading.judges.heuristic import HeuristicJudge
from grading.taxonomy import CRITERIA
from grading.types import Confidence, Finding, Severity, Tier1Report


def finding(
    rule_id: str, category: str, severity: Severity, confidence: Confidence, line: int = 1
) -> Finding:
    return Finding(
        rule_id, category, severity, confidence, "SKILL.md", line, 1, "snippet", "message"
    )


def report(*findings: Finding) -> Tier1Report:
    return Tier1Report("PASS", findings, False, (), "test", 0.0)


def test_no_evidence_scores_100_and_passes() -> None:
    judgement = HeuristicJudge().judge({}, report())
    assert (judgement.score, judgement.verdict, judgement.confidence) == (100, "PASS", 0.9)
    assert judgement.concerns == ()
    assert set(judgement.criteria) == set(CRITERIA)


def test_one_certain_high_finding_sends_to_review_and_two_reject() -> None:
    one = report(finding("a", "exfiltration", "high", "high"))
    two = report(
        finding("a", "exfiltration", "high", "high"), finding("b", "persistence", "high", "high")
    )
    assert (HeuristicJudge().judge({}, one).score, HeuristicJudge().judge({}, one).verdict) == (
        70,
        "CONCERNS",
    )
    assert (HeuristicJudge().judge({}, two).score, HeuristicJudge().judge({}, two).verdict) == (
        30,
        "FAIL",
    )


def test_evidence_of_different_kinds_corroborates() -> None:
    same_group = report(
        finding("a", "exfiltration", "medium", "medium"),
        finding("b", "credential_access", "medium", "medium"),
    )
    two_groups = report(
        finding("a", "exfiltration", "medium", "medium"),
        finding("b", "concealment", "medium", "medium"),
    )
    four_groups = report(
        finding("a", "exfiltration", "medium", "medium"),
        finding("b", "concealment", "medium", "medium"),
        finding("c", "persistence", "medium", "medium"),
        finding("d", "supply_chain", "medium", "medium"),
    )
    weak = report(
        finding("a", "exfiltration", "medium", "medium"),
        finding("b", "concealment", "medium", "low"),
        finding("c", "persistence", "low", "high"),
    )
    judge = HeuristicJudge()
    assert judge.judge({}, same_group).score == 81
    assert judge.judge({}, two_groups).score == 71
    assert judge.judge({}, two_groups).notes["corroborating_groups"] == [
        "data_protection",
        "transparency",
    ]
    assert judge.judge({}, four_groups).score == round(100 - 4 * 9.6 - 20)
    assert judge.judge({}, weak).score == round(100 - 9.6 - 6 - 4)


def test_repeats_of_one_rule_count_once_and_the_worst_repeat_counts() -> None:
    repeated = report(
        finding("a", "exfiltration", "medium", "low", line=1),
        finding("a", "exfiltration", "medium", "high", line=2),
        finding("a", "exfiltration", "medium", "high", line=3),
    )
    assert HeuristicJudge().judge({}, repeated).score == 88


def test_confidence_scales_the_penalty_and_info_costs_nothing() -> None:
    mixed = report(
        finding("a", "concealment", "critical", "medium"),
        finding("b", "capability", "info", "high"),
        finding("c", "metadata", "low", "high"),
    )
    judgement = HeuristicJudge().judge({}, mixed)
    assert judgement.score == 100 - 48 - 4
    assert [c.category for c in judgement.concerns] == ["concealment", "metadata"]


def test_injection_evidence_caps_the_score_below_the_pass_threshold() -> None:
    injection = report(finding("x", "tool_poisoning", "high", "medium"))
    lenient = HeuristicJudge(pass_min=70, concerns_min=50)
    judgement = lenient.judge({}, injection)
    assert judgement.score == 69
    assert judgement.verdict == "CONCERNS"
    assert judgement.notes["injection_cap"] is True


def test_criteria_are_scored_per_group_of_categories() -> None:
    judgement = HeuristicJudge().judge(
        {}, report(finding("a", "reverse_shell", "critical", "high"))
    )
    assert judgement.criteria["execution_safety"] == 40
    assert judgement.criteria["data_protection"] == 100
    assert judgement.provider == "heuristic"
