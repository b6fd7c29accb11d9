"""The manifest: front-matter checks, typosquats, unscoped tools and description/behaviour fit."""

from __future__ import annotations

import pytest

from grading.tier1 import scan
from grading.tier1.names import imitated, is_typo_of

from .conftest import rule_ids, skill_md


@pytest.mark.parametrize(
    ("typed", "intended"),
    [("reqeusts", "requests"), ("parsre", "parser"), ("confg", "config"), ("webbapp", "webapp")],
)
def test_typosquat_edits_are_recognised(typed: str, intended: str) -> None:
    assert is_typo_of(typed, intended)


@pytest.mark.parametrize(
    ("typed", "intended"),
    [
        ("tender", "render"),
        ("parse", "parser"),
        ("requests", "requests"),
        ("configs", "config"),
        ("modes", "models"),
        ("form", "forum"),
    ],
)
def test_other_near_words_are_not_typosquats(typed: str, intended: str) -> None:
    assert not is_typo_of(typed, intended)


@pytest.mark.parametrize(
    "name",
    [
        "pdf",
        "docx",
        "slack-gif-creator",
        "theme-factory",
        "skill-installer",
        "deploy-to-vercel",
        "vercel-react-best-practices",
        "notion-knowledge-capture",
        "gh-fix-ci",
        "json-parser",
        "requests-helper",
        "review-system-modes",
    ],
)
def test_ordinary_names_are_not_flagged(name: str) -> None:
    assert imitated(name) is None


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("reqeusts-helper", "requests"),
        ("webbapp-testing", "webapp-testing"),
        ("confg-validator", "config"),
    ],
)
def test_names_imitating_well_known_ones_are_flagged(name: str, target: str) -> None:
    assert imitated(name) == target
    report = scan({"SKILL.md": skill_md("Helper.", name=name)})
    assert "supply-chain.typosquat-name" in rule_ids(report)


@pytest.mark.parametrize(
    ("skill", "rule"),
    [
        ("# No front matter\n", "metadata.missing-frontmatter"),
        ("---\nname: [broken\n---\n", "metadata.invalid-frontmatter"),
        ("---\nname: Not A Slug!\ndescription: x\n---\n", "metadata.bad-name"),
        ("---\nname: fine-name\n---\n", "metadata.missing-description"),
        (f"---\nname: fine-name\ndescription: {'long ' * 300}\n---\n", "metadata.long-description"),
    ],
)
def test_front_matter_problems_are_reported(skill: str, rule: str) -> None:
    assert rule in rule_ids(scan({"SKILL.md": skill}))


def test_an_unscoped_shell_tool_is_noted_but_is_not_high_privilege() -> None:
    """Vendor skills routinely list a plain Bash tool; what they run is judged by other rules."""
    unscoped = scan(
        {"SKILL.md": "---\nname: a\ndescription: b\nallowed-tools: [Bash, Read]\n---\n"}
    )
    scoped = scan(
        {"SKILL.md": "---\nname: a\ndescription: b\nallowed-tools: Bash(git log:*) Read\n---\n"}
    )
    assert "metadata.unscoped-shell-tool" in rule_ids(unscoped)
    assert "metadata.unscoped-shell-tool" not in rule_ids(scoped)
    assert not unscoped.high_privilege


def test_network_use_the_description_does_not_mention_is_an_intent_mismatch() -> None:
    code = "import socket\ns = socket.socket()\ns.connect(('203.0.113.7', 9000))\n"
    calculator = scan(
        {"SKILL.md": skill_md("Adds numbers.", description="Adds numbers."), "calc.py": code}
    )
    documented = scan(
        {
            "SKILL.md": skill_md("Adds numbers.", description="Syncs totals to a remote server."),
            "calc.py": code,
        }
    )
    assert "intent.undeclared-network" in rule_ids(calculator)
    assert "intent.undeclared-network" not in rule_ids(documented)


def test_code_examples_in_markdown_are_not_counted_as_behaviour() -> None:
    example = "```python\nrequests.post('https://api.example.org/v1', json=data)\n```"
    report = scan({"SKILL.md": skill_md(example, description="Explains HTTP status codes.")})
    assert "intent.undeclared-network" not in rule_ids(report)
