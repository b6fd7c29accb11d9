"""The skill's manifest: find SKILL.md, parse its front matter and check what it declares.

Front matter is what an agent reads to decide *whether* to load a skill, so it gets the checks of
the Agent Skills format (``name``: lowercase words joined by hyphens, at most 64 characters;
``description``: present, at most 1024 characters) plus the ones that matter for trust: a name that
imitates a well-known one, and an ``allowed-tools`` that grants an unscoped shell. Parsing and the
format checks are the shared SKILL.md parser's (``skillformat.skillmd``), the one intake and
publishing use: Tier 1 cannot read a different manifest from the one the registry accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import is_markdown
from grading.tier1.findings import Collector
from grading.tier1.names import imitated
from skillformat import skillmd

_UNSCOPED_SHELL = {"bash", "shell", "sh", "zsh", "terminal", "exec", "execute", "computer", "*"}
# The parser's problem codes as Tier 1 rules (a bad version has no rule of its own).
_RULES = {
    skillmd.MISSING_FRONT_MATTER: "metadata.missing-frontmatter",
    skillmd.INVALID_FRONT_MATTER: "metadata.invalid-frontmatter",
    skillmd.BAD_NAME: "metadata.bad-name",
    skillmd.MISSING_DESCRIPTION: "metadata.missing-description",
    skillmd.LONG_DESCRIPTION: "metadata.long-description",
    skillmd.BAD_VERSION: "metadata.invalid-frontmatter",
}
_PROBLEM_KEYS = {
    skillmd.BAD_NAME: "name",
    skillmd.MISSING_DESCRIPTION: "description",
    skillmd.LONG_DESCRIPTION: "description",
    skillmd.BAD_VERSION: "version",
}


@dataclass(frozen=True)
class Manifest:
    path: str | None
    name: str
    description: str
    allowed_tools: tuple[str, ...]
    urls: tuple[str, ...] = ()
    """URLs the front matter declares (homepage, repository…): the skill's own hosts."""
    other_text: str = ""
    """The rest of the front matter's text (compatibility, metadata…): also declared."""

    @property
    def declared_text(self) -> str:
        """Everything the manifest says about the skill, for checks of behaviour against it."""
        return f"{self.name.replace('-', ' ')} {self.description} {self.other_text}"


def manifest_path(paths: list[str]) -> str | None:
    """The top-most SKILL.md, else the top-most Markdown file (single-file research samples)."""
    markdown = sorted((p for p in paths if is_markdown(p)), key=lambda p: (p.count("/"), p))
    for path in markdown:
        if path.rsplit("/", 1)[-1].lower() == "skill.md":
            return path
    return markdown[0] if markdown else None


def check_manifest(texts: dict[str, str], catalogue: Catalogue, collector: Collector) -> Manifest:
    path = manifest_path(list(texts))
    if path is None or path.rsplit("/", 1)[-1].lower() != "skill.md":
        collector.add(catalogue.rule("metadata.missing-skill-md"), path or "", 1, 1, "")
    if path is None:
        return Manifest(None, "", "", ())
    text = texts[path]
    try:
        front_matter = skillmd.read_front_matter(text)
    except skillmd.SkillFileError as error:
        snippet = text[:80] if error.code == skillmd.MISSING_FRONT_MATTER else error.message
        collector.add(catalogue.rule(_RULES[error.code]), path, error.line, 1, snippet)
        return Manifest(path, "", "", ())
    data = front_matter.data
    declared, problems = skillmd.declared_fields(data)
    manifest = Manifest(
        path,
        declared.name,
        declared.description,
        declared.allowed_tools,
        tuple(_urls(data)),
        " ".join(
            _text(value)[:500] for key, value in data.items() if key not in ("name", "description")
        )[:2000],
    )
    for problem in problems:
        line = _line_of_key(text, _PROBLEM_KEYS.get(problem.code, ""))
        snippet = declared.name if problem.code == skillmd.BAD_NAME else problem.message[:120]
        collector.add(catalogue.rule(_RULES[problem.code]), path, line, 1, snippet)
    _check_trust(manifest, text, catalogue, collector)
    return manifest


def _check_trust(manifest: Manifest, text: str, catalogue: Catalogue, collector: Collector) -> None:
    path = manifest.path or ""
    target = imitated(manifest.name) if manifest.name else None
    if target is not None:
        note = f"(looks like a typo of {target!r})"
        rule = catalogue.rule("supply-chain.typosquat-name")
        line = _line_of_key(text, "name")
        collector.add(rule, path, line, 1, f"name: {manifest.name}", note)
    for tool in manifest.allowed_tools:
        if tool.strip().lower() in _UNSCOPED_SHELL:
            line = _line_of_key(text, "allowed-tools")
            collector.add(catalogue.rule("metadata.unscoped-shell-tool"), path, line, 1, tool)
            break


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return str(value)


def _urls(value: object, depth: int = 0) -> list[str]:
    """String values of the front matter that are URLs, at any nesting depth up to 4."""
    if isinstance(value, str):
        return [value] if value.startswith(("http://", "https://")) else []
    if depth >= 4:
        return []
    if isinstance(value, dict):
        return [url for item in value.values() for url in _urls(item, depth + 1)]
    if isinstance(value, list):
        return [url for item in value for url in _urls(item, depth + 1)]
    return []


def _line_of_key(text: str, key: str) -> int:
    if not key:
        return 1
    match = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1
