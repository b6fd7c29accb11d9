"""Names, reverts and decisions left to the user are not the acts they name (issue 22, round 11).

* "T1003.001 LSASS Memory" cites an ATT&CK technique by its id and name (a report maps its
  findings so): a citation, not a memory dump. ``procdump -ma lsass.exe`` still is one.
* A chat-template token named in inline code (fake `<|im_start|>` tokens, in a detector's list
  of categories) is a name; a marker works by opening what follows it, so a token that opens an
  order is still a fake system marker.
* A hook that first asks whether its checker is installed (``command -v gitleaks``) still only
  runs the project's checks; ``git config --unset core.hooksPath`` (how to revert) installs
  nothing. A hook whose body sends a file is persistence still.
* A destructive act weighed "with the user" ("consider a history rewrite with the user") is the
  user's decision, said to them as advice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.grading.bundles import BLOCKED, FIXTURES, decide, read, rule_ids, skills


@pytest.mark.parametrize("folder", skills("lead11", "honest"), ids=lambda p: p.name)
def test_citations_named_tokens_reverts_and_user_decisions_are_auto_approved(
    folder: Path,
) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found


@pytest.mark.parametrize("folder", skills("lead11", "malicious"), ids=lambda p: p.name)
def test_the_same_names_used_as_acts_are_blocked(folder: Path) -> None:
    assert decide(read(folder)).outcome in BLOCKED


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("lsass-dump-report", "dualuse.memory-capture"),
        ("chat-token-orders", "override.fake-system-marker"),
        ("hook-env-upload", "persistence.git-hooks"),
    ],
)
def test_the_act_behind_the_name_is_still_found(name: str, rule: str) -> None:
    assert rule in rule_ids(FIXTURES / "lead11" / "malicious" / name)
