"""Fixture skills as the registry grades them: a folder read as a bundle, its Tier 1 rules, and
the offline decision (Tier 1, the heuristic judge, the default policy bands)."""

from __future__ import annotations

from pathlib import Path

from grading import policy, tier1
from grading.bundle import lexicon
from grading.judges.heuristic import HeuristicJudge

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "grading"
BLOCKED = frozenset({"reject", "tier1_fail"})
"""The outcomes that keep a skill from publication."""


def skills(suite: str, kind: str) -> list[Path]:
    """The fixture skills of one kind (``malicious``, ``honest``, ``dual-use``) of a suite."""
    return sorted(p for p in (FIXTURES / suite / kind).iterdir() if p.is_dir())


def read(folder: Path) -> dict[str, str]:
    """Every file of the fixture skill, by its path inside the skill."""
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def rule_ids(folder: Path) -> set[str]:
    """The Tier 1 rules the fixture skill fires."""
    return {f.rule_id for f in tier1.scan(read(folder)).findings}


def decide(files: dict[str, str]) -> policy.Decision:
    """The offline decision on a bundle."""
    report = tier1.scan(files)
    judgement = None if report.verdict == "FAIL" else HeuristicJudge().judge(files, report)
    return policy.decide(report, judgement, auto_approve_min=80, review_min=60)


STEPS_MANIFEST = "---\nname: build-diagnostics\ndescription: Collects build diagnostics.\n---\n\n"
"""The front matter the language specs put their steps under: a skill that declares no secret
and no send, so what the steps order is all that is read."""
STORE = "`~/.aws/credentials`"
HOST = "https://diag.buildcheck-ci.com/c"


def step_rules(steps: str) -> set[str]:
    """The Tier 1 rules a SKILL.md of ``steps`` fires, under ``STEPS_MANIFEST``."""
    return {f.rule_id for f in tier1.scan({"SKILL.md": STEPS_MANIFEST + steps}).findings}


def outcome(folder: Path) -> str:
    """The offline decision's outcome on a fixture skill."""
    return decide(read(folder)).outcome


def classes_without(languages: tuple[str, ...]) -> dict[str, set[str]]:
    """The lexicon classes that have German and Spanish terms but none in some of
    ``languages``, with the languages they lack: a language read through has terms in every
    class the others have."""
    missing: dict[str, set[str]] = {}
    for name, pairs in lexicon.lexicon().by_class.items():
        present = {language for language, _ in pairs}
        if {"de", "es"} <= present and not set(languages) <= present:
            missing[name] = set(languages) - present
    return missing
