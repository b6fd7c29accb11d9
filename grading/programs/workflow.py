"""CI workflows (GitHub Actions) read as the shell their steps run, with the user's CI secrets
as sources.

A skill can ship a workflow and tell the agent to copy it into the user's repository: from then
on it runs with the repository's secrets. Its ``run:`` scripts are read by the shell analysis
(``shell``) with every ``${{ … secrets … }}`` expression — inline, or put into a variable by an
``env:`` mapping — standing for a variable that carries the secret: ``toJSON(secrets)`` (or the
whole ``secrets`` context) is a secret store, ``secrets.NAME`` one named secret, which
authenticates to its own service in a header and leaks when sent as data. Only the flows of
secrets to a network send are reported: running commands and sending build results is what CI
is for.
"""

from __future__ import annotations

import re

from grading.programs import shell
from grading.programs.facts import SECRET_FLOW, Fact

_EXPRESSION = re.compile(r"\$\{\{([^}\n]{1,300})\}\}")
_ENV_ENTRY = re.compile(
    r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]{0,80})[ \t]*:[ \t]*[\"']?\$\{\{([^}\n]{1,300})\}\}"
)
_RUN_KEY = re.compile(r"(?m)^([ \t]*)(?:-[ \t]+)?run[ \t]*:[ \t]*(.*)$")
_NAMED = re.compile(
    r"^\s*secrets\s*\.\s*[A-Za-z_][A-Za-z0-9_]*\s*$|^\s*secrets\s*\[\s*'[^']*'\s*\]\s*$"
)
_TOKEN = re.compile(r"^\s*github\s*\.\s*token\s*$")
_MARKERS = ("jobs:", "steps:")


def is_workflow(path: str, text: str) -> bool:
    """A GitHub Actions workflow (or a composite action, ``action.yml`` with ``steps:``, which
    runs wherever a workflow ``uses:`` it) that names the secrets context."""
    lowered = path.lower()
    if not lowered.endswith((".yml", ".yaml")) or not ("secrets" in text or "github.token" in text):
        return False
    if lowered.rsplit("/", 1)[-1] in ("action.yml", "action.yaml") and "steps:" in text:
        return True
    return ".github/" in lowered or all(marker in text for marker in _MARKERS)


def _label(expression: str) -> str | None:
    """What an expression carries: one named secret (``github.token`` is the repository's
    token, a secret like any other), every secret, or nothing secret."""
    if _TOKEN.match(expression):
        return shell.ENV_SECRET
    if "secrets" not in expression:
        return None
    return shell.ENV_SECRET if _NAMED.match(expression) else shell.SECRET


def _variable(match: re.Match[str], label: str) -> str:
    """A shell variable as long as the expression it stands for (offsets are kept), named by
    its label."""
    prefix = "SG_ALL" if label == shell.SECRET else "SG_ONE"
    return "${" + (prefix + "_" * len(match.group(0)))[: len(match.group(0)) - 3] + "}"


def _plain(match: re.Match[str]) -> str:
    """An expression that carries nothing secret (``${{ job.status }}``) as a plain word of its
    length: left as written it is no shell the parser reads (``${{`` is a bad substitution)
    and the whole command it is in would be lost."""
    return "x" * len(match.group(0))


def _runs(text: str) -> tuple[tuple[int, int], ...]:
    """The regions of the ``run:`` scripts: a block scalar's indented lines, or the line."""
    regions: list[tuple[int, int]] = []
    for match in _RUN_KEY.finditer(text):
        indent, rest = len(match.group(1)), match.group(2).strip()
        if rest and rest[0] not in "|>":
            regions.append(match.span(2))
            continue
        start = end = match.end() + 1
        for line in re.finditer(r"(?m)^.*$", text[start:]):
            body = line.group(0)
            if body.strip() and len(body) - len(body.lstrip()) <= indent:
                break
            end = start + line.end()
        if end > start:
            regions.append((start, end))
    return tuple(regions)


def analyse(text: str) -> list[Fact]:
    """The flows of the workflow's secrets to a network send in its ``run:`` scripts."""
    secrets: dict[str, str] = {}
    for match in _ENV_ENTRY.finditer(text):
        label = _label(match.group(2))
        if label is not None:
            secrets[match.group(1)] = label

    def mask(match: re.Match[str]) -> str:
        label = _label(match.group(1))
        if label is None:
            return _plain(match)
        variable = _variable(match, label)
        secrets[variable[2:-1]] = label
        return variable

    masked = _EXPRESSION.sub(mask, text)
    if not secrets:
        return []
    return [f for f in shell.blocks(masked, _runs(masked), secrets) if f.kind == SECRET_FLOW]
