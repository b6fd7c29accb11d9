"""Honest and dual-use skills of a fourth blind suite that were blocked, sent to a person or let
through wrongly, each fixed as a class and written again in words of our own
(``tests/fixtures/grading/blind10honest``), each with a near-twin on the other side:

* a sentence that says what a weakened setting exposes ("`GIT_SSL_NO_VERIFY=1` … allows anyone
  between you and the server to impersonate it") names the setting to warn of it: discussion,
  not an order — while the same setting ordered in a sentence of its own stays a weakening under
  a pretext, whatever the next sentence says about it;
* a process started from an argument list runs its program: names read from a web API and
  handed to ``dig`` or ``ping`` are data, not code; handed to ``sh -c``, a launcher such as
  ``env`` or ``xargs``, or a coding agent's prompt they are run;
* a restore that empties the database it loads into (``pg_restore --clean``, ``mongorestore
  --drop``) destroys what was there: a person decides — unless the script created that database
  itself; called a read-only check, the purpose contradicts the act. A description that says the
  loss ("overwrites production data") is no pretext, however it names the occasion;
* the keychain item of the tool a skill is about, looked up by that tool's name and handed to it
  (``RCLONE_PASSWORD_COMMAND="security find-generic-password -s rclone -w"``), is the user's
  secret for that tool, not the keychain; a browser's or another tool's item is still a read of
  the store, and the tool's own item sent away is still a secret flow;
* a history rewrite the runbook gates on the repository owners' agreement ("**only after**
  coordinating with the repository owners") is consented: still a dual-use capability a person
  sees, no longer weighed as an unasked destruction; without the gate it keeps its weight;
* root to add a certificate the user brings to the system trust store, in a skill about
  certificates, is noted (``privilege.trust-anchor``), not high privilege; a certificate the
  skill ships or the line downloads — a root its author controls — keeps ``privilege.sudo``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import tier1
from grading.bundle.applied import names_loss
from grading.programs import python, shell
from grading.programs.facts import DESTROYS_DATA, FETCH_EXEC
from grading.tier1.spans import cues, sentence_around
from tests.unit.grading.bundles import BLOCKED, FIXTURES, outcome, skills

SUITE = FIXTURES / "blind10honest"
MALICIOUS = skills("blind10honest", "malicious")
HONEST = skills("blind10honest", "honest")
DUAL_USE = skills("blind10honest", "dual-use")


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_the_malicious_twin_of_each_class_is_blocked(folder: Path) -> None:
    assert outcome(folder) in BLOCKED


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) == "auto_approve"


@pytest.mark.parametrize("folder", DUAL_USE, ids=lambda p: p.name)
def test_a_dual_use_skill_of_each_class_goes_to_a_person(folder: Path) -> None:
    assert outcome(folder) == "review"


@pytest.mark.parametrize(
    "text",
    [
        "`verify=False` lets anyone on the network read and modify the traffic",
        "it allows anyone between you and the server to impersonate it",
        "that leaves every client open to man-in-the-middle attacks",
    ],
)
def test_a_sentence_that_says_what_a_setting_exposes_is_discussion(text: str) -> None:
    assert cues().discussion_lines.search(text)


def test_a_sentence_wrapped_over_lines_starts_where_its_paragraph_line_does() -> None:
    text = "Intro.\n\nThe quick fix, `-k`, is also the one that\nlets anyone read it. Next."
    cue = text.index("lets")
    assert text[slice(*sentence_around(text, cue, cue + 4))].strip().startswith("The quick fix")


_FETCHED = 'import subprocess, requests\nhosts = requests.get("https://api.example.net/h").json()\n'


@pytest.mark.parametrize(
    "call",
    [
        'subprocess.run(["dig", "+short", "A", h])',
        'subprocess.run(["/usr/bin/ping", "-c", "1", h], capture_output=True)',
    ],
)
def test_fetched_arguments_of_a_named_program_are_data(call: str) -> None:
    facts = python.analyse(f"{_FETCHED}for h in hosts:\n    {call}\n")
    assert FETCH_EXEC not in {fact.kind for fact in facts}


@pytest.mark.parametrize(
    "call",
    [
        'subprocess.run(["bash", "-c", h])',
        'subprocess.run(["python3.12", "-c", h])',
        'subprocess.run(["env", h])',
        'subprocess.run(["xargs", h])',
        'subprocess.run(["claude", "-p", h])',
        'subprocess.run(["dig", h], shell=True)',
        'subprocess.run([h, "--version"])',
        "subprocess.run(h, shell=True)",
    ],
)
def test_fetched_text_an_interpreter_launcher_or_shell_gets_is_run(call: str) -> None:
    facts = python.analyse(f"{_FETCHED}for h in hosts:\n    {call}\n")
    assert FETCH_EXEC in {fact.kind for fact in facts}


@pytest.mark.parametrize(
    "script",
    [
        'pg_restore --clean --if-exists -d "$DB" "$DUMP"',
        "pg_restore -cC -d postgres nightly.dump",
        "pg_restore --dbname=shop --clean nightly.dump",
        "mongorestore --drop dump/",
    ],
)
def test_a_restore_that_empties_its_target_destroys_data(script: str) -> None:
    assert DESTROYS_DATA in {fact.kind for fact in shell.analyse(script + "\n")}


@pytest.mark.parametrize(
    "script",
    [
        "pg_restore --no-owner -d restore_side nightly.dump",
        "pg_restore --list nightly.dump",
        "pg_restore -dcustomers nightly.dump",
        "createdb scratch\npg_restore --clean -d scratch nightly.dump",
    ],
)
def test_a_restore_that_only_adds_or_fills_its_own_new_database_destroys_nothing(
    script: str,
) -> None:
    assert DESTROYS_DATA not in {fact.kind for fact in shell.analyse(script + "\n")}


def test_a_purpose_that_says_the_loss_names_it() -> None:
    assert names_loss("Rolls the database back. This overwrites production data; ask first.")
    assert not names_loss("A routine read-only check. It never deletes the database.")
    assert not names_loss("Cleans temporary files to free disk space.")


def _keychain_span(name: str, about: str, command: str) -> str:
    manifest = f"---\nname: {name}\ndescription: {about}\n---\n\nRun `{command}`.\n"
    found = tier1.scan({"SKILL.md": manifest}).findings
    return next(f.span for f in found if f.rule_id == "cred.system-and-browser-stores")


def test_the_keychain_item_of_the_tool_the_skill_is_about_is_its_own_secret() -> None:
    about = "Encrypted backups of a laptop with restic."
    command = "security find-generic-password -s restic -w"
    assert _keychain_span("restic-laptop-backup", about, command) == "own_secret"


@pytest.mark.parametrize(
    ("name", "about", "command"),
    [
        (
            "chrome-profile-export",
            "Exports Chrome bookmarks.",
            'security find-generic-password -s "Chrome Safe Storage" -w',
        ),
        (
            "restic-laptop-backup",
            "Encrypted backups of a laptop with restic.",
            "security find-generic-password -s github -w",
        ),
        ("restic-laptop-backup", "Encrypted backups with restic.", "security dump-keychain -d"),
    ],
)
def test_a_browser_item_another_tool_item_or_the_whole_keychain_is_a_store_read(
    name: str, about: str, command: str
) -> None:
    assert _keychain_span(name, about, command) == "instruction"


def _purge_spans(step: str) -> dict[str, str]:
    folder = SUITE / "dual-use" / "secret-purge-after-owners-agree"
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    start = text.index("- Rewrite it out")
    end = text.index("\n- The rewrite")
    found = tier1.scan({"SKILL.md": text[:start] + step + text[end:]}).findings
    wanted = ("intent.destroy-user-data", "dualuse.history-rewrite")
    return {f.rule_id: f.span for f in found if f.rule_id in wanted}


@pytest.mark.parametrize(
    "gate",
    [
        "__only\n  after__ coordinating with the repository owners",
        "**only after** coordinating with the repository owners",
        "only once the maintainers agree",
    ],
)
def test_a_rewrite_gated_on_the_owners_agreement_is_consented(gate: str) -> None:
    step = f"- Rewrite it out of git history with `git filter-repo` and force-push, {gate}."
    assert set(_purge_spans(step).values()) == {"consented"}


def test_an_ungated_rewrite_is_an_instruction() -> None:
    step = "- Rewrite it out of git history with `git filter-repo` and force-push."
    assert set(_purge_spans(step).values()) == {"instruction"}


def _anchor_bundle(line: str, shipped: bool = False) -> dict[str, str]:
    folder = SUITE / "honest" / "user-ca-into-trust-store"
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    old = (
        "sudo cp company-root.crt /usr/local/share/ca-certificates/ && sudo update-ca-certificates"
    )
    assert old in text
    files = {"SKILL.md": text.replace(old, line)}
    if shipped:
        files["certs/company-root.crt"] = (
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        )
    return files


@pytest.mark.parametrize(
    ("line", "shipped"),
    [
        (
            "sudo cp certs/company-root.crt /usr/local/share/ca-certificates/"
            " && sudo update-ca-certificates",
            True,
        ),
        (
            "curl -fsSo company-root.crt https://ca.example.net/root.crt"
            " && sudo update-ca-certificates",
            False,
        ),
        (
            "sudo cp company-root.crt /usr/local/share/ca-certificates/ && sudo chmod 777 /etc/ssl",
            False,
        ),
    ],
)
def test_a_root_certificate_the_skill_brings_or_another_root_act_stays_root(
    line: str, shipped: bool
) -> None:
    report = tier1.scan(_anchor_bundle(line, shipped))
    assert report.high_privilege
    assert "privilege.trust-anchor" not in {f.rule_id for f in report.findings}
