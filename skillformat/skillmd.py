"""SKILL.md: the one parser of its front matter, used by intake, Tier 1, the judge and publishing.

The grammar is deliberately strict, so that whatever reads a published skill later (an agent
runtime, an installer, another YAML library) sees exactly what the registry verified:

* the file opens with a line that is exactly ``---`` (LF or CRLF): no byte-order mark, no spaces
  or tabs after the dashes;
* the front matter ends at the next line that is exactly ``---``; a ``...`` closer, a marker line
  with trailing blanks, a lone carriage return or a Unicode line separator is an error;
* at most MAX_FRONT_MATTER_BYTES, nested at most MAX_NESTING levels (checked while composing,
  so a flood of ``[`` is refused before it can exhaust the stack);
* a YAML mapping with text keys, each key once, and no aliases, anchors, merge keys or tags:
  the features on which YAML libraries disagree.

``name`` is lowercase letters and digits in hyphen-joined words (at most 64 characters),
``description`` is text of at most 1024 characters, ``version`` (optional) at most 64 characters.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

MAX_FRONT_MATTER_BYTES = 16 * 1024
MAX_NESTING = 20
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_VERSION_CHARS = 64
NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

MISSING_FRONT_MATTER = "missing-frontmatter"
INVALID_FRONT_MATTER = "invalid-frontmatter"
BAD_NAME = "bad-name"
MISSING_DESCRIPTION = "missing-description"
LONG_DESCRIPTION = "long-description"
BAD_VERSION = "bad-version"

_MARKER = "---"
_LINE_SEPARATORS = ("\x85", "\u2028", "\u2029", "\ufeff")
_MERGE_TAG = "tag:yaml.org,2002:merge"


class SkillFileError(ValueError):
    """SKILL.md cannot be accepted; the message says what to fix, ``code`` which rule it broke
    and ``line`` (1-based) where."""

    def __init__(self, message: str, *, code: str, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.line = line


@dataclass(frozen=True)
class FrontMatter:
    """The parsed mapping and where it sits: ``start``/``end`` delimit the YAML text (without
    the marker lines), ``body_start`` is where the Markdown begins."""

    data: dict[str, Any]
    start: int
    end: int
    body_start: int


@dataclass(frozen=True)
class SkillManifest:
    """What the front matter declares, as every consumer reads it (stored once per snapshot)."""

    name: str
    description: str
    version: str | None = None
    allowed_tools: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "allowed_tools": list(self.allowed_tools),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SkillManifest:
        return cls(
            name=str(data.get("name", "")),
            description=str(data.get("description", "")),
            version=data.get("version"),
            allowed_tools=tuple(data.get("allowed_tools", ())),
        )


def _locate(text: str) -> tuple[int, int, int]:
    """(start, end, body_start) of the front matter, or SkillFileError saying why there is none."""
    if text.startswith("\ufeff"):
        raise SkillFileError(
            "SKILL.md starts with a byte-order mark: save it as UTF-8 without BOM",
            code=INVALID_FRONT_MATTER,
        )
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.removesuffix("\r") != _MARKER:
        if first.rstrip(" \t\r") == _MARKER:
            raise SkillFileError(
                "SKILL.md's opening '---' line has trailing spaces or tabs: make it exactly '---'",
                code=INVALID_FRONT_MATTER,
            )
        raise SkillFileError(
            "SKILL.md must start with YAML front matter between '---' lines, "
            "with at least 'name' and 'description'",
            code=MISSING_FRONT_MATTER,
        )
    if first_end < 0:
        raise SkillFileError(
            "SKILL.md's front matter is not closed by a '---' line", code=INVALID_FRONT_MATTER
        )
    start = first_end + 1
    position, line_number = start, 2
    while position - start <= MAX_FRONT_MATTER_BYTES:
        newline = text.find("\n", position)
        line_end = len(text) if newline < 0 else newline
        content = text[position:line_end].removesuffix("\r")
        if "\r" in content or any(sep in content for sep in _LINE_SEPARATORS):
            raise SkillFileError(
                f"SKILL.md line {line_number}: front matter may only use LF or CRLF line ends "
                "(found a lone carriage return, a Unicode line separator or a byte-order mark)",
                code=INVALID_FRONT_MATTER,
                line=line_number,
            )
        if content == _MARKER:
            if len(text[start:position].encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
                break
            return start, position, len(text) if newline < 0 else newline + 1
        if content.rstrip(" \t") in (_MARKER, "..."):
            raise SkillFileError(
                f"SKILL.md line {line_number}: close the front matter with a line that is "
                "exactly '---'",
                code=INVALID_FRONT_MATTER,
                line=line_number,
            )
        if newline < 0:
            raise SkillFileError(
                "SKILL.md's front matter is not closed by a '---' line",
                code=INVALID_FRONT_MATTER,
            )
        position, line_number = newline + 1, line_number + 1
    raise SkillFileError(
        f"SKILL.md front matter is larger than {MAX_FRONT_MATTER_BYTES // 1024} KB",
        code=INVALID_FRONT_MATTER,
    )


def front_matter_span(text: str) -> tuple[int, int] | None:
    """(start, end) of the front matter's YAML text, or None when the file has none by the
    grammar above (the same answer the parser gives)."""
    try:
        start, end, _ = _locate(text)
    except SkillFileError:
        return None
    return start, end


class _StrictLoader(yaml.SafeLoader):
    """Safe loading, minus every feature YAML libraries disagree on, with bounded nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _refusal("YAML anchors and aliases are not allowed in front matter", event)
        if getattr(event, "tag", None) not in (None, "!"):
            raise _refusal("YAML tags are not allowed in front matter", event)
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise _refusal(f"front matter is nested deeper than {MAX_NESTING} levels", event)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                raise _refusal("YAML merge keys ('<<') are not allowed in front matter", key_node)
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _refusal("front matter keys must be text", key_node)
            if key in seen:
                raise _refusal(f"the key {key!r} appears twice in front matter", key_node)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _refusal(problem: str, where: object) -> yaml.MarkedYAMLError:
    mark = getattr(where, "start_mark", None)
    return yaml.constructor.ConstructorError(None, None, problem, mark)


