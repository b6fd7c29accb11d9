"""Text the CLI prints is escaped: a registry's or an owner's words (a yank reason, an advisory)
must not move the cursor, erase the warning they sit in, or change what the terminal shows.

Every control character but newline and tab (C0, DEL, C1, including ESC and carriage return)
and the bidirectional overrides and isolates are printed as visible escapes (``\\x1b``).
"""

from __future__ import annotations

import io
import re
from typing import TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """``text`` with every unsafe character as its visible escape."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class SafeStream(io.TextIOBase):
    """A text stream that escapes everything written to it (wraps stdout and stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(clean(text))

    def flush(self) -> None:
        self.stream.flush()
