"""SKILL.md: YAML front matter (``name``, ``description``, optional ``version`` …) + Markdown.

Front matter is untrusted: it is parsed with a safe loader that refuses YAML aliases (no
"billion laughs") and is capped in size before parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

NAME_PATTERN = re.compile(r"[a-z0-9-]{1,64}")
MAX_FRONT_MATTER_BYTES = 16 * 1024
MAX_DESCRIPTION_CHARS = 1024
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.M)


class SkillFileError(ValueError):
    """SKILL.md cannot be accepted; the message says what to fix."""


class _NoAliasSafeLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases are not allowed in front matter", event.start_mark
            )
        return super().compose_node(parent, index)


@dataclass(frozen=True)
class SkillManifest:
    name: str
    description: str
    version: str | None
    front_matter: dict[str, Any] = field(default_factory=dict)
    body: str = ""


def split_front_matter(text: str) -> tuple[dict[str, Any], str] | None:
    """Front matter as a mapping and the Markdown body, or None when there is no front matter.

    Raises SkillFileError when front matter is present but is not a YAML mapping.
    """
    match = _FRONT_MATTER.match(text)
    if match is None:
        return None
    raw = match.group(1)
    if len(raw.encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        raise SkillFileError(
            f"SKILL.md front matter is larger than {MAX_FRONT_MATTER_BYTES // 1024} KB"
        )
    try:
        data = yaml.load(raw, Loader=_NoAliasSafeLoader)
    except yaml.YAMLError as exc:
        detail = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise SkillFileError(f"SKILL.md front matter is not valid YAML: {detail}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillFileError("SKILL.md front matter must be a YAML mapping of keys to values")
    return data, text[match.end() :]


def parse_manifest(text: str) -> SkillManifest:
    """Validate SKILL.md and return its manifest; SkillFileError says what to fix."""
    parsed = split_front_matter(text)
    if parsed is None:
        raise SkillFileError(
            "SKILL.md must start with YAML front matter between '---' lines, "
            "with at least 'name' and 'description'"
        )
    data, body = parsed
    name = data.get("name")
    description = data.get("description")
    missing = [key for key, value in (("name", name), ("description", description)) if not value]
    if missing:
        raise SkillFileError(f"SKILL.md front matter lacks {' and '.join(missing)}")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise SkillFileError(
            f"SKILL.md name {name!r} is invalid: use 1–64 lowercase letters, digits and hyphens"
        )
    if not isinstance(description, str):
        raise SkillFileError("SKILL.md description must be text")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise SkillFileError(
            f"SKILL.md description is longer than {MAX_DESCRIPTION_CHARS} characters"
        )
    version = data.get("version")
    return SkillManifest(
        name=name,
        description=description.strip(),
        version=str(version) if version is not None else None,
        front_matter=data,
        body=body,
    )