_SIMPLE_ENTRY = re.compile(
    r"(?P<key>[A-Za-z][A-Za-z0-9_-]{0,63}): +"
    r"(?:(?P<plain>[^-?:,\[\]{}#&*!|>'\"%@` \t](?:[^:#\t]|:(?=[^ \t]))*?)"
    r"|\"(?P<double>[^\"\\\t]*)\"|'(?P<single>[^'\t]*)') *"
)
"""A top-level ``key: value`` line whose value is one plain word or phrase (no comment, no
``: ``, no indicator first), or a quoted one with no escapes."""
_UNUSUAL = re.compile(f"{yaml.reader.Reader.NON_PRINTABLE.pattern}|[\r\x85\u2028\u2029\ufeff]")
"""What YAML refuses or reads as a line break (or a byte-order mark): left to the loader."""
_RESOLVER = yaml.resolver.Resolver()
_TEXT_TAG = "tag:yaml.org,2002:str"


def _simple_front_matter(source: str) -> dict[str, str] | None:
    """The mapping of a front matter made only of ``_SIMPLE_ENTRY`` lines (and blank lines),
    each key once and every plain key and value text (not a number, a date, a boolean or
    null), read without YAML's parser: exactly what the strict loader builds from it. None for
    anything else, which the loader reads."""
    if _UNUSUAL.search(source) or not source.strip():
        return None
    data: dict[str, str] = {}
    for line in source.removesuffix("\n").split("\n"):
        if not line:
            continue
        entry = _SIMPLE_ENTRY.fullmatch(line)
        if entry is None or entry["key"] in data or not _is_text(entry["key"]):
            return None
        plain = entry["plain"]
        if plain is not None and not _is_text(plain):
            return None
        value = plain if plain is not None else entry["double"]
        data[entry["key"]] = value if value is not None else entry["single"]
    return data


