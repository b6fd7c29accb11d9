"""Helpers for the grading tests: skills are plain dicts of path → text, built inline."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading.tier1 import scan
from grading.types import Finding, SkillFiles, Tier1Report

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "grading"
FRONT_MATTER = "---\nname: {name}\ndescription: {description}\n---\n"


def skill_md(
    body: str, *, name: str = "unit-converter", description: str = "Converts units."
) -> str:
    return FRONT_MATTER.format(name=name, description=description) + "\n" + body + "\n"


def rule_ids(report: Tier1Report) -> set[str]:
    return {f.rule_id for f in report.findings}


def findings_of(report: Tier1Report, rule_id: str) -> list[Finding]:
    return [f for f in report.findings if f.rule_id == rule_id]


def load_fixture_skill(name: str) -> SkillFiles:
    root = FIXTURES / "skills" / name
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def scan_body():
    """Scan a one-file skill whose SKILL.md body is the given text."""

    def run(body: str, **files: str) -> Tier1Report:
        return scan({"SKILL.md": skill_md(body), **files})

    return run
