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
    """Decoded text blobs in ``text``, in order of appearance, while the budget lasts."""
    for start, encoding, raw in blob_candidates(text):
        if budget.blobs <= 0 or budget.attempts <= 0:
            return
        budget.attempts -= 1
        decoded = _decode(encoding, raw[:MAX_BLOB_CHARS])
        if decoded is not None and budget.spend(decoded):
            yield Blob(start, encoding, decoded)


def blob_candidates(text: str) -> list[tuple[int, str, str]]:
    """(offset, encoding, raw) of every blob-shaped string, word by word (a word being a
    whitespace-free run): its base64 blobs, then its hex escapes, then its plain hex.

    Every blob consists of characters from ``_BLOB_CHARACTERS`` only and is at least _MIN_BLOB
    long, so only the runs of those characters that long are examined: found by a byte search
    over a copy of the text marked run/not-run, instead of splitting the text into all its
    words. Blob patterns look around only for characters of their own runs, so matching a run
    on its own finds what matching its word does.
    """
    candidates: list[tuple[int, str, str]] = []
    for runs in _runs_by_word(text):
        pieces = [(start, text[start:end]) for start, end in runs]
        for offset, piece in pieces:
            for match in _BASE64.finditer(piece):
                candidates.append((offset + match.start(), "base64", match.group()))
        for offset, piece in pieces:
            for match in _HEX_ESCAPES.finditer(piece):
                raw = match.group().replace("\\x", "")
                candidates.append((offset + match.start(), "hex", raw))
        for offset, piece in pieces:
            for match in _HEX.finditer(piece):
                candidates.append((offset + match.start(), "hex", match.group()))
    return candidates


_BLOB_CHARACTERS = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=\\-"
)
"""Every character any blob pattern consumes (base64 with padding, hex escapes, hex)."""
_RUN_MARKS = bytes(0x61 if byte in _BLOB_CHARACTERS else 0x20 for byte in range(256))
_LONG_RUN = b"a" * _MIN_BLOB


def _runs_by_word(text: str) -> list[list[tuple[int, int]]]:
    """The (start, end) runs of at least _MIN_BLOB blob characters, grouped by the
    whitespace-free word holding them, in order.

    In the marked copy, blob characters are "a" and all others (non-ASCII ones included, which
    the encoding turns into "?") a space: each long run is one ``bytes.find`` away.
    """
    marked = text.encode("ascii", "replace").translate(_RUN_MARKS)
    words: list[list[tuple[int, int]]] = []
    start = marked.find(_LONG_RUN)
    while start >= 0:
        end = marked.find(b" ", start)
        end = len(marked) if end < 0 else end
        if words and not any(map(str.isspace, text[words[-1][-1][1] : start])):
            words[-1].append((start, end))  # same word: only non-blob characters between
        else:
            words.append([(start, end)])
        start = marked.find(_LONG_RUN, end)
    return words


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
