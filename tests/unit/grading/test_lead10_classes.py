"""Capabilities read by what they do, not by a word they share with an attack (issue 22, round 10).

* Keeping the journal to an age or a size the user picks (``--vacuum-time=4weeks``,
  ``--vacuum-size=1G``) is log retention, as logrotate is; emptying it to a second or a few
  bytes destroys the audit trail. Only the second is ``destructive.log-wipe``: a retention timer
  a session-recording skill installs had been rejected as log wiping.
* An IAM statement that *denies* every action is containment (an incident runbook blocks a
  leaked key's sessions so); only one that *allows* every action grants administrator rights.
* A private-key header in a table of what leaked secrets look like is a description; a key is
  the header with its base64 body. Only the key is an embedded credential for a person to check.
* A script that defines a function named like a library call (``def post``) still sends with
  ``requests.post``: a call through an imported module is the library's, so the flow of a
  credential file into it is followed (it had been read as a call of the script's own ``post``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.grading.bundles import BLOCKED, FIXTURES, decide, read, rule_ids, skills


@pytest.mark.parametrize("folder", skills("lead10", "honest"), ids=lambda p: p.name)
def test_retention_containment_and_described_key_shapes_are_auto_approved(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found


@pytest.mark.parametrize("folder", skills("lead10", "malicious"), ids=lambda p: p.name)
def test_wiping_the_journal_or_a_shadowed_send_is_blocked(folder: Path) -> None:
    assert decide(read(folder)).outcome in BLOCKED


def test_wiping_the_journal_is_a_log_wipe() -> None:
    assert "destructive.log-wipe" in rule_ids(
        FIXTURES / "lead10" / "malicious" / "journal-trace-wipe"
    )


def test_a_send_through_an_imported_module_is_not_the_script_s_own_function() -> None:
    assert "program.secret-flow" in rule_ids(FIXTURES / "lead10" / "malicious" / "shadowed-post")


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("iam-admin-remediation", "privilege.broad-cloud-permissions"),
        ("shipped-deploy-key", "secret.provider-token"),
    ],
)
def test_an_allow_all_policy_and_a_shipped_key_reach_a_person(name: str, rule: str) -> None:
    folder = FIXTURES / "lead10" / "review" / name
    assert decide(read(folder)).outcome == "review"
    assert rule in rule_ids(folder)
