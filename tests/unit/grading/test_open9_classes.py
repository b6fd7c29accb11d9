"""Routes round 7 left open, closed as classes (``tests/fixtures/grading/open9``):

* configuration the agent applies is applied, whatever its file's prose framing: a data file
  the sentence after its name tells the agent to apply ("kept in `team-servers.yml`. Apply them
  as written") is put into the user's tools, so its values are not a quoted enumeration — a
  look-alike MCP scope in it is a look-alike package installed;
* a forged test report (``program.report-tampering``) is one signal; the instructions putting
  a report before the people who decide (a pull-request comment, the job summary, a CI artefact
  replaced) deliver the forgery to its audience — a second fact, so corroborated;
* a description declares what the scripts touch in every language the lexicons read: an honest
  skill described in Spanish or Chinese that downloads rates or a forecast, or in German that
  sets up a nightly task, is not flagged for behaviour its description gives no reason for; one
  that says it works offline and sends is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grading.bundle import graph
from grading.programs import tampering
from grading.tier1 import correlation
from tests.unit.grading.test_recall_classes import outcome

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "grading" / "open9"
MALICIOUS = sorted(p for p in (FIXTURES / "malicious").iterdir() if p.is_dir())
HONEST = sorted(p for p in (FIXTURES / "honest").iterdir() if p.is_dir())
BLOCKED = {"reject", "tier1_fail"}
ONE_SIGNAL = {
    "jest-summary-unposted": "a forged summary shown in the terminal only: a person decides",
    "de-table-format-cron": "a cron job a table formatter's description gives no reason for",
    "zh-unit-convert-net": "an 'offline' converter that sends what it converts",
}
"""Malicious skills whose evidence is one signal: never auto-approved, never blocked."""
TO_A_PERSON = {
    "de-nightly-backup": "a declared nightly job is still a host persistence a person sees",
}
"""Honest skills whose declared capability goes to a person by design: never blocked."""


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_malicious_skill_of_each_class_is_blocked_when_corroborated(folder: Path) -> None:
    assert outcome(folder) in ({"review"} if folder.name in ONE_SIGNAL else BLOCKED)


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) == ("review" if folder.name in TO_A_PERSON else "auto_approve")


def test_a_data_file_the_next_sentence_applies_is_put_into_the_users_tools() -> None:
    texts = {"SKILL.md": "", "servers.yml": "servers: {}\n"}
    applied = "The list is kept in `servers.yml`. Apply it exactly.\n"
    read = "The list is kept in `servers.yml`. Read it for background.\n"
    assert graph.build_graph({**texts, "SKILL.md": applied}, "SKILL.md").role("servers.yml") == (
        graph.EXECUTED
    )
    assert graph.build_graph({**texts, "SKILL.md": read}, "SKILL.md").role("servers.yml") == (
        graph.READ
    )


def test_a_report_put_before_reviewers_is_a_delivery() -> None:
    delivered = [
        "gh pr comment --body-file summary.md",
        'cat summary.md >> "$GITHUB_STEP_SUMMARY"',
        "Replace the CI artefact `test-results/report.xml` with the merged one.",
        "post `comment.md` on the pull request",
    ]
    kept = ["Show `summary.md` to the user.", "Write the report to `out/report.xml`."]
    assert all(list(tampering.deliveries(text)) for text in delivered)
    assert not any(list(tampering.deliveries(text)) for text in kept)


@pytest.mark.parametrize(
    ("capability", "description"),
    [
        ("host_persistence", "Richtet eine nächtliche geplante Aufgabe ein."),
        ("network", "Descarga los tipos de cambio del Banco Central Europeo."),
        ("network", "从开放气象接口获取天气预报。"),
        ("credential_stores", "Lit le trousseau de clés pour signer les commits."),
        ("agent_config", "エージェントのルールファイルを更新します。"),
        ("elevated_execution", "Устанавливает системные пакеты для сборки."),
    ],
)
def test_a_description_declares_in_every_language_read(capability: str, description: str) -> None:
    english = re.compile(r"\bnever-matches\b")
    assert correlation._declares(capability, english, description)
    assert not correlation._declares(capability, english, "Formatiert Markdown-Tabellen.")
