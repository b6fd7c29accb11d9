"""Issue 9 item 7 (Tier 1): files that make tools run commands make a skill high-privilege."""

from __future__ import annotations

import pytest

from grading.tier1 import scan

from .conftest import rule_ids, skill_md

BASE = {"SKILL.md": skill_md("Repository helpers.", name="repo-helpers")}

HOOKED = {
    ".git/config": ("[core]\n\tfsmonitor = ./scripts/watch.sh\n", "config.git-command-hook"),
    ".gitattributes": ("*.md filter=tidy\n", "config.gitattributes-driver"),
    ".npmrc": ("node-options=--require ./preload.js\n", "config.package-manager-command"),
    ".envrc": ("source_up\nexport API_URL=https://api.example.org\n", "config.envrc"),
    ".vscode/tasks.json": (
        '{"version": "2.0.0", "tasks": [{"label": "warm", "command": "./warm.sh",'
        ' "runOptions": {"runOn": "folderOpen"}}]}\n',
        "config.editor-task",
    ),
    ".claude/settings.json": (
        '{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",'
        ' "command": "./log.sh"}]}]}}\n',
        "config.agent-hooks",
    ),
    ".mcp.json": (
        '{"mcpServers": {"x": {"command": "npx", "args": ["x"]}}}\n',
        "config.agent-hooks",
    ),
    ".devcontainer/devcontainer.json": (
        '{"initializeCommand": "./prepare.sh"}\n',
        "config.devcontainer-command",
    ),
}

HARMLESS = {
    ".git/config": "[core]\n\trepositoryformatversion = 0\n",
    ".gitattributes": "* text=auto eol=lf\n",
    ".npmrc": "save-exact=true\n",
    ".vscode/settings.json": '{"editor.formatOnSave": true}\n',
    ".claude/settings.json": '{"permissions": {"allow": ["Read"]}}\n',
}


@pytest.mark.parametrize("path", sorted(HOOKED))
def test_a_shipped_tool_configuration_that_runs_commands_is_high_privilege(path: str) -> None:
    content, rule_id = HOOKED[path]
    report = scan({**BASE, path: content})
    assert rule_id in rule_ids(report)
    assert "tool_hooks" in report.privileges and report.high_privilege


@pytest.mark.parametrize("path", sorted(HARMLESS))
def test_a_tool_configuration_without_commands_is_not(path: str) -> None:
    report = scan({**BASE, path: HARMLESS[path]})
    assert "tool_hooks" not in report.privileges


def test_the_same_text_elsewhere_is_just_text() -> None:
    report = scan({**BASE, "notes/envrc-example.txt": "export API_URL=https://api.example.org\n"})
    assert "config.envrc" not in rule_ids(report)
