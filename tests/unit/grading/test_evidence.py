"""The corroboration rule (``grading.evidence``), checked over the whole catalogue: a block is a
claim of malice and needs two independent signals, or one finding with no benign reading."""

from __future__ import annotations

import pytest

from grading.evidence import assess
from grading.policy import decide
from grading.tier1.catalogue import load_catalogue
from grading.tier1.engine import _report
from grading.types import Finding, Judgement, Severity

CATALOGUE = load_catalogue()
THREAT_RULES = [
    rule for rule in CATALOGUE.rules if rule.signals and rule.category not in {"capability"}
]


def finding(rule_id: str, span: str = "instruction", severity: Severity = "critical") -> Finding:
    rule = CATALOGUE.rule(rule_id)
    return Finding(rule_id, rule.category, severity, "high", "SKILL.md", 1, 1, "", "", span=span)


def outcome(*findings: Finding, score: int = 0) -> str:
    report = _report(CATALOGUE, findings, 0.0)
    judgement = Judgement(score, "FAIL", (), {}, 0.9, "test", "m", "v")
    return decide(report, judgement, auto_approve_min=80, review_min=60).outcome


@pytest.mark.parametrize(
    "rule",
    [r for r in THREAT_RULES if not r.conclusive and len(r.signals) == 1],
    ids=lambda rule: rule.id,
)
def test_no_single_finding_of_one_signal_can_block(rule) -> None:
    """Whatever its severity and the judge's score, one finding carrying one signal (a
    capability, or a single sign of malice) goes to a person at most."""
    assert outcome(finding(rule.id)) == "review"


@pytest.mark.parametrize("rule", [r for r in THREAT_RULES if r.dual_use], ids=lambda rule: rule.id)
def test_capabilities_never_block_together_without_a_sign_of_malice(rule) -> None:
    others = [r for r in THREAT_RULES if r.dual_use and set(r.signals) != set(rule.signals)]
    assert outcome(finding(rule.id), finding(others[0].id)) == "review"


def test_a_conclusive_finding_fails_tier1_but_not_when_it_is_quoted() -> None:
    shell = finding("revshell.dev-tcp")
    assert _report(CATALOGUE, (shell,), 0.0).verdict == "FAIL"
    quoted = finding("revshell.dev-tcp", span="discussion", severity="low")
    assert _report(CATALOGUE, (quoted,), 0.0).verdict == "PASS"


def test_the_skills_own_host_turns_a_self_corroborating_finding_into_a_capability() -> None:
    stranger = finding("exec.pipe-to-shell")
    own = finding("exec.pipe-to-shell", span="first_party", severity="medium")
    assert _report(CATALOGUE, (stranger,), 0.0).verdict == "FAIL"
    assert _report(CATALOGUE, (own,), 0.0).verdict == "PASS"
    assert outcome(own) == "review"


def test_signals_of_capabilities_corroborate_a_sign_of_malice() -> None:
    concealment = finding("concealment.hide-from-user")
    keys = finding("cred.ssh-keys")
    evidence = assess((concealment, keys), CATALOGUE.by_id)
    assert evidence.corroborated
    assert set(evidence.signals) == {"deceit", "secret_source"}
    assert outcome(concealment, keys) == "reject"


def test_findings_in_text_nobody_obeys_do_not_count() -> None:
    quoted = [finding("concealment.hide-from-user", span=s) for s in ("discussion", "example")]
    assert not assess(quoted, CATALOGUE.by_id).counted
