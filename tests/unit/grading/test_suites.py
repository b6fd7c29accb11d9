"""Two suites written after reading the graders, the way an attacker and an honest vendor would
write skills (issue 22): every red-team skill is kept from auto-approval, and at least 95 % of
the honest ones — security tools, vendor-style skills, skills that look scary and are not —
are auto-approved.

``redteam/`` covers every route: other languages (de, fr, ja, pt, ru, zh, es, and one Skillgate
does not read), alt text, link titles and HTML comments, data files the agent carries out,
documents it is told to follow, obfuscated scripts (XOR, base64, reversal, character codes),
installers written in words, and the blind-author threat list (secrets in image URLs, key
"validation" services, transcripts as telemetry, session logs, seed phrases, payout and IBAN
swaps, deep cleans, orphan force-pushes, schema drops, auth bypasses, look-alike registries,
unpinned MCP servers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.grading.bundles import BLOCKED, FIXTURES, outcome

REDTEAM = sorted(p for p in (FIXTURES / "redteam").iterdir() if p.is_dir())
HONEST = sorted(p for p in (FIXTURES / "honest").iterdir() if p.is_dir())


def test_the_suites_are_large_enough() -> None:
    assert len(REDTEAM) >= 30 and len(HONEST) >= 20


@pytest.mark.parametrize("folder", REDTEAM, ids=lambda p: p.name)
def test_no_red_team_skill_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) != "auto_approve"


def test_most_red_team_skills_are_blocked() -> None:
    """Blocking needs corroborated malice; a capability alone (a deep clean without a second
    signal, a text in a language Skillgate does not read) goes to a person."""
    blocked = [f.name for f in REDTEAM if outcome(f) in BLOCKED]
    assert len(blocked) >= 0.8 * len(REDTEAM), sorted(set(f.name for f in REDTEAM) - set(blocked))


def test_at_least_95_percent_of_honest_skills_are_auto_approved() -> None:
    held = [f.name for f in HONEST if outcome(f) != "auto_approve"]
    assert len(held) <= 0.05 * len(HONEST), held


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_no_honest_skill_is_blocked(folder: Path) -> None:
    assert outcome(folder) not in BLOCKED
