"""What decided a submission's outcome, in terms an author can act on: the rule, where it hit
and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.models import ScanResult, Submission
from pipeline.states import State

MAX_REASONS = 5
_SEVERITY_RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


@dataclass(frozen=True)
class Reason:
    rule: str
    location: str
    message: str
    remediation: str = ""


def deciding_reasons(submission: Submission) -> list[Reason]:
    """Why the submission did not simply publish: for a Tier 1 failure its blocking findings;
    after the judge, the policy's reasons, the most severe Tier 1 findings and the judge's
    concerns. Nothing for a publication or a submission still on its way."""
    if submission.state in {State.PUBLISHED, *_IN_FLIGHT}:
        return []
    results = {
        scan.tier: scan.result
        for scan in submission.scans.select_related("result").filter(is_late=False)
    }
    tier1, tier2 = results.get(ScanResult.Tier.TIER1), results.get(ScanResult.Tier.TIER2)
    findings = [f.to_dict() for f in tier1.tier1_report.findings] if tier1 else []
    if submission.state == State.TIER1_FAILED:
        return [_from_finding(f) for f in findings if _blocking(f)][:MAX_REASONS]
    record = tier2.tier2_record if tier2 else None
    reasons = [
        Reason("policy", "", reason) for reason in (record.decision.reasons if record else ())
    ]
    serious = [f for f in findings if _SEVERITY_RANK[f["severity"]] >= _SEVERITY_RANK["medium"]]
    serious.sort(key=lambda f: (-_SEVERITY_RANK[f["severity"]], f["file"], f["line"]))
    reasons += [_from_finding(f) for f in serious]
    reasons += [
        _from_concern(concern.to_dict())
        for concern in (record.judgement.concerns if record else ())
    ]
    return reasons[:MAX_REASONS]


_IN_FLIGHT = frozenset({State.RECEIVED, State.TIER1_SCANNING, State.TIER2_SCANNING})


def _blocking(finding: dict[str, Any]) -> bool:
    return finding["severity"] == "critical" and finding["confidence"] == "high"


def _from_finding(finding: dict[str, Any]) -> Reason:
    return Reason(
        rule=finding["rule_id"],
        location=f"{finding['file']}:{finding['line']}",
        message=finding["message"],
        remediation=finding.get("remediation", ""),
    )


def _from_concern(concern: dict[str, Any]) -> Reason:
    line = concern.get("line")
    return Reason(
        rule=f"judge: {concern['category']}",
        location=f"{concern['file']}:{line}" if line else concern["file"],
        message=concern["evidence"],
    )
