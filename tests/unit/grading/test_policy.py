"""The decision policy: tier 1 fail, auto-approve, review (band or privilege), reject."""

from __future__ import annotations

from typing import Literal

import pytest

from grading.policy import decide
from grading.types import Finding, Judgement, Tier1Report


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
        # a low score with no corroborated malice in obeyed text is a person's to decide
        (tier1(), 59, "review"),
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


def found(rule_id: str, category: str, severity: str, confidence: str, span: str) -> Finding:
    return Finding.from_dict(
        {
            "rule_id": rule_id,
            "category": category,
            "severity": severity,
            "confidence": confidence,
            "file": "SKILL.md",
            "line": 1,
            "column": 1,
            "snippet": "",
            "message": "",
            "remediation": "",
            "span": span,
        }
    )


def with_findings(*findings: Finding, privileges: tuple[str, ...] = ()) -> Tier1Report:
    return Tier1Report("PASS", findings, bool(privileges), privileges, "test", 0.0)


SUDO = found("privilege.sudo-dangerous", "privilege_escalation", "high", "high", "instruction")
DELETE = found(
    "destructive.mass-delete-instruction", "destructive_commands", "high", "medium", "instruction"
)
URL_INSTALL = found("supply-chain.url-install", "supply_chain", "medium", "medium", "instruction")
EXFIL = found("exfil.send-sensitive", "exfiltration", "high", "medium", "instruction")
SSH = found("cred.ssh-keys", "credential_access", "high", "high", "instruction")
SEND_OUT = found("exfil.upload-local-file", "exfiltration", "medium", "medium", "instruction")
CONCEAL = found("concealment.hide-from-user", "concealment", "critical", "medium", "instruction")
CLOUD = found("cred.cloud-and-tool-stores", "credential_access", "high", "high", "instruction")


@pytest.mark.parametrize(
    ("findings", "score", "outcome"),
    [
        # dual-use alone: a person decides, whatever the score
        ((SUDO,), 15, "review"),
        ((SUDO, DELETE), 5, "review"),
        ((URL_INSTALL,), 96, "review"),
        ((CLOUD,), 11, "review"),
        # a sign of malice next to it: the low score stands
        ((SUDO, EXFIL), 5, "reject"),
        # a rule that joins a secret source to a sink is two signals by itself
        ((EXFIL,), 30, "reject"),
        # several credential stores swept at once: one signal (a secret source), for a person;
        # with a sink it is corroborated
        ((SSH, CLOUD), 10, "review"),
        ((SSH, CLOUD, SEND_OUT), 10, "reject"),
        # one sign of malice, one signal: a person decides
        ((CONCEAL,), 10, "review"),
        ((CONCEAL, DELETE), 10, "reject"),
        # corroborated malice is blocked below auto-approval; a judge that approves it sends it
        # to a person instead
        ((CONCEAL, DELETE), 70, "reject"),
        ((CONCEAL, DELETE), 85, "review"),
        # nothing acted on: a high score approves, a low one is not a claim of malice
        ((), 99, "auto_approve"),
        ((), 20, "review"),
    ],
)
def test_dual_use_goes_to_review_not_reject(
    findings: tuple[Finding, ...], score: int, outcome: str
) -> None:
    decision = decide(with_findings(*findings), judged(score), auto_approve_min=80, review_min=60)
    assert decision.outcome == outcome


def test_dual_use_quoted_in_documentation_does_not_hold_back_approval() -> None:
    for span in ("example", "discussion", "detection", "negation"):
        quoted = found("supply-chain.url-install", "supply_chain", "medium", "medium", span)
        decision = decide(with_findings(quoted), judged(96), auto_approve_min=80, review_min=60)
        assert decision.outcome == "auto_approve"


def test_the_skills_own_host_makes_a_finding_dual_use() -> None:
    own = found("exfil.send-sensitive", "exfiltration", "medium", "medium", "first_party")
    decision = decide(with_findings(own), judged(95), auto_approve_min=80, review_min=60)
    assert decision.outcome == "review"
    assert "exfil.send-sensitive" in decision.reasons[0]
    low = decide(with_findings(own), judged(20), auto_approve_min=80, review_min=60)
    assert low.outcome == "review"


def test_a_review_for_dual_use_names_the_rules() -> None:
    decision = decide(with_findings(SUDO), judged(15), auto_approve_min=80, review_min=60)
    assert "privilege.sudo-dangerous" in decision.reasons[0]
    assert "no corroborated malice" in decision.reasons[0]


def test_capabilities_together_are_still_a_persons_to_decide() -> None:
    """Root plus opening permissions to everyone, or an installer plus sudo: capabilities of
    one or two kinds, never a claim of malice on their own."""
    open_to_all = found(
        "privilege.world-writable", "privilege_escalation", "medium", "high", "instruction"
    )
    for findings in ((SUDO, open_to_all), (SUDO, URL_INSTALL), (SUDO, DELETE, URL_INSTALL)):
        decision = decide(with_findings(*findings), judged(4), auto_approve_min=80, review_min=60)
        assert decision.outcome == "review", findings


def test_a_rejection_names_the_signals_that_corroborate_each_other() -> None:
    decision = decide(with_findings(CONCEAL, SSH), judged(5), auto_approve_min=80, review_min=60)
    assert decision.outcome == "reject"
    assert "deceit" in decision.reasons[0] and "secret_source" in decision.reasons[0]


def test_a_sign_of_malice_holds_back_auto_approval() -> None:
    decision = decide(with_findings(CONCEAL), judged(90), auto_approve_min=80, review_min=60)
    assert decision.outcome == "review"
