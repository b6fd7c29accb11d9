"""The skill's manifest: find SKILL.md, parse its front matter and check what it declares.

Front matter is what an agent reads to decide *whether* to load a skill, so it gets the checks of
the Agent Skills format (``name``: lowercase words joined by hyphens, at most 64 characters;
``description``: present, at most 1024 characters) plus the ones that matter for trust: a name that
imitates a well-known one, and an ``allowed-tools`` that grants an unscoped shell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import frontmatter_span, is_markdown
from grading.tier1.findings import Collector
from grading.tier1.names import imitated

MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_DESCRIPTION_CHARS = 1024
_NAME_FORMAT = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_UNSCOPED_SHELL = {"bash", "shell", "sh", "zsh", "terminal", "exec", "execute", "computer", "*"}


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
    span = frontmatter_span(text)
    if span is None:
        collector.add(catalogue.rule("metadata.missing-frontmatter"), path, 1, 1, text[:80])
        return Manifest(path, "", "", ())
    raw = text[span[0] : span[1]][:MAX_FRONTMATTER_CHARS]
    try:
        data = yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", 0) + 2
        collector.add(catalogue.rule("metadata.invalid-frontmatter"), path, line, 1, str(exc))
        return Manifest(path, "", "", ())
    if not isinstance(data, dict):
        collector.add(catalogue.rule("metadata.invalid-frontmatter"), path, 2, 1, raw[:80])
        return Manifest(path, "", "", ())
    manifest = Manifest(
        path,
        _text(data.get("name")),
        _text(data.get("description")),
        _tools(data.get("allowed-tools", data.get("allowed_tools"))),
        tuple(_urls(data)),
        " ".join(
            _text(value)[:500] for key, value in data.items() if key not in ("name", "description")
        )[:2000],
    )
    _check_fields(manifest, text, catalogue, collector)
    return manifest


def _check_fields(
    manifest: Manifest, text: str, catalogue: Catalogue, collector: Collector
) -> None:
    path = manifest.path or ""
    name_line = _line_of_key(text, "name")
    if not manifest.name or not _NAME_FORMAT.match(manifest.name) or len(manifest.name) > 64:
        collector.add(catalogue.rule("metadata.bad-name"), path, name_line, 1, manifest.name)
    if not manifest.description.strip():
        collector.add(catalogue.rule("metadata.missing-description"), path, 1, 1, "")
    elif len(manifest.description) > MAX_DESCRIPTION_CHARS:
        line = _line_of_key(text, "description")
        excerpt = manifest.description[:120]
        collector.add(catalogue.rule("metadata.long-description"), path, line, 1, excerpt)
    target = imitated(manifest.name) if manifest.name else None
    if target is not None:
        note = f"(looks like a typo of {target!r})"
        rule = catalogue.rule("supply-chain.typosquat-name")
        collector.add(rule, path, name_line, 1, f"name: {manifest.name}", note)
    for tool in manifest.allowed_tools:
        if tool.strip().lower() in _UNSCOPED_SHELL:
            line = _line_of_key(text, "allowed-tools")
            collector.add(catalogue.rule("metadata.unscoped-shell-tool"), path, line, 1, tool)
            break


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loading only: front matter is untrusted input."""


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return str(value)


def _tools(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(t for t in re.split(r"[,\s]+(?![^()]*\))", value) if t)
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return (str(value),)


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
    match = re.search(rf"^{re.escape(key)}\s*:", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1
