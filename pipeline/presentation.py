"""How pipeline records read for people: short ids, yes/no, and audit events' details.

The admin pages and the review page show the same records; they share these functions so a
submission id, an outcome or an event's details read the same everywhere. Nothing here decides
anything: it only turns stored values into text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SHORT_ID_LENGTH = 8
"""Characters of a UUID shown in lists: as unique as needed among the rows a page shows."""


def short_id(value: object) -> str:
    """The first characters of an id, as lists show it (the full id goes in a tooltip)."""
    return str(value)[:SHORT_ID_LENGTH]


def yes_no(value: bool | None) -> str:
    """A stored flag as a word; unknown when it was never set."""
    if value is None:
        return "unknown"
    return "yes" if value else "no"


def outcome_text(outcome: Mapping[str, Any]) -> str:
    """``{kind, code, message}`` as one line: "PUBLISHED (verdict): Published as …"."""
    return f"{outcome.get('code', '')} ({outcome.get('kind', '')}): {outcome.get('message', '')}"


def event_details(metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """An audit event's metadata as (label, text) pairs, in the order it was recorded.

    Metadata is JSON written by each transition; shown raw it is a Python dict that neither
    reads well nor wraps. Keys become words and values plain text: an outcome reads as one
    line, lists are joined, flags are yes/no.
    """
    return [(key.replace("_", " "), _text(value)) for key, value in metadata.items()]


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return yes_no(value)
    if isinstance(value, Mapping):
        if {"kind", "code", "message"} <= value.keys():
            return outcome_text(value)
        return ", ".join(f"{key.replace('_', ' ')} {_text(item)}" for key, item in value.items())
    if isinstance(value, Sequence) and not isinstance(value, str):
        return "; ".join(_text(item) for item in value) or "none"
    return str(value)
