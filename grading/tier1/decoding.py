"""Find base64 and hex blobs and decode the ones that turn out to be text, within fixed budgets.

Encoding is the cheapest way to hide a payload from a pattern matcher, so the engine rescans
whatever decodes to readable text. Everything is bounded: the number of blobs per skill, the size
of one decoded blob, the total decoded volume and the nesting depth — a zip bomb or a megabyte of
base64 costs the scanner a fixed amount of work, not a proportional one. Bounds are not a hiding
place: text encoded twice is reported (``obfuscation.nested-encoding``), and so is text still
encoded once MAX_DEPTH layers are peeled (``obfuscation.decoding-limit``).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress

MAX_BLOBS_PER_SKILL = 64
MAX_BLOB_CHARS = 64 * 1024
MAX_DECODED_CHARS = 64 * 1024
MAX_TOTAL_DECODED_CHARS = 256 * 1024
MAX_DEPTH = 3
MIN_DECODED_CHARS = 12

_MIN_BLOB = 32
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}")
_HEX_ESCAPES = re.compile(r"(?:\\x[0-9a-fA-F]{2}){8,}")
_HEX = re.compile(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,}(?![0-9a-fA-F])")


@dataclass(frozen=True)
class Blob:
    start: int
    encoding: str
    decoded: str


class Budget:
    """Decoding allowance for one skill, shared by all of its files and nesting levels."""

    def __init__(self, blobs: int = MAX_BLOBS_PER_SKILL) -> None:
        self.blobs = blobs
        self.attempts = 4 * blobs
        self.chars = MAX_TOTAL_DECODED_CHARS

    def spend(self, decoded: str) -> bool:
        if self.blobs <= 0 or self.chars < len(decoded):
            return False
        self.blobs -= 1
        self.chars -= len(decoded)
        return True


def find_blobs(text: str, budget: Budget) -> Iterator[Blob]:
    """Decoded text blobs in ``text``, in order of appearance, while the budget lasts.

    A blob has no whitespace, so only runs of non-space characters of blob length are examined —
    far cheaper than running the blob patterns over every character of a large file.
    """
    candidates: list[tuple[int, str, str]] = []
    for offset, word in _long_words(text):
        for match in _BASE64.finditer(word):
            candidates.append((offset + match.start(), "base64", match.group()))
        for match in _HEX_ESCAPES.finditer(word):
            candidates.append((offset + match.start(), "hex", match.group().replace("\\x", "")))
        for match in _HEX.finditer(word):
            candidates.append((offset + match.start(), "hex", match.group()))
    for start, encoding, raw in candidates:
        if budget.blobs <= 0 or budget.attempts <= 0:
            return
        budget.attempts -= 1
        decoded = _decode(encoding, raw[:MAX_BLOB_CHARS])
        if decoded is not None and budget.spend(decoded):
            yield Blob(start, encoding, decoded)


def _long_words(text: str) -> Iterator[tuple[int, str]]:
    """(offset, word) of every whitespace-free run of at least _MIN_BLOB characters, in order.

    ``str.split`` cuts at exactly the characters ``\\s`` matches, and with the length test it
    runs in C, several times faster than a regex search, which tries every character of every
    shorter word. Each long word is the first run that long after the previous one, so ``find``
    from there locates it.
    """
    words = text.split()
    cursor = 0
    for word in compress(words, map(_MIN_BLOB.__le__, map(len, words))):
        cursor = text.find(word, cursor)
        yield cursor, word
        cursor += len(word)


def decodes_further(text: str) -> bool:
    """True when ``text`` holds yet another blob that decodes to text (checked outside the
    skill's budget, one blob at most): reaching MAX_DEPTH with more to decode is a finding."""
    return next(find_blobs(text, Budget(blobs=1)), None) is not None


def _decode(encoding: str, raw: str) -> str | None:
    try:
        if encoding == "hex":
            data = bytes.fromhex(raw[: len(raw) - len(raw) % 2])
        else:
            core = raw.rstrip("=")
            padded = core + "=" * (-len(core) % 4)
            altchars = b"-_" if ("-" in raw or "_" in raw) else None
            data = base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None
    if data[:2] == b"\x1f\x8b" or data[:1] == b"\x78":
        data = _inflate(data) or data
    return _as_text(data)


def _inflate(data: bytes) -> bytes | None:
    """gzip or zlib data, decompressed to at most MAX_DECODED_CHARS bytes."""
    wbits = 31 if data[:2] == b"\x1f\x8b" else 15
    try:
        return zlib.decompressobj(wbits).decompress(data, MAX_DECODED_CHARS)
    except zlib.error:
        return None


def _as_text(data: bytes) -> str | None:
    truncated = len(data) > MAX_DECODED_CHARS
    try:
        text = data[:MAX_DECODED_CHARS].decode("utf-8", errors="ignore" if truncated else "strict")
    except UnicodeDecodeError:
        return None
    if len(text) < MIN_DECODED_CHARS:
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    if printable < 0.95 * len(text):
        return None
    if not any(ch.isalpha() for ch in text[:256]):
        return None
    return text
