"""Undoing the cheap disguises of a command, so the rules read what will actually run.

Besides layered encodings (``decoding``), payloads hide from pattern matching by construction:
``"cu" + "rl"`` (string joins), ``chr(99) + chr(117) + …`` or ``String.fromCharCode(99, 117, …)``
(character codes; tables of them in any language, XORed or not: ``programs.codes``; base32,
hex or base64 constants joined in a list: ``programs.encoded``),
``a=cu; b=rl; $a$b …`` or ``alias get=curl`` (shell variables and aliases), ``"\\u0063\\u0075…"``
(a string of a JSON, YAML or program file written in escapes of plain ASCII).
Each recovery here yields the text the construct stands for, with the offset where it starts;
the scanner rescans it like decoded data, anchored at that place. Everything is bounded: only
literal pieces are joined, at most MAX_RECOVERED recoveries per text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from grading.programs import codes, encoded

MAX_RECOVERED = 32
MIN_LENGTH = 6

_JOIN = re.compile(
    r"""(["'])([^"'\n\\]{0,80})\1(?:\s{0,4}\+\s{0,4}(["'])([^"'\n\\]{0,80})\3){1,40}"""
)
_PIECE = re.compile(r"""(["'])([^"'\n\\]{0,80})\1""")
_CHR_RUN = re.compile(
    r"\bchr\(\s{0,4}\d{1,7}\s{0,4}\)(?:\s{0,4}\+\s{0,4}chr\(\s{0,4}\d{1,7}\s{0,4}\)){3,400}"
)
_FROM_CHAR_CODE = re.compile(
    r"\bString\.fromCharCode\(\s{0,4}(\d{1,7}(?:\s{0,4},\s{0,4}\d{1,7}){3,400})\s{0,4}\)"
)
_BYTES_LIST = re.compile(
    r"\bbytes\(\s{0,4}\[\s{0,4}(\d{1,3}(?:\s{0,4},\s{0,4}\d{1,3}){3,400})\s{0,4}\]\s{0,4}\)"
)
_NUMBER = re.compile(r"\d{1,7}")
_SHELL_ASSIGN = re.compile(
    r"(?m)^[ \t]{0,20}(?:export\s+)?([A-Za-z_]\w{0,30})="
    r"(['\"]?)([\w./:@=?&%+-]{1,200})\2[ \t]*(?:;|$)"
)
_ESCAPED_STRING = re.compile(r'"((?:[^"\\\n]|\\.){0,2000})"')
_ASCII_ESCAPE = re.compile(r"\\(?:u00([2-7][0-9a-fA-F])|x([2-7][0-9a-fA-F]))")
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(.))")
MIN_ESCAPES = 3
"""Escapes of printable ASCII in one string before it is read as a disguise: an escaped quote
or an accented letter (``\\u00e9``) is how JSON writes text, ``\\u0063\\u0075\\u0072`` is not."""
_SHELL_ALIAS = re.compile(r"(?m)^[ \t]{0,20}alias\s+([\w.-]{1,30})=(['\"])([^'\"\n]{1,200})\2")


@dataclass(frozen=True)
class Recovered:
    """Text a disguise stands for, and the offset of the disguise in the scanned text."""

    start: int
    text: str
    how: str


def recover(text: str, language: str) -> Iterator[Recovered]:
    """The disguised strings of ``text`` read as ``language`` (python, javascript or shell)."""
    found = 0
    for item in _recoveries(text, language):
        if len(item.text) >= MIN_LENGTH:
            yield item
            found += 1
            if found >= MAX_RECOVERED:
                return


def _recoveries(text: str, language: str) -> Iterator[Recovered]:
    if language in ("python", "javascript", "code"):
        if "+" in text:
            for match in _JOIN.finditer(text):
                joined = "".join(piece.group(2) for piece in _PIECE.finditer(match.group()))
                if match.group().count("+") >= 2 or len(joined) >= 12:
                    yield Recovered(match.start(), joined, "string join")
        if "chr(" in text:
            for match in _CHR_RUN.finditer(text):
                yield Recovered(match.start(), _characters(match.group()), "character codes")
        if "fromCharCode" in text:
            for match in _FROM_CHAR_CODE.finditer(text):
                yield Recovered(match.start(), _characters(match.group(1)), "character codes")
        if "bytes(" in text:
            for match in _BYTES_LIST.finditer(text):
                yield Recovered(match.start(), _characters(match.group(1)), "byte values")
    if language in ("code", "shell"):
        for item in codes.tables(text):  # no parser reads them: Lua, Ruby, Rust, Go…
            yield Recovered(item.offset, item.text, item.how)
    if language == "code":
        for spelled in encoded.spelled(text):  # base32, hex, base64 constants: Java, C#, Go…
            yield Recovered(spelled.offset, spelled.text, spelled.how)
    if language == "shell" and ("$" in text or "alias" in text):
        yield from _shell_substitutions(text)
    if "\\u00" in text or "\\x" in text:
        yield from _escaped_strings(text)


def _escaped_strings(text: str) -> Iterator[Recovered]:
    """Double-quoted strings spelled in escapes of plain ASCII, with the escapes undone."""
    for match in _ESCAPED_STRING.finditer(text):
        if len(_ASCII_ESCAPE.findall(match.group(1))) >= MIN_ESCAPES:
            yield Recovered(match.start(), unescaped(match.group(1)), "escapes")


def unescaped(value: str) -> str:
    """``value`` with its string escapes undone as JSON, YAML or TOML reads them: ``\\u0063``
    and ``\\x63`` are ``c``, ``\\"`` is ``"``."""
    return _ESCAPE.sub(_unescape, value)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1) or match.group(2)
    return chr(int(code, 16)) if code else match.group(3)


def _characters(numbers: str) -> str:
    codes = (int(n) for n in _NUMBER.findall(numbers))
    return "".join(chr(code) for code in codes if 9 <= code <= 0x10FFFF)


def _shell_substitutions(text: str) -> Iterator[Recovered]:
    """Lines that use shell variables or aliases assigned literal values, with them expanded."""
    values = {m.group(1): m.group(3) for m in _SHELL_ASSIGN.finditer(text)}
    aliases = {m.group(1): m.group(3) for m in _SHELL_ALIAS.finditer(text)}
    if not values and not aliases:
        return
    offset = 0
    for line in text.split("\n"):
        expanded = line
        if values and "$" in line:
            expanded = re.sub(
                r"\$\{?([A-Za-z_]\w{0,30})\}?",
                lambda m: values.get(m.group(1), m.group()),
                expanded,
            )
        if aliases:
            words = expanded.split(None, 1)
            if words and words[0] in aliases:
                expanded = aliases[words[0]] + (" " + words[1] if len(words) > 1 else "")
        if expanded != line:
            yield Recovered(offset, expanded.strip(), "shell variables")
        offset += len(line) + 1
