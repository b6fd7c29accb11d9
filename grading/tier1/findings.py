"""Collects findings for one scan: weighed by where they were found, de-duplicated, capped."""

from __future__ import annotations

from dataclasses import replace

from grading.tier1.catalogue import Rule
from grading.tier1.spans import adjust
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Finding

MAX_HITS_PER_RULE_PER_FILE = 3
MAX_FINDINGS = 400
SNIPPET_CHARS = 200

_LOWERED_NOTE = {
    "example": "(in a documentation example)",
    "discussion": "(in text discussing it: documentation)",
    "detection": "(in detection content: a rule or pattern that looks for it)",
    "negation": "(in a clause forbidding it)",
    "first_party": "(from the skill's own declared host)",
    "declared": "(declared by the skill's description: a privilege to review, not deceit)",
    "verified": "(a download from the skill's own host, checked against a digest the skill"
    " states: pinned)",
}


_DECLARABLE = frozenset({"instruction", "shipped_code", "first_party"})


def _rank(finding: Finding) -> tuple[int, int]:
    """Severity, then confidence: which of two hits of a rule is kept."""
    return SEVERITY_ORDER[finding.severity], CONFIDENCE_ORDER[finding.confidence]


class Collector:
    """The findings of one scan.

    At most MAX_HITS_PER_RULE_PER_FILE hits of a rule are kept per file — the strongest ones,
    earliest first among equals — so three quotations in a security guide cannot crowd out the
    instruction further down the same file.
    """

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._slots: dict[tuple[str, str], list[int]] = {}
        self._at_line: dict[tuple[str, str, int], int] = {}

    def add(
        self,
        rule: Rule,
        file: str,
        line: int,
        column: int,
        snippet: str,
        note: str = "",
        *,
        span: str = "",
    ) -> Finding | None:
        """Record a hit of ``rule`` found in text labelled ``span`` (see ``spans``); returns the
        finding, or None when a stronger one already holds its place."""
        adjustment = adjust(rule.spans_fixed, span)
        severity = adjustment.severity(rule.severity)
        confidence = adjustment.confidence(rule.confidence)
        if (severity, confidence) != (rule.severity, rule.confidence):
            note = f"{note} {_LOWERED_NOTE.get(span, '')}".strip()
        finding = Finding(
            rule_id=rule.id,
            category=rule.category,
            severity=severity,  # type: ignore[arg-type]
            confidence=confidence,  # type: ignore[arg-type]
            file=file,
            line=line,
            column=column,
            snippet=_clip(snippet),
            message=f"{rule.description} {note}".strip(),
            remediation=rule.remediation,
            span=span,
        )
        return self._place(finding)

    def adopt(self, finding: Finding) -> Finding | None:
        """Record a finding another collector made (a trial scan of rebuilt text)."""
        return self._place(finding)

    def _place(self, finding: Finding) -> Finding | None:
        same_line = (finding.rule_id, finding.file, finding.line)
        if same_line in self._at_line:
            return self._replace(self._at_line[same_line], finding)
        slots = self._slots.setdefault((finding.rule_id, finding.file), [])
        if len(slots) >= MAX_HITS_PER_RULE_PER_FILE:
            weakest = min(slots, key=lambda i: (_rank(self.findings[i]), -i))
            return self._replace(weakest, finding)
        if len(self.findings) >= MAX_FINDINGS:
            return None
        slots.append(len(self.findings))
        self._at_line[same_line] = len(self.findings)
        self.findings.append(finding)
        return finding

    def _replace(self, index: int, finding: Finding) -> Finding | None:
        current = self.findings[index]
        if _rank(finding) <= _rank(current):
            return None
        del self._at_line[(current.rule_id, current.file, current.line)]
        self._at_line[(finding.rule_id, finding.file, finding.line)] = index
        self.findings[index] = finding
        return finding

    def recount(self, index: int, rule: Rule, note: str) -> None:
        """Count the finding at ``index`` as a hit of ``rule`` instead, at the same place and
        with the same label: the act is the one ``rule`` names (a root install by the skill's own
        verified installer is a package install, not root for anything). A hit ``rule`` already
        holds at that line is kept instead."""
        current = self.findings[index]
        slots = self._slots.get((rule.id, current.file), [])
        if (rule.id, current.file, current.line) in self._at_line or len(
            slots
        ) >= MAX_HITS_PER_RULE_PER_FILE:
            return
        self._slots[(current.rule_id, current.file)].remove(index)
        del self._at_line[(current.rule_id, current.file, current.line)]
        adjustment = adjust(rule.spans_fixed, current.span)
        self.findings[index] = replace(
            current,
            rule_id=rule.id,
            category=rule.category,
            severity=adjustment.severity(rule.severity),  # type: ignore[arg-type]
            confidence=adjustment.confidence(rule.confidence),  # type: ignore[arg-type]
            message=f"{rule.description} {note}".strip(),
            remediation=rule.remediation,
        )
        self._slots.setdefault((rule.id, current.file), []).append(index)
        self._at_line[(rule.id, current.file, current.line)] = index

    def declare(self, rule_of: dict[str, Rule], privileges: frozenset[str]) -> None:
        """Relabel ``declared`` the findings whose rule grants one of ``privileges`` (see
        ``provenance.declared_privileges``), re-weighed by the span policy."""
        for index, finding in enumerate(self.findings):
            rule = rule_of[finding.rule_id]
            if rule.privilege not in privileges or finding.span not in _DECLARABLE:
                continue
            adjustment = adjust(rule.spans_fixed, "declared")
            self.findings[index] = replace(
                finding,
                severity=adjustment.severity(finding.severity),  # type: ignore[arg-type]
                confidence=adjustment.confidence(finding.confidence),  # type: ignore[arg-type]
                message=f"{finding.message} {_LOWERED_NOTE['declared']}",
                span="declared",
            )

    def relabel(self, index: int, span: str) -> None:
        """Label the finding at ``index`` ``span`` instead, re-weighed by the span policy (an
        analysis of the whole bundle found what the text around the hit is)."""
        finding = self.findings[index]
        adjustment = adjust(False, span)
        self.findings[index] = replace(
            finding,
            severity=adjustment.severity(finding.severity),  # type: ignore[arg-type]
            confidence=adjustment.confidence(finding.confidence),  # type: ignore[arg-type]
            message=f"{finding.message} {_LOWERED_NOTE.get(span, '')}".strip(),
            span=span,
        )

    def saturated(self, rule: Rule, file: str) -> bool:
        """True once ``file`` holds as many hits of ``rule`` as it may, all at the rule's full
        weight: later hits can no longer change anything."""
        slots = self._slots.get((rule.id, file), [])
        full = (SEVERITY_ORDER[rule.severity], CONFIDENCE_ORDER[rule.confidence])
        return len(slots) >= MAX_HITS_PER_RULE_PER_FILE and all(
            _rank(self.findings[i]) >= full for i in slots
        )

    def settled(self, rule: Rule, file: str, line: int) -> bool:
        """True when no hit of ``rule`` at ``line`` of ``file`` can change the findings, so the
        caller may skip the work of describing it (snippet, span label, consent): the line
        already holds a hit at the rule's full weight, or the file holds as many as it may, all
        at full weight, or the scan holds MAX_FINDINGS and the hit could only be a new one.
        A label only ever lowers a hit's weight, so nothing can be stronger than full."""
        full = (SEVERITY_ORDER[rule.severity], CONFIDENCE_ORDER[rule.confidence])
        at_line = self._at_line.get((rule.id, file, line))
        if at_line is not None:
            return _rank(self.findings[at_line]) >= full
        slots = self._slots.get((rule.id, file), [])
        if len(slots) < MAX_HITS_PER_RULE_PER_FILE:
            return len(self.findings) >= MAX_FINDINGS
        return all(_rank(self.findings[i]) >= full for i in slots)

    def capabilities(self, rule_of: dict[str, Rule]) -> dict[str, list[Finding]]:
        """Capability → findings declaring it, in file order; hits whose label does not let them
        feed correlation (discussion, detection content, negation) are left out."""
        found: dict[str, list[Finding]] = {}
        for finding in self.findings:
            rule = rule_of[finding.rule_id]
            if rule.capabilities and adjust(rule.spans_fixed, finding.span).capabilities:
                for capability in rule.capabilities:
                    found.setdefault(capability, []).append(finding)
        return found


def _clip(snippet: str) -> str:
    snippet = " ".join(snippet.split())
    if len(snippet) <= SNIPPET_CHARS:
        return snippet
    return snippet[: SNIPPET_CHARS - 1] + "…"
