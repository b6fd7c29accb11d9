"""Collects findings for one scan: de-duplicated, capped, and indexed by capability."""

from __future__ import annotations

from grading.tier1.catalogue import Rule
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Finding

MAX_HITS_PER_RULE_PER_FILE = 3
MAX_FINDINGS = 400
SNIPPET_CHARS = 200


class Collector:
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.capabilities: dict[str, list[Finding]] = {}
        self._seen: set[tuple[str, str, int]] = set()
        self._per_rule_file: dict[tuple[str, str], int] = {}

    def add(
        self,
        rule: Rule,
        file: str,
        line: int,
        column: int,
        snippet: str,
        note: str = "",
        *,
        severity: str | None = None,
        confidence: str | None = None,
        severity_cap: str | None = None,
    ) -> Finding | None:
        """Record a hit of ``rule``; returns the finding, or None when it was a duplicate/over cap.

        ``severity`` overrides the rule's own (only ever upwards) for context-raised hits;
        ``confidence`` overrides the rule's own (only ever downwards) for hits whose context makes
        them less certain, and ``severity_cap`` bounds the severity of hits whose context shows
        they are documentation rather than instructions.
        """
        key = (rule.id, file, line)
        per_file = (rule.id, file)
        if key in self._seen or self._per_rule_file.get(per_file, 0) >= MAX_HITS_PER_RULE_PER_FILE:
            return None
        if len(self.findings) >= MAX_FINDINGS:
            return None
        self._seen.add(key)
        self._per_rule_file[per_file] = self._per_rule_file.get(per_file, 0) + 1
        chosen = rule.severity
        if severity is not None and SEVERITY_ORDER[severity] > SEVERITY_ORDER[chosen]:
            chosen = severity
        if severity_cap is not None and SEVERITY_ORDER[severity_cap] < SEVERITY_ORDER[chosen]:
            chosen = severity_cap
        finding = Finding(
            rule_id=rule.id,
            category=rule.category,
            severity=chosen,  # type: ignore[arg-type]
            confidence=_lower(rule.confidence, confidence),  # type: ignore[arg-type]
            file=file,
            line=line,
            column=column,
            snippet=_clip(snippet),
            message=f"{rule.description} {note}".strip(),
            remediation=rule.remediation,
        )
        self.findings.append(finding)
        for capability in rule.capabilities:
            self.capabilities.setdefault(capability, []).append(finding)
        return finding

    def has_capped(self, rule_id: str, file: str) -> bool:
        """True once ``rule_id`` has reported as many hits in ``file`` as it may."""
        return self._per_rule_file.get((rule_id, file), 0) >= MAX_HITS_PER_RULE_PER_FILE


def _lower(own: str, override: str | None) -> str:
    if override is not None and CONFIDENCE_ORDER[override] < CONFIDENCE_ORDER[own]:
        return override
    return own


def _clip(snippet: str) -> str:
    snippet = " ".join(snippet.split())
    if len(snippet) <= SNIPPET_CHARS:
        return snippet
    return snippet[: SNIPPET_CHARS - 1] + "…"


def is_blocking(finding: Finding) -> bool:
    """Tier 1 fails a skill only on a high-confidence critical finding."""
    return (
        SEVERITY_ORDER[finding.severity] >= SEVERITY_ORDER["critical"]
        and CONFIDENCE_ORDER[finding.confidence] >= CONFIDENCE_ORDER["high"]
    )