def _is_text(plain: str) -> bool:
    """A plain scalar YAML reads as text (not ``true``, ``1.0``, ``2024-01-01``, ``~``)."""
    return _RESOLVER.resolve(yaml.ScalarNode, plain, (True, False)) == _TEXT_TAG


def read_front_matter(text: str) -> FrontMatter:
    """The front matter as a mapping, or SkillFileError (missing or invalid) saying why. Most
    front matter is a few ``key: value`` lines, read without the YAML parser (a fraction of
    Tier 1's time per skill); anything else goes through the strict loader."""
    start, end, body_start = _locate(text)
    simple = _simple_front_matter(text[start:end])
    if simple is not None:
        return FrontMatter(data=simple, start=start, end=end, body_start=body_start)
    try:
        data = yaml.load(text[start:end], Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = text.count("\n", 0, start) + 1 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SkillFileError(
            f"SKILL.md front matter is not valid YAML (line {line}): {problem}",
            code=INVALID_FRONT_MATTER,
            line=line,
        ) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillFileError(
            "SKILL.md front matter must be a YAML mapping of keys to values",
            code=INVALID_FRONT_MATTER,
            line=text.count("\n", 0, start) + 1,
        )
    return FrontMatter(data=data, start=start, end=end, body_start=body_start)


def declared_fields(data: Mapping[str, Any]) -> tuple[SkillManifest, list[SkillFileError]]:
    """The manifest the front matter declares and every rule it breaks (in field order).

    The manifest is filled even when there are problems, so Tier 1 can still check what the
    skill claims to be (a typosquatted name, an unscoped shell tool).
    """
    problems: list[SkillFileError] = []
    name, description, version = data.get("name"), data.get("description"), data.get("version")
    if not isinstance(name, str) or not name:
        problems.append(
            SkillFileError(
                "SKILL.md front matter lacks a 'name' (text)"
                if name in (None, "")
                else f"SKILL.md name {name!r} is invalid: it must be text",
                code=BAD_NAME,
            )
        )
    elif len(name) > MAX_NAME_CHARS or not NAME_PATTERN.fullmatch(name):
        problems.append(
            SkillFileError(
                f"SKILL.md name {name!r} is invalid: use at most {MAX_NAME_CHARS} lowercase "
                "letters and digits, in words joined by single hyphens",
                code=BAD_NAME,
            )
        )
    if not isinstance(description, str) or not description.strip():
        problems.append(
            SkillFileError(
                "SKILL.md front matter lacks a 'description' (text)",
                code=MISSING_DESCRIPTION,
            )
        )
    elif len(description) > MAX_DESCRIPTION_CHARS:
        problems.append(
            SkillFileError(
                f"SKILL.md description is longer than {MAX_DESCRIPTION_CHARS} characters",
                code=LONG_DESCRIPTION,
            )
        )
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, str | int | float)
    ):
        problems.append(SkillFileError("SKILL.md version must be text", code=BAD_VERSION))
        version = None
    elif version is not None and len(str(version)) > MAX_VERSION_CHARS:
        problems.append(
            SkillFileError(
                f"SKILL.md version is longer than {MAX_VERSION_CHARS} characters",
                code=BAD_VERSION,
            )
        )
    manifest = SkillManifest(
        name=name if isinstance(name, str) else "",
        description=description.strip() if isinstance(description, str) else "",
        version=None if version is None else str(version)[:MAX_VERSION_CHARS],
        allowed_tools=_tools(data.get("allowed-tools", data.get("allowed_tools"))),
    )
    return manifest, problems


def parse_manifest(text: str) -> SkillManifest:
    """Validate SKILL.md and return its manifest; SkillFileError says what to fix."""
    manifest, problems = declared_fields(read_front_matter(text).data)
    if problems:
        raise problems[0]
    return manifest


def _tools(value: object) -> tuple[str, ...]:
    """``allowed-tools`` as a list of tool names: a YAML list, or text separated by commas or
    blanks (parenthesised arguments such as ``Bash(git:*)`` stay whole)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(t for t in re.split(r"[,\s]+(?![^()]*\))", value) if t)
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return (str(value),)
