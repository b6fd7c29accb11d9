"""Honest skills of a third blind suite that were blocked or sent to a person, each fixed as a
class and written again in words of our own (``tests/fixtures/grading/blind9honest``), each
with a malicious near-twin that must still be blocked:

* a forbidding clause in another language ("nunca propone desactivar la verificación TLS
  (`strict-ssl false`, …) como solución") forbids the settings it names, as "never" does in
  English; the same settings ordered as a fix are still a weakening under a pretext;
* a data file the agent reads whose own comment presents it as samples to match ("Quoted for
  matching only") is a pattern library: its strings are what to look for, not orders — unless
  the instructions follow it or carry its entries out;
* a supposed act ("even if you rewrite the history, the token has already been copied",
  履歴を書き換えても…) is a hypothesis, not an order;
* root given to the skill's own installer, which checks its download against a checksum or a
  signature and stops when the check fails, is a package install (noted, not high privilege);
  an installer that verifies nothing keeps ``privilege.sudo``, one that does more is judged on it;
* a job the description names, in the user's own service manager, from units the skill ships and
  Tier 1 read without a finding, is the skill's purpose (noted); a job the description does not
  name, or one written for the whole system, still goes to a person.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import policy, tier1
from grading.judges.heuristic import HeuristicJudge
from grading.tier1.installers import verified_installer
from grading.tier1.spans import cues
from tests.unit.grading.bundles import BLOCKED, FIXTURES, outcome, skills

SUITE = FIXTURES / "blind9honest"
MALICIOUS = skills("blind9honest", "malicious")
HONEST = skills("blind9honest", "honest")


@pytest.mark.parametrize(
    "text",
    ["никогда не отключайте проверку", "niemals deaktivieren", "nunca desactives", "切勿关闭校验"],
)
def test_words_that_forbid_outright_open_a_forbidding_clause(text: str) -> None:
    assert cues().negation_cues.search(text)


@pytest.mark.parametrize("text", ["你不得不运行这个脚本", "절대 경로로 실행하세요", "не проверено"])
def test_a_bare_not_or_an_idiom_is_no_forbidding_clause(text: str) -> None:
    assert cues().negation_cues.search(text) is None


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_the_malicious_twin_of_each_class_is_blocked(folder: Path) -> None:
    assert outcome(folder) in BLOCKED


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) == "auto_approve"


_INSTALLER = """#!/usr/bin/env bash
set -euo pipefail
work=$(mktemp -d)
cd "$work"
curl -fsSLO https://github.com/cli/cli/releases/download/v2.62.0/gh_2.62.0_linux_amd64.tar.gz
curl -fsSLO https://github.com/cli/cli/releases/download/v2.62.0/gh_2.62.0_checksums.txt
grep " gh_2.62.0_linux_amd64.tar.gz$" gh_2.62.0_checksums.txt | sha256sum -c -
tar -xzf gh_2.62.0_linux_amd64.tar.gz
install -m 0755 gh_2.62.0_linux_amd64/bin/gh /usr/local/bin/gh
"""


def test_an_installer_is_verified_when_it_checks_the_download_and_stops_on_failure() -> None:
    assert verified_installer(_INSTALLER)
    assert not verified_installer(_INSTALLER.replace("set -euo pipefail\n", ""))
    assert not verified_installer(_INSTALLER.replace("sha256sum -c -", "head -1"))


def _privileges(script: str) -> tuple[str, ...]:
    manifest = (
        "---\nname: tool-install\ndescription: Install the tool CLI.\n---\n\n"
        "Run `VERSION=2.1.0 sudo -E ./install.sh` to install it system-wide.\n"
    )
    return tier1.scan({"SKILL.md": manifest, "install.sh": script}).privileges


def test_root_for_a_verified_installer_is_a_package_install() -> None:
    assert _privileges(_INSTALLER) == ("package_install",)


def test_root_for_an_unverified_installer_stays_root() -> None:
    unverified = _INSTALLER.replace("sha256sum -c -", "head -1")
    assert "elevated_execution" in _privileges(unverified)


def _user_timer_bundle(**changes: tuple[str, str]) -> dict[str, str]:
    folder = SUITE / "honest" / "declared-user-timer"
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}
    for path, (old, new) in changes.items():
        assert old in files[path]
        files[path] = files[path].replace(old, new)
    return files


def _outcome(files: dict[str, str]) -> str:
    report = tier1.scan(files)
    judgement = None if report.verdict == "FAIL" else HeuristicJudge().judge(files, report)
    return policy.decide(report, judgement, auto_approve_min=80, review_min=60).outcome


def test_a_user_job_the_description_does_not_name_goes_to_a_person() -> None:
    unnamed = _user_timer_bundle(
        **{
            "SKILL.md": (
                ", and an hourly systemd user timer that runs the sync in the background",
                "",
            )
        }
    )
    assert _outcome(unnamed) == "review"


def test_a_system_wide_job_goes_to_a_person_however_named() -> None:
    system = _user_timer_bundle(
        **{
            "SKILL.md": (
                "`~/.config/systemd/user/` and run `systemctl --user enable --now",
                "`/etc/systemd/system/` and run `sudo systemctl enable --now",
            )
        }
    )
    assert _outcome(system) == "review"
