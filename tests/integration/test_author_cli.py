"""``manage.py submit PATH --wait``: the operator's tool that submits as an account from the
server's checkout, following the real pipeline (authors use ``skillgate submit``, tested in
test_skillgate_author)."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from tests.support.skills import skill_md
from tests.support.stack import ROOT, stack_environment

pytestmark = pytest.mark.integration


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "submit", *args],
        cwd=ROOT, env=stack_environment(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_submit_wait_prints_each_state_change_and_the_outcome(worker, author, tmp_path):
    name = f"cli-{uuid.uuid4().hex[:8]}"
    folder = tmp_path / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md(name))
    done = run_cli(str(folder), "--user", author.username, "--wait")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"submitted {author.username}/{name} as ")
    transitions = [line.split()[1:4] for line in lines[1:-2]]
    assert transitions == [
        ["∅", "→", "RECEIVED"],
        ["RECEIVED", "→", "TIER1_SCANNING"],
        ["TIER1_SCANNING", "→", "TIER2_SCANNING"],
        ["TIER2_SCANNING", "→", "AUTO_APPROVED"],
        ["AUTO_APPROVED", "→", "PUBLISHED"],
    ]
    assert lines[-2] == f"outcome: verdict PUBLISHED: Published as {author.username}/{name}@1.0.0"
    assert lines[-1].startswith("details: http://") and "/account/submissions/" in lines[-1]


def test_submit_wait_ends_with_the_findings_that_decided_a_failure(worker, author):
    done = run_cli(
        str(ROOT / "demo" / "skills" / "quick-setup"), "--user", author.username, "--wait"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    tail = done.stdout.split("outcome: verdict TIER1_FAILED: ", 1)[1].splitlines()
    assert tail[1] == "what decided it:"
    rule_line, shown_line, fix_line = tail[2], tail[3], tail[4]
    assert rule_line.startswith("  - ") and " at " in rule_line and ":" in rule_line
    assert " | " in shown_line and "| bash" in shown_line
    assert fix_line.startswith("    fix: ") and len(fix_line) > len("    fix: ") + 10
    assert tail[-1].startswith("details: http://") and "/account/submissions/" in tail[-1]


def test_submit_refuses_a_bad_folder_with_a_clear_message(author, tmp_path, live_db):
    (tmp_path / "README.md").write_text("no skill here")
    done = run_cli(str(tmp_path), "--user", author.username)
    assert done.returncode == 1
    assert "rejected: files: SKILL.md is missing at the root of the skill" in done.stderr
