"""What decided a submission's outcome, in terms an author can act on: the rule, the file and
line it hit, the line itself and how to fix it. The API (``deciding``), ``skillgate submit``,
``manage.py submit`` and the author's page all show these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipeline.models import ScanResult, Submission
from pipeline.states import State
from registry.bundles import Bundle

MAX_REASONS = 20
LINE_TEXT_MAX_CHARS = 240
_SEVERITY_RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


@dataclass(frozen=True)
class Reason:
    source: str
    """``tier1`` (a rule), ``judge`` (a Tier 2 concern) or ``policy`` (the decision's reason)."""
    rule: str
    message: str
    severity: str = ""
    file: str = ""
    line: int | None = None
    line_text: str = ""
    """The line the finding points at, as the bundle has it (cut at LINE_TEXT_MAX_CHARS)."""
    remediation: str = ""

    @property
    def location(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rule": self.rule,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "line_text": self.line_text,
            "message": self.message,
            "fix": self.remediation,
        }


def deciding_reasons(submission: Submission) -> list[Reason]:
    """Why the submission did not simply publish: for a Tier 1 failure its blocking findings;
    after the judge, the policy's reasons, the Tier 1 findings of medium severity or more (most
    severe first) and the judge's concerns. Nothing for a publication or a submission still on
    its way."""
    if submission.state in {State.PUBLISHED, *_IN_FLIGHT}:
        return []
    results = {
        scan.tier: scan.result
        for scan in submission.scans.select_related("result").filter(is_late=False)
    }
    tier1, tier2 = results.get(ScanResult.Tier.TIER1), results.get(ScanResult.Tier.TIER2)
    findings = [f.to_dict() for f in tier1.tier1_report.findings] if tier1 else []
    lines = _Lines(submission.bundle.as_bundle() if submission.bundle is not None else None)
    if submission.state == State.TIER1_FAILED:
        return [_from_finding(f, lines) for f in findings if _blocking(f)][:MAX_REASONS]
    record = tier2.tier2_record if tier2 else None
    reasons = [
        Reason("policy", "policy", reason) for reason in (record.decision.reasons if record else ())
    ]
    serious = [f for f in findings if _SEVERITY_RANK[f["severity"]] >= _SEVERITY_RANK["medium"]]
    serious.sort(key=lambda f: (-_SEVERITY_RANK[f["severity"]], f["file"], f["line"]))
    reasons += [_from_finding(f, lines) for f in serious]
    reasons += [
        _from_concern(concern.to_dict(), lines)
        for concern in (record.judgement.concerns if record else ())
    ]
    return reasons[:MAX_REASONS]


_IN_FLIGHT = frozenset({State.RECEIVED, State.TIER1_SCANNING, State.TIER2_SCANNING})


class _Lines:
    """The bundle's text lines by file, split once per file."""

    def __init__(self, bundle: Bundle | None) -> None:
        self._texts = {f.path: f.text for f in bundle.files} if bundle else {}
        self._split: dict[str, list[str]] = {}

    def line(self, path: str, number: int | None) -> str:
        text = self._texts.get(path)
        if text is None or not number:
            return ""
        lines = self._split.setdefault(path, text.splitlines())
        if not 1 <= number <= len(lines):
            return ""
        return lines[number - 1].strip()[:LINE_TEXT_MAX_CHARS]


def _blocking(finding: dict[str, Any]) -> bool:
    return finding["severity"] == "critical" and finding["confidence"] == "high"


def _from_finding(finding: dict[str, Any], lines: _Lines) -> Reason:
    return Reason(
        source="tier1",
        rule=finding["rule_id"],
        message=finding["message"],
        severity=finding["severity"],
        file=finding["file"],
        line=finding["line"] or None,
        line_text=lines.line(finding["file"], finding["line"]) or finding.get("snippet", ""),
        remediation=finding.get("remediation", ""),
    )


def _from_concern(concern: dict[str, Any], lines: _Lines) -> Reason:
    line = concern.get("line") or None
    return Reason(
        source="judge",
        rule=f"judge: {concern['category']}",
        message=concern["evidence"],
        severity=concern.get("severity", ""),
        file=concern.get("file", ""),
        line=line,
        line_text=lines.line(concern.get("file", ""), line),
    )
