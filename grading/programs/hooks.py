"""What a git hook installed in the user's project runs: the project's own checks, or more.

``persistence.git-hooks`` matches a hook put into ``.git/hooks`` (``cp hooks/pre-commit
.git/hooks/``, a here-document written there) or a hooks folder named by ``core.hooksPath``.
Git runs it on every commit from then on, so it counts as host persistence — but a project's
own hook that runs its linters, formatters and tests is the project's workflow, not a
foothold: it only repeats, at each commit, what the developer would run by hand. This module
reads the bodies the line installs (a bundle file it copies, the files of the hooks folder, the
here-document) and says whether every command in them is such a check. A body it cannot find,
or one with any other command (a send, a download, a write elsewhere), keeps the hook a
persistence.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

_COPIED = re.compile(
    r"\b(?:cp|ln|install|mv)\s+(?:-[\w-]+\s+)*['\"]?([\w./@-]+?)['\"]?\s+['\"]?"
    r"(?:[\w./$~{}-]*/)?\.git/hooks\b"
)
_HOOKS_PATH = re.compile(r"\bcore\.hooksPath\s*[= ]\s*['\"]?([\w./-]+)")
_HEREDOC = re.compile(
    r"\bcat\s*>\s*['\"]?(?:[\w./$~{}-]*/)?\.git/hooks/[\w-]+['\"]?\s*<<-?\s*['\"]?(\w+)['\"]?"
)
_CHECKS = frozenset(
    {
        "ruff", "black", "isort", "flake8", "pylint", "mypy", "pyright", "pytest", "tox", "nox",
        "bandit", "eslint", "prettier", "tsc", "biome", "stylelint", "jest", "vitest",
        "golangci-lint", "gofmt", "shellcheck", "shfmt", "hadolint", "markdownlint",
        "yamllint", "rustfmt", "rubocop", "phpcs", "phpstan", "swiftlint", "ktlint", "clang-format",
        "pre-commit", "lint-staged", "commitlint", "detect-secrets", "gitleaks",
    }
)  # fmt: skip
"""Linters, formatters, type checkers and test runners: they read the project and report."""
_RUNNERS = {
    "npm": re.compile(r"^(?:test|run\s+(?:lint|test|format|check|typecheck)[\w:-]*)\b"),
    "yarn": re.compile(r"^(?:test|lint|format|check|typecheck)[\w:-]*\b"),
    "pnpm": re.compile(r"^(?:test|run\s+)?(?:lint|test|format|check|typecheck)[\w:-]*\b"),
    "npx": re.compile(r"^(?:--no-install\s+|--no\s+)?([\w@/.-]+)"),
    "go": re.compile(r"^(?:vet|test|fmt)\b"),
    "cargo": re.compile(r"^(?:fmt|clippy|test|check)\b"),
    "make": re.compile(r"^(?:lint|test|check|format|fmt|typecheck)\b"),
    "python": re.compile(r"^-m\s+(?:pytest|mypy|ruff|black|flake8|pylint|isort)\b"),
    "python3": re.compile(r"^-m\s+(?:pytest|mypy|ruff|black|flake8|pylint|isort)\b"),
    "uv": re.compile(r"^run\s+(?:ruff|mypy|pytest|black)\b"),
    "poetry": re.compile(r"^run\s+(?:ruff|mypy|pytest|black)\b"),
    "git": re.compile(r"^(?:diff|status|rev-parse|ls-files)\b(?![^|;&]*--output)"),
}
"""Commands that run a check through a runner: the project's own scripts (``npm test``) or a
checker by name (``npx eslint``, ``python -m pytest``), and git reading its own state."""
_SHELL = frozenset({"set", "echo", "printf", "exit", "test", "[", "]", "true", "false", "cd",
                    "exec", "grep", "then", "else", "fi", "if", "do", "done", "for", "while",
                    "{", "}", "local", "read", "return", "which", "type"})  # fmt: skip
"""Shell that only steers the checks: tests, messages, exit codes."""
_SEPARATORS = re.compile(r"&&|\|\||;|\|")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
"""A quoted argument (a pattern, a message): its ``|`` and ``;`` separate no commands."""
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=\S*$")
_QUIET = re.compile(r"\d?>&\d|&?\d?>\s*/dev/null")
"""Output thrown away or joined to another stream: nothing written anywhere."""


def installed_bodies(line: str, text: str, files: Mapping[str, str]) -> list[str] | None:
    """The bodies of the hooks ``line`` (of ``text``) installs, found among the bundle's
    ``files``; None when any is not found."""
    heredoc = _HEREDOC.search(line)
    if heredoc is not None:
        start = text.find(line)
        body = _heredoc_body(text[start + len(line) :], heredoc.group(1)) if start >= 0 else None
        return None if body is None else [body]
    copied = _COPIED.search(line) or _HOOKS_PATH.search(line)
    if copied is None:
        return None
    source = posixpath.normpath(copied.group(1).strip("/"))
    if source in files:
        return [files[source]]
    inside = [body for path, body in sorted(files.items()) if path.startswith(source + "/")]
    return inside or None


def _heredoc_body(after: str, delimiter: str) -> str | None:
    lines = after.split("\n")[1:]
    for index, line in enumerate(lines):
        if line.strip() == delimiter:
            return "\n".join(lines[:index])
    return None


def only_checks(body: str) -> bool:
    """Whether every command of a hook's ``body`` (shell) runs a check or steers the checks."""
    for raw in body.split("\n"):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if "$(" in line or "`" in line or "://" in line or ">" in _QUIET.sub("", line):
            return False  # a substitution, an address or a file written: more than a check
        for command in _SEPARATORS.split(_QUOTED.sub("''", line)):
            if not _a_check(command.strip()):
                return False
    return True


def _a_check(command: str) -> bool:
    words = command.split()
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in ("!", "exec", "then", "do")):
        words = words[1:]
    if not words:
        return True
    name, rest = words[0].rsplit("/", 1)[-1], " ".join(words[1:])
    if name == "xargs":  # the command xargs runs, after its options
        return _a_check(" ".join(w for w in words[1:] if not w.startswith("-")))
    if name == "command":  # `command -v gitleaks` asks whether it is installed; else it runs one
        options = [w for w in words[1:] if w.startswith("-")]
        if {"-v", "-V"} & set(options):
            return True
        return _a_check(" ".join(words[1 + len(options) :]))
    if name in _CHECKS or name in _SHELL:
        return True
    runner = _RUNNERS.get(name)
    if runner is None:
        return False
    matched = runner.match(rest)
    if matched is None:
        return False
    if name == "npx":
        return matched.group(1).rsplit("/", 1)[-1].split("@")[0] in _CHECKS
    return True
