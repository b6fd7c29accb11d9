"""Everything the client prints passes through here, and text that came from a registry
(names, descriptions, reasons, findings, lines of a skill) through ``shown``: a registry or a
skill's author must not be able to move the cursor, rewrite earlier lines or set the terminal's
title with control characters hidden in a reason or a line of code."""

from __future__ import annotations

import sys
import unicodedata
from typing import TextIO

_KEPT = frozenset("\n\t")


def shown(text: object, *, multiline: bool = False) -> str:
    """``text`` with every control or format character written as a visible escape
    (``\\x1b``, ``\\u202e``); line breaks are kept only when ``multiline``."""
    out = []
    for char in str(text):
        if char in _KEPT and (multiline or char == "\t"):
            out.append(char)
        elif unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


class Printer:
    """Results on stdout, progress and errors on stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def say(self, line: str = "") -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def note(self, line: str) -> None:
        """Progress, to stderr: a script piping stdout gets only the results."""
        self.err.write(line + "\n")
        self.err.flush()
