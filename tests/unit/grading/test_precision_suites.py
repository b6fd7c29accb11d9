"""The precision suites (``tests/fixtures/grading/precisionN``), one per round that released a
class of honest vendor skills: each honest skill is auto-approved, and its malicious twin, of the
same name, written to be read the same way but doing harm, is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.grading.bundles import decide, read, skills

SUITES = ("precision9", "precision10", "precision11", "precision12", "precision13")


def _cases(kind: str) -> list[object]:
    return [
        pytest.param(folder, id=f"{suite}/{folder.name}")
        for suite in SUITES
        for folder in skills(suite, kind)
    ]


@pytest.mark.parametrize("folder", _cases("honest"))
def test_an_honest_vendor_skill_is_auto_approved(folder: Path) -> None:
    assert decide(read(folder)).outcome == "auto_approve"


@pytest.mark.parametrize("folder", _cases("malicious"))
def test_its_malicious_twin_is_not(folder: Path) -> None:
    assert decide(read(folder)).outcome != "auto_approve"


@pytest.mark.parametrize("suite", SUITES)
def test_every_honest_skill_has_its_twin(suite: str) -> None:
    honest, malicious = skills(suite, "honest"), skills(suite, "malicious")
    assert [p.name for p in honest] == [p.name for p in malicious]
