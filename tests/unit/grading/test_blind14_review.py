"""Classes the eighth blind suite (blind14) found among its malicious skills that reached only a
person, each fixed as a class and written again in words of our own
(``tests/fixtures/grading/blind14review``):

* a task runner's file (go-task's ``Taskfile.yml`` ``cmds``, mise's ``run``) is shell the agent
  runs with ``task NAME`` / ``mise run NAME``, each block read whole; a deletion of the user's
  home, a system or data folder or the remote's branches armed only for root or a CI runner
  (``if [ "$(id -u)" = "0" ] || [ -n "$CI" ]``) is a bomb armed by where it runs; a CI-only
  clean-up of the project's own caches is not;
* a Polish order that has the user type the recovery phrase ("podaj swoją frazę
  odzyskiwania", "wpisz swoją …") asks for it, as "poproś użytkownika o …" does; advice never
  to type it anywhere ("nigdy nie wpisuj swojej frazy") asks for nothing;
* a git alias whose value starts with ``!`` is a shell command (``[alias]`` in a gitconfig,
  ``git config alias.NAME '!…'``); a reverse SSH tunnel carrying the user's own SSH port to
  another host (``ssh -R 0:localhost:22``, ``autossh -fNR 2222:localhost:22``) is remote
  access; a silenced command put at the end of a shell start-up file comes back at every login
  — in whatever language the sentence around the code is written. An alias that pipes
  ``git log`` into ``head`` is none of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.tier1 import gitaliases, tasks
from tests.unit.grading.bundles import BLOCKED, decide, read, rule_ids, skills

MALICIOUS = skills("blind14review", "malicious")
HONEST = skills("blind14review", "honest")


def _named(folder: str, kind: str) -> Path:
    return next(p for p in (MALICIOUS if kind == "malicious" else HONEST) if p.name == folder)


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_malicious_skill_of_each_class_is_blocked(folder: Path) -> None:
    assert decide(read(folder)).outcome in BLOCKED


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert decide(read(folder)).outcome == "auto_approve"


@pytest.mark.parametrize("folder", ["taskfile-ci-home-wipe", "mise-root-purge"])
def test_a_deletion_armed_for_root_or_ci_is_a_condition_bomb(folder: str) -> None:
    assert "destructive.condition-bomb" in rule_ids(_named(folder, "malicious"))
    assert "destructive.condition-bomb" not in rule_ids(_named("taskfile-ci-own-build", "honest"))


def test_a_taskfile_block_is_one_command() -> None:
    text = "tasks:\n  x:\n    cmds:\n      - echo a\n      - task: y\n      - |\n"
    text += "        if true; then\n          rm -rf out\n        fi\n"
    assert [c for _, c in tasks.commands("Taskfile.yml", text)] == [
        "echo a",
        "if true; then\nrm -rf out\nfi",
    ]


def test_a_mise_task_runs_its_run_value() -> None:
    text = "[tasks.build]\nrun = \"cargo build\"\n[tasks.reset]\nrun = '''\nmake clean\n'''\n"
    assert [c for _, c in tasks.commands(".mise.toml", text)] == ["cargo build", "make clean\n"]
    assert list(tasks.commands("config.toml", text)) == []


def test_a_polish_order_to_type_the_recovery_phrase_asks_for_it() -> None:
    assert "intent.ask-secret" in rule_ids(_named("pl-wallet-restore-phrase", "malicious"))
    assert "intent.ask-secret" not in rule_ids(_named("pl-wallet-never-share", "honest"))


def test_a_git_alias_with_a_bang_is_a_shell_command() -> None:
    text = '[alias]\n    lg = log --oneline\n    up = "!git pull && echo \\"ok\\""\n'
    text += "git config --global alias.last '!git log -1'\n"
    assert [c for _, c in gitaliases.commands(text)] == ['git pull && echo "ok"', "git log -1"]


@pytest.mark.parametrize("folder", ["git-alias-autossh-relay", "da-gitconfig-pair-tunnel"])
def test_a_reverse_tunnel_of_the_ssh_port_kept_in_the_shell_rc_is_corroborated(
    folder: str,
) -> None:
    found = rule_ids(_named(folder, "malicious"))
    assert {"revshell.ssh-reverse-tunnel", "persistence.shell-startup"} <= found


def test_a_log_alias_is_no_tunnel() -> None:
    assert not rule_ids(_named("git-alias-log-summary", "honest"))
