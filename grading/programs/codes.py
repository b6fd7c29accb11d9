"""Strings hidden as tables of character codes, in any language, without a parser.

Lua, Ruby, Rust, Go, Perl and PHP have no syntax tree here, yet the disguise is the same in all
of them: a table of numbers (``{99,118,101,…}``, ``[0x63, 0x76, …]``, ``vec![…]``) turned into
text by a loop, often through a XOR with a key the program names (``bit.bxor(t[i], 23)``,
``b ^ KEY``). A light tokeniser is enough to undo it: each table of at least ``MIN_CODES``
numbers is read as character codes as written, and XORed with every small number the program
writes, when it uses a XOR at all. What a table spells matters only when it is meaningful
(``sensitive.meaningful``: a sensitive path, a URL, a payment destination, a command, code);
a lookup table or a checksum spells nothing.

A decoded string the same program hands to an executor (``os.execute``, ``io.popen``,
``system``, ``exec``, ``Command::new``, ``load``, ``eval``), on a line that names the table,
is executed: hidden code run, which has no benign reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from grading.programs import sensitive
from grading.programs.facts import DECODED_EXEC, DECODED_STRING, Fact

MIN_CODES = 8
MAX_TABLES = 64
_TABLE = re.compile(
    r"[\[{(]\s*((?:0x[0-9a-fA-F]{1,6}|\d{1,7})(?:\s*,\s*(?:0x[0-9a-fA-F]{1,6}|\d{1,7})){7,4000})"
    r"\s*,?\s*[\]})]"
)
_BOUND = re.compile(r"([A-Za-z_]\w{0,60})\s*(?::[^=\n]{0,40})?:?=\s*[^=\n]{0,30}$")
"""The name a table is assigned to, read on its line before it (``local t = ``, ``WARM = ``,
``var u = []byte``, ``const T: [u8; 9] = ``)."""
_NUMBER = re.compile(r"0x[0-9a-fA-F]{1,6}|\d{1,7}")
_XOR = re.compile(r"\bb?xor\b|\bbit32?\.bxor\b|\^|(?<![~=!<>])~(?!=)")
_XOR_LITERALS = ("xor", "^", "~")
_KEY = re.compile(r"(?<![\w.])(?:0x[0-9a-fA-F]{1,2}|\d{1,3})(?![\w.])")
_EXECUTORS = re.compile(
    r"\bos\.execute\b|\bio\.popen\b|\bsystem\s*\(|\bexec[lv]?p?\s*\(|\bCommand::new\b"
    r"|\bexec\.Command\b|\bloadstring\b|\bload\s*\(|\beval\s*\(|\bspawn\s*\(|%x\(|\bpassthru\b"
    r"|\bshell_exec\b|\bIO\.popen\b|\bOpen3\.\w+"
)


@dataclass(frozen=True)
class Decoded:
    offset: int
    """Where the table starts."""
    name: str
    """The variable the table is assigned to ("" when it is not)."""
    text: str
    how: str
    meaning: str


def _printable(code: int) -> bool:
    return 32 <= code < 127 or code in (9, 10, 13)


def _codes(numbers: str) -> list[int]:
    return [int(n, 16) if n.startswith("0x") else int(n) for n in _NUMBER.findall(numbers)]


def _spell(codes: list[int]) -> str | None:
    if all(9 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF for code in codes):
        return "".join(chr(code) for code in codes)
    return None


def _keys(text: str) -> list[int]:
    """The small numbers a program that uses a XOR writes: its possible keys. Every match of
    ``_XOR`` holds "xor", "^" or "~", looked for first: Python tries the expression's
    alternatives at every character, ten times slower than the three look-ups."""
    if not any(literal in text for literal in _XOR_LITERALS) or not _XOR.search(text):
        return []
    return sorted(set(_codes(" ".join(_KEY.findall(text)))) - {0} & set(range(1, 256)))


def tables(text: str) -> Iterator[Decoded]:
    """The meaningful strings the number tables of ``text`` spell, as written or XORed with a
    key the program writes."""
    keys: list[int] | None = None  # read once a table is found: most programs have none
    for count, match in enumerate(_TABLE.finditer(text)):
        if count >= MAX_TABLES:
            return
        if keys is None:
            keys = _keys(text)
        codes = _codes(match.group(1))
        for key, how in ((0, "character codes"), *((k, f"character codes XOR {k}") for k in keys)):
            if not all(_printable(code ^ key) for code in codes[:MIN_CODES]):
                continue  # a cheap look at the start before the whole table is spelled
            spelled = _spell([code ^ key for code in codes])
            meaning = sensitive.meaningful(spelled) if spelled else None
            if spelled and meaning:
                line_start = text.rfind("\n", max(0, match.start() - 120), match.start()) + 1
                bound = _BOUND.search(text, max(line_start, match.start() - 120), match.start())
                name = bound.group(1) if bound else ""
                yield Decoded(match.start(), name, spelled, how, meaning)
                break


def analyse(text: str) -> list[Fact]:
    """What the number tables of ``text`` hide, and whether the program runs it."""
    found: list[Fact] = []
    lines = text.split("\n")
    for item in tables(text):
        detail = f"{item.how} decode to {item.meaning}: {item.text[:120]}"
        found.append(Fact(DECODED_STRING, item.offset, detail))
        if item.name:
            named = re.compile(rf"\b{re.escape(item.name)}\b")
            runs = any(
                _EXECUTORS.search(line) and named.search(line)
                for line in lines
                if item.name in line
            )
            if runs:
                found.append(Fact(DECODED_EXEC, item.offset, f"{item.name} is run: {detail}"))
    return found
