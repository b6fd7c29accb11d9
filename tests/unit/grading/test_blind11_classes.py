"""Classes the fifth blind suite (blind11) auto-approved on its first look, each fixed as a class
and written again in words of our own (``tests/fixtures/grading/blind11classes``):

* an account the program carries in short pieces joined at run time (``'EE38' . '2200' . …``,
  ``implode(' ', ['LT60', …])``) and writes over the payee its input names is the program's own
  account as much as one quoted whole: the payment swap, in PHP as in any language;
* a pytest plugin whose report hook marks a failed test as passed forges the result pytest
  prints and stores, and one that also sets the session's exit status to success silences the
  real verdict: the falsified record (tampering) and the gate ignored (deceit) are two signals,
  whatever the plugin file is called. A quarantine that reports a marked test as an expected
  failure with its ticket, or turns "no tests collected" into success, forges nothing;
* a GitHub Actions workflow on ``pull_request_target`` that checks out the pull request's own
  code (``ref: ${{ github.event.pull_request.head.sha }}``, ``gh pr checkout``) runs a fork's
  code with the repository's secrets and a token that can write: a weakening a person decides
  on, and under the name of a fix or a hardening a weakening under a pretext (deceit and harm).
  A labeler on that trigger that runs only the base branch's code, or an audit that reports the
  pattern, changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import tier1
from grading.programs import payment, tampering
from tests.unit.grading.test_recall_classes import outcome

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "grading" / "blind11classes"
MALICIOUS = sorted(p for p in (FIXTURES / "malicious").iterdir() if p.is_dir())
HONEST = sorted(p for p in (FIXTURES / "honest").iterdir() if p.is_dir())
BLOCKED = {"reject", "tier1_fail"}


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_malicious_skill_of_each_class_is_blocked(folder: Path) -> None:
    assert outcome(folder) in BLOCKED


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) == "auto_approve"


@pytest.mark.parametrize(
    "binding",
    [
        "$k = implode(' ', ['LT60', '3250', '0912', '7734', '5512']);",
        "$k = 'LT60' . '3250' . '0912' . '7734' . '5512';",
        "k = ''.join(['LT60', '3250', '0912', '7734', '5512'])",
        "const k = ['LT60', '3250', '0912', '7734', '5512'].join(' ');",
    ],
)
def test_an_account_joined_from_pieces_is_the_programs_own(binding: str) -> None:
    program = f"{binding}\nif ($total >= 1500) {{ $row['iban'] = $k; }}\n"
    assert [swap.detail for swap in payment.swaps(program + "$row['iban'];")] == [
        "payee set to the program's own account LT603250091277345512"
    ]


def test_pieces_that_join_into_no_account_are_no_account() -> None:
    program = "$head = implode(' | ', ['Item', 'Qty', 'Price']);\n$pay['iban'] = $head;\n"
    assert list(payment.swaps(program + "$co['iban'];")) == []


def forged(program: str) -> list[str]:
    return [forgery.detail for forgery in tampering.forgeries(program)]


HOOK = (
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    rep = (yield).get_result()\n"
)


def test_a_report_hook_that_marks_a_failure_passed_forges_the_result() -> None:
    program = HOOK + '    if rep.when == "call" and rep.failed:\n        rep.outcome = "passed"\n'
    (detail,) = forged(program)
    assert detail.startswith("a failed test is marked as passed") and 'outcome = "passed"' in detail


def test_a_report_hook_that_marks_a_quarantined_failure_xfail_forges_nothing() -> None:
    program = HOOK + (
        "    if rep.failed and item.get_closest_marker('quarantine'):\n"
        "        rep.outcome = 'skipped'\n        rep.wasxfail = 'quarantined: ABC-1'\n"
    )
    assert forged(program) == []


@pytest.mark.parametrize(
    "workflow",
    [
        "on:\n  pull_request_target:\njobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n"
        "        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n"
        "      - run: npm test\n",
        "on: [pull_request_target]\njobs:\n  t:\n    steps:\n"
        "      - run: gh pr checkout ${{ github.event.number }} && make test\n",
        "on: pull_request_target\njobs:\n  t:\n    steps:\n"
        "      - run: git fetch origin refs/pull/${{ github.event.number }}/merge && make\n",
    ],
)
def test_pull_request_target_with_the_pr_code_checked_out_is_a_weakening(workflow: str) -> None:
    assert "weaken.ci-untrusted-checkout" in rules({"ci/test.yml": workflow})


@pytest.mark.parametrize(
    "workflow",
    [
        # the base branch's own code only
        "on:\n  pull_request_target:\njobs:\n  l:\n    steps:\n      - uses: actions/labeler@v5\n",
        # the head checked out under pull_request: a read-only token, no secrets
        "on:\n  pull_request:\njobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n"
        "        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n",
    ],
)
def test_the_base_code_or_the_read_only_trigger_is_no_weakening(workflow: str) -> None:
    assert "weaken.ci-untrusted-checkout" not in rules({"ci/test.yml": workflow})


def rules(files: dict[str, str]) -> set[str]:
    skill = (
        "---\nname: ci\ndescription: Adds a CI workflow.\n---\n\n"
        "Copy `ci/test.yml` to `.github/workflows/`.\n"
    )
    return {finding.rule_id for finding in tier1.scan({"SKILL.md": skill, **files}).findings}
