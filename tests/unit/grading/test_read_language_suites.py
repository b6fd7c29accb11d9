"""The language suites (``tests/fixtures/grading/langN``), one per round that made languages
read: each suite's languages are read languages, its malicious skills (secrets sent out with
"don't tell the user", a second factor asked for, an override with a destructive clean-up) are
blocked, and its honest vendor skills, written wholly in those languages, are auto-approved.
That every class has terms in every read language is ``test_lang10_classes``' rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.bundle import lexicon
from tests.unit.grading.bundles import BLOCKED, decide, read, skills

SUITES = {
    "lang9": ("it", "nl", "pl", "tr", "uk"),
    "lang10": ("vi", "id"),
    "lang11": ("cs", "ro", "hu", "sv", "el"),
    "lang12": ("th",),
    "lang13a": ("hi", "bn"),
    "lang13b": ("he", "ar"),
}


def _cases(kind: str) -> list[object]:
    return [
        pytest.param(folder, id=f"{suite}/{folder.name}")
        for suite in SUITES
        for folder in skills(suite, kind)
    ]


@pytest.mark.parametrize("suite", SUITES)
def test_a_suites_languages_are_read(suite: str) -> None:
    assert set(SUITES[suite]) <= set(lexicon.READ_LANGUAGES)


@pytest.mark.parametrize("folder", _cases("malicious"))
def test_a_malicious_skill_in_a_newly_read_language_is_blocked(folder: Path) -> None:
    found = decide(read(folder))
    assert found.outcome in BLOCKED, found


@pytest.mark.parametrize("folder", _cases("honest"))
def test_an_honest_vendor_skill_wholly_in_a_newly_read_language_is_auto_approved(
    folder: Path,
) -> None:
    found = decide(read(folder))
    assert found.outcome == "auto_approve", found
