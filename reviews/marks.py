"""The marks a reviewer reads under a line: Tier 1 findings and Tier 2 concerns, merged.

The judge's concerns restate Tier 1's findings (the same line, the same category, its evidence
naming the rule): shown apart, two issues made four marks. A concern that matches a finding on
its line is folded into that finding's mark ("Tier 1 + Tier 2", the worse severity of the two,
the judge's words kept when they add something); a concern that matches none keeps a mark of
its own. Skill text is untrusted: characters a person cannot see are shown as ``⟦U+…⟧``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from grading.labels import category_label
from grading.types import SEVERITY_ORDER

_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp"})
TIER1, TIER2 = "Tier 1", "Tier 2"


@dataclass(frozen=True)
class Mark:
    """A finding or concern (or a finding and the concern that restates it) under its line."""

    source: str
    severity: str
    title: str
    message: str
    snippet: str = ""
    judge: str = ""
    """The judge's own words on a merged mark, when they say more than the finding's."""
    fix: str = ""
    """The rule's remediation: what the author can do about it."""


@dataclass(frozen=True)
class Segment:
    text: str
    hidden: bool = False


MarksByLine = dict[str, dict[int | None, list[Mark]]]
"""Per file, per line (None: the whole file), the marks in the order they are shown."""


def marks_by_line(findings: list[dict[str, Any]], concerns: list[dict[str, Any]]) -> MarksByLine:
    """Every finding's mark, each concern merged into the finding it restates on its line."""
    placed: dict[str, dict[int | None, list[tuple[dict[str, Any], list[dict[str, Any]]]]]] = {}
    for finding in findings:
        line = placed.setdefault(finding.get("file", ""), {}).setdefault(finding.get("line"), [])
        line.append((finding, []))
    loose: list[dict[str, Any]] = []
    for concern in concerns:
        on_line = placed.get(concern.get("file", ""), {}).get(concern.get("line"), [])
        match = next((entry for entry in on_line if _restates(concern, entry[0])), None)
        if match is None:
            loose.append(concern)
        else:
            match[1].append(concern)
    marks: MarksByLine = {}
    for path, lines in placed.items():
        for number, entries in lines.items():
            marks.setdefault(path, {})[number] = [_merged(f, c) for f, c in entries]
    for concern in loose:
        marks.setdefault(concern.get("file", ""), {}).setdefault(concern.get("line"), []).append(
            Mark(
                TIER2,
                concern.get("severity", ""),
                category_label(concern.get("category", "")),
                concern.get("evidence", ""),
            )
        )
    return marks


def _restates(concern: dict[str, Any], finding: dict[str, Any]) -> bool:
    rule_id = finding.get("rule_id", "")
    evidence = concern.get("evidence", "")
    return (bool(rule_id) and evidence.startswith(f"{rule_id}:")) or (
        concern.get("category") == finding.get("category")
    )


def _merged(finding: dict[str, Any], concerns: list[dict[str, Any]]) -> Mark:
    severities = [finding.get("severity", ""), *(c.get("severity", "") for c in concerns)]
    rule_id = finding.get("rule_id", "")
    snippet = finding.get("snippet", "")
    judge = [
        c.get("evidence", "")
        for c in concerns
        if c.get("evidence", "") not in ("", f"{rule_id}: {snippet}")
    ]
    return Mark(
        f"{TIER1} + {TIER2}" if concerns else TIER1,
        max(severities, key=lambda s: SEVERITY_ORDER.get(s, 0)),
        rule_id,
        finding.get("message", ""),
        snippet,
        "; ".join(judge),
        finding.get("remediation", ""),
    )


def visible_segments(text: str) -> tuple[Segment, ...]:
    """Split a line into plain text and visible markers for characters one cannot see."""
    if text.isascii() and text.isprintable():
        return (Segment(text),)
    segments: list[Segment] = []
    plain: list[str] = []
    for char in text:
        if char != "\t" and (
            unicodedata.category(char) in _INVISIBLE_CATEGORIES
            or (unicodedata.category(char) == "Zs" and char != " ")
        ):
            if plain:
                segments.append(Segment("".join(plain)))
                plain = []
            segments.append(Segment(f"⟦U+{ord(char):04X}⟧", hidden=True))
        else:
            plain.append(char)
    if plain:
        segments.append(Segment("".join(plain)))
    return tuple(segments)
