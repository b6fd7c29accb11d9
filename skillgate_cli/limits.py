"""Bounds on everything the CLI reads: a registry (or a file) can send anything, and the answer
to hostile input is a message and exit 1, never a traceback or an exhausted machine.

``loads`` is the one way the CLI parses JSON: the text is refused before parsing when it is
larger than ``MAX_JSON_BYTES`` or nested deeper than ``MAX_DEPTH`` (Python's parser recurses
once per level: 200,000 ``[`` would end in RecursionError).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024
MAX_RECORD_BYTES = 4 * 1024 * 1024
"""An install record or the trust store, read from disk."""


class TooLarge(ValueError):
    """The input is over a bound; the message says which."""


def loads(content: bytes | str, what: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """``content`` parsed as JSON, or ValueError (TooLarge for a bound) naming ``what``."""
    raw = content.encode("utf-8") if isinstance(content, str) else content
    if len(raw) > max_bytes:
        raise TooLarge(f"{what} is larger than {max_bytes} bytes")
    depth = nesting_depth(raw)
    if depth > MAX_DEPTH:
        raise TooLarge(f"{what} is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{what} is not valid JSON") from error


def nesting_depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings, in one pass without recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def read_file(path: Path, max_bytes: int = MAX_RECORD_BYTES) -> bytes:
    """A local file's bytes, refused (TooLarge) over ``max_bytes`` without reading the rest."""
    with open(path, "rb") as file:
        content = file.read(max_bytes + 1)
    if len(content) > max_bytes:
        raise TooLarge(f"{path} is larger than {max_bytes} bytes")
    return content
