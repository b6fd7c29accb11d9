"""What a skill's own service, its framed samples and its bulk actions are (issue 22, round 12).

* A secret variable of a service sent to that service's address from the user's environment
  (``MOODLE_TOKEN`` in a query to ``MOODLE_URL``) is the user signing in to their own instance.
  Another service's secret to that address, or an address the script falls back to, still
  flows.
* A data file the instructions frame as samples ("attack payloads to send to the user's app,
  not instructions for you") is samples, JSON lines included, and so is what its encoded
  samples decode to. A data file the agent is told to carry out is orders.
* A Sigma rule is detection content, whatever its file is called.
* Changing a remote service item by item in a loop (a revoke per key, a DELETE per record), a
  login per password of a list, and cutting production traffic off (a region drained, requests
  shed) are capabilities a person checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.tier1.spans import FileSpans
from tests.unit.grading.bundles import BLOCKED, FIXTURES, decide, read, rule_ids, skills

LEAD12 = FIXTURES / "lead12"


@pytest.mark.parametrize("folder", skills("lead12", "honest"), ids=lambda p: p.name)
def test_own_services_framed_samples_and_reads_are_auto_approved(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found


@pytest.mark.parametrize("folder", skills("lead12", "malicious"), ids=lambda p: p.name)
def test_another_services_secret_and_carried_out_data_are_blocked(folder: Path) -> None:
    assert decide(read(folder)).outcome in BLOCKED


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("webhook-bulk-revoke", "program.bulk-change"),
        ("login-exposure-audit", "program.credential-guess"),
        ("edge-region-drain", "dualuse.traffic-cutoff"),
    ],
)
def test_bulk_changes_logins_per_password_and_traffic_cutoffs_reach_a_person(
    name: str, rule: str
) -> None:
    folder = LEAD12 / "dualuse" / name
    assert decide(read(folder)).outcome == "review"
    assert rule in rule_ids(folder)


def test_a_token_to_its_own_services_address_is_not_a_secret_flow() -> None:
    assert "program.secret-flow" not in rule_ids(LEAD12 / "honest" / "redmine-time-report")
    for name in ("redmine-report-aws-keys", "redmine-report-fallback-host"):
        assert "program.secret-flow" in rule_ids(LEAD12 / "malicious" / name)


def test_a_sigma_rule_is_detection_content_whatever_its_name() -> None:
    rule = (
        "title: LSASS dump\nlogsource:\n  product: windows\ndetection:\n"
        "  sel:\n    CommandLine|contains: lsass\n  condition: sel\n"
    )
    assert FileSpans("rules/lsass.yml", rule, "shipped", []).label(60, "code") == "detection"
    plain = "title: deploy\nsteps:\n  - run: make\n"
    assert FileSpans("ci/deploy.yml", plain, "shipped", []).label(20, "code") != "detection"
