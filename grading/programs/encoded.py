"""String constants written encoded, in any language, without a parser.

A program in a language no parser here reads (Java, Kotlin, C#, Go, Ruby…) can hide a command
from every reader by writing its pieces as base32, hex or base64 constants, decoded and joined
at run time (``static final String[] BOOT = {"MN2XE3BA…", …}`` then ``String.join(" ", …)``).
Without a syntax tree the decoder call cannot be followed, but the disguise shows in the
constants themselves: each is tried as base32 (RFC 4648), hex, base64 and base85 (RFC 1924's
letters, as Git and Python's ``b85encode`` write it, or Ascii85's), zlib-deflated or not, and,
in a program that speaks of ROT13, rotated back. Constants written side by side in
one list are read as the pieces of one string (joined with spaces, as commands are), since a
list is how the pieces are kept. What the constants spell matters only when it is meaningful
(``sensitive.meaningful``: a sensitive path, a URL, a payment destination, a command, code):
identifiers and hashes spell nothing.

A spelled command or code in a program that starts processes (``ProcessBuilder``,
``Runtime.getRuntime().exec``, ``Process.Start``, ``exec.Command``, ``system``) is executed:
there is no reason to encode a command one runs but to hide it.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from grading.programs import sensitive
from grading.programs.facts import DECODED_EXEC, DECODED_STRING, Fact

MAX_CONSTANTS = 256
MIN_ENCODED = 8
"""Shorter constants spell too little to decode by chance or by design."""
_CONSTANT = re.compile(r"\"([^\"\\\n]{8,4096})\"|'([^'\\\n]{8,4096})'")
_BASE32 = re.compile(r"[A-Z2-7]+=*")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_BASE85 = re.compile(r"[0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{20,}")
_ASCII85 = re.compile(r"(?:<~)?[!-uz]{20,}(?:~>)?")
_LONG = 20
"""Base85 letters are most of ASCII, so only a long constant is tried as base85: a short word
would decode to a few printable bytes by chance."""
_LISTED = re.compile(r"\s*(?://[^\n]*\n\s*|#[^\n]*\n\s*)*,\s*(?://[^\n]*\n\s*|#[^\n]*\n\s*)*\Z")
"""What lies between two constants of one list: a comma, space, comments."""
_ROT13 = re.compile(r"(?i)\brot_?13\b|\+\s*13\s*\)\s*%\s*26")
_EXECUTORS = re.compile(
    r"\bProcessBuilder\b|\bRuntime\.getRuntime\(\)\s*\.exec\b|\bProcess\.Start\b"
    r"|\bProcessStartInfo\b|\bexec\.Command\b|\bCommand::new\b|\bos\.execute\b|\bio\.popen\b"
    r"|\bIO\.popen\b|\bsystem\s*\(|\bOpen3\.\w+|%x\(|\bshell_exec\b|\bpassthru\b|\bproc_open\b"
)
"""Calls that start a process with a command the program holds."""


@dataclass(frozen=True)
class Spelled:
    offset: int
    """Where the (first) constant starts."""
    text: str
    how: str
    meaning: str


def _text(data: bytes) -> str | None:
    if data[:1] == b"\x78" or data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompressobj(47).decompress(data, 64 * 1024)
        except zlib.error:
            return None
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    if len(text) < 4 or not all(ch.isprintable() or ch in "\n\t" for ch in text):
        return None
    return text


def _decoded(value: str, rot13: bool) -> tuple[str, str] | None:
    """(text, encoding) of one constant, when it decodes to printable ASCII."""
    core = value.rstrip("=")
    attempts: list[tuple[str, bytes]] = []
    try:
        if _BASE32.fullmatch(value) and len(core) % 8 in (0, 2, 4, 5, 7):
            attempts.append(("base32", base64.b32decode(core + "=" * (-len(core) % 8))))
        if _HEX.fullmatch(value) and not value.isdigit():
            attempts.append(("hex", bytes.fromhex(value)))
        if _BASE64.fullmatch(value) and len(core) % 4 != 1:
            padded = core.replace("-", "+").replace("_", "/") + "=" * (-len(core) % 4)
            attempts.append(("base64", base64.b64decode(padded, validate=True)))
    except (binascii.Error, ValueError):
        pass
    if len(value) >= _LONG:
        attempts.extend(_base85(value))
    for how, data in attempts:
        text = _text(data)
        if text is not None:
            return text, how
    if rot13 and any(ch.isalpha() for ch in value):
        return codecs.decode(value, "rot13"), "rot13"
    return None


def _base85(value: str) -> list[tuple[str, bytes]]:
    """A constant read as base85 (RFC 1924) and as Ascii85, where its letters allow."""
    attempts: list[tuple[str, bytes]] = []
    if _BASE85.fullmatch(value):
        with contextlib.suppress(ValueError):
            attempts.append(("base85", base64.b85decode(value)))
    if _ASCII85.fullmatch(value):
        with contextlib.suppress(ValueError):
            attempts.append(("ascii85", base64.a85decode(value, adobe=value.startswith("<~"))))
    return attempts


def spelled(text: str) -> Iterator[Spelled]:
    """The meaningful strings the encoded constants of ``text`` spell, alone or as the pieces of
    one list."""
    rot13 = "13" in text and _ROT13.search(text) is not None  # every match holds "13"
    run: list[tuple[int, str, str]] = []
    previous_end = -1
    for count, match in enumerate(_CONSTANT.finditer(text)):
        if count >= MAX_CONSTANTS:
            break
        value = match.group(1) or match.group(2)
        found = _decoded(value, rot13) if len(value) >= MIN_ENCODED else None
        listed = bool(run) and _LISTED.match(text, previous_end, match.start()) is not None
        if run and (found is None or not listed):
            yield from _meaningful(run)
            run = []
        if found is not None:
            run.append((match.start(), *found))
        previous_end = match.end()
    yield from _meaningful(run)


def _meaningful(run: list[tuple[int, str, str]]) -> Iterator[Spelled]:
    if not run:
        return
    pieces = [(offset, decoded, how) for offset, decoded, how in run]
    if len(pieces) > 1:
        joined = " ".join(decoded for _, decoded, _ in pieces)
        meaning = sensitive.meaningful(joined)
        if meaning is not None:
            yield Spelled(pieces[0][0], joined, f"{pieces[0][2]} constants joined", meaning)
            return
    for offset, decoded, how in pieces:
        meaning = sensitive.meaningful(decoded)
        if meaning is not None:
            yield Spelled(offset, decoded, f"{how} constant", meaning)


def analyse(text: str) -> list[Fact]:
    """What the encoded constants of ``text`` hide, and whether the program runs it.

    The program is searched for a process call only once a constant spells a command: the
    search (a Python alternation tried at every character) was most of this analysis's time,
    and almost no file spells anything."""
    found: list[Fact] = []
    runs: bool | None = None
    for item in spelled(text):
        detail = f"{item.how} decode to {item.meaning}: {item.text[:120]}"
        found.append(Fact(DECODED_STRING, item.offset, detail))
        if sensitive.is_command(item.text):
            if runs is None:
                runs = _EXECUTORS.search(text) is not None
            if runs:
                found.append(Fact(DECODED_EXEC, item.offset, f"run by the program: {detail}"))
    return found
