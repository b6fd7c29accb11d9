"""Normalisation before matching, so look-alike and invisible characters cannot dodge the rules.

Steps for non-ASCII text (ASCII text is returned untouched — the common, fast case):

1. Unicode *tag* characters (U+E0000–E007F) mirror ASCII invisibly; runs of them are decoded to the
   ASCII they spell and handed back so the engine can rescan the hidden message.
2. Zero-width characters, bidi controls, tag characters and variation selectors are removed, so
   ``ig\u200bnore`` matches ``ignore``. (Rules flag their presence on the original text.)
3. NFKC folds compatibility forms — fullwidth ``ｉｇｎｏｒｅ``, mathematical bold letters,
   ligatures — into their plain equivalents.
4. Confusables (Unicode TR#39 style): a word whose non-Latin letters all imitate Latin ones
   (``сurl`` with a Cyrillic ``с``, ``ехес`` spelled in Cyrillic) is mapped to its Latin
   skeleton (``data/confusables.txt``), so a look-alike command is the command. Words of a real
   other-script text keep their letters (they contain letters with no Latin look-alike).

None of these steps creates or removes a newline, so line numbers are identical before and after;
columns on a changed line are mapped back lazily, only for lines that have a finding.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from pathlib import Path

_TAG_START, _TAG_END = 0xE0000, 0xE007F
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f"
    "\u3164\ufeff\uffa0"
)
_REMOVE: dict[int, None] = dict.fromkeys(map(ord, _INVISIBLE))
_REMOVE.update(dict.fromkeys(range(_TAG_START, _TAG_END + 1)))
_REMOVE.update(dict.fromkeys(range(0xFE00, 0xFE10)))
_REMOVE.update(dict.fromkeys(range(0xE0100, 0xE01F0)))

_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_REMOVABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]+"
)
"""The characters of ``_REMOVE`` as ranges: a compact class keeps the search fast."""
_CONFUSABLES_FILE = Path(__file__).with_name("data") / "confusables.txt"
MAX_TAG_PAYLOAD = 16 * 1024
"""Characters of decoded tag text kept per file; a longer hidden message is already damning."""


@dataclass(frozen=True)
class HiddenRun:
    """A run of tag characters: where it starts in the original text and the ASCII it spells."""

    offset: int
    text: str


@dataclass(frozen=True)
class Normalised:
    text: str
    changed: bool
    hidden: tuple[HiddenRun, ...]
    residues: tuple[tuple[int, int, str], ...] = ()
    """(start, end, non-ASCII characters) of the original text's pieces holding some (see
    ``non_ascii_pieces``): where the raw-character rules look, without a second pass."""


def normalise(text: str, *, fold: bool = True) -> Normalised:
    """Normalise ``text``; with ``fold=False`` only the hidden tag runs are extracted (bulk data
    files, which only the raw-character rules read)."""
    if text.isascii():
        return Normalised(text, False, ())
    hidden: list[HiddenRun] = []
    pieces: list[str] = []
    residues: list[tuple[int, int, str]] = []
    cursor = 0
    for start, end in non_ascii_pieces(text):
        piece = text[start:end]
        residue = non_ascii_characters(piece)
        residues.append((start, end, residue))
        removable = _REMOVABLE.search(residue) is not None
        if removable and _TAG_RUN.search(residue):  # tag characters are removable ones too
            hidden.extend(
                HiddenRun(start + match.start(), _decode_tags(match.group())[:MAX_TAG_PAYLOAD])
                for match in _TAG_RUN.finditer(piece)
            )
        if fold:
            pieces.append(text[cursor:start])
            visible_piece = _REMOVABLE.sub("", piece) if removable else piece
            folded = unicodedata.normalize("NFKC", visible_piece)  # the piece itself if NFKC
            pieces.append(skeleton(folded, residue if folded is piece else None))
            cursor = end
    if not fold:
        return Normalised(text, False, tuple(hidden), tuple(residues))
    pieces.append(text[cursor:])
    cleaned = "".join(pieces)
    return Normalised(cleaned, cleaned != text, tuple(hidden), tuple(residues))


@lru_cache(maxsize=1)
def _confusables() -> dict[int, str]:
    table: dict[int, str] = {}
    for line in _CONFUSABLES_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split()[:2]
            if source.isascii():
                raise ValueError(f"confusables.txt: {source!r} is ASCII, not a look-alike")
            table[ord(source)] = target
    return table


@lru_cache(maxsize=1)
def _confusable_character() -> re.Pattern[str]:
    return re.compile("[" + "".join(re.escape(chr(code)) for code in _confusables()) + "]")


_LETTER_RUN = re.compile(r"[^\W\d_]{2,}")


def skeleton(text: str, residue: str | None = None) -> str:
    """``text`` with every word made of Latin letters and Latin look-alikes spelled in Latin.
    ``residue``: ``non_ascii_characters(text)``, when the caller has it."""
    residue = non_ascii_characters(text) if residue is None else residue
    if _confusable_character().search(residue) is None:
        return text  # the common case: no look-alike letter at all
    table = _confusables()
    folded: dict[str, str] = {}  # prose repeats its words: each is judged once

    def fold(match: re.Match[str]) -> str:
        word = match.group()
        found = folded.get(word)
        if found is None:
            kept = word.isascii() or not all(ch.isascii() or ord(ch) in table for ch in word)
            found = folded[word] = word if kept else word.translate(table)
        return found

    return _LETTER_RUN.sub(fold, text)


_ASCII_RUN = re.compile("[\x00-\x7f]+")


def non_ascii_characters(text: str) -> str:
    """The non-ASCII characters of ``text``, in order.

    The characters normalisation and the raw-character rules look for are all non-ASCII, and a
    piece of a document holds a handful of them among thousands of ASCII ones: searching this
    residue is an order of magnitude cheaper than searching the piece for a large character
    class, and finds something exactly when the piece holds such a character.
    """
    return _ASCII_RUN.sub("", text)


def non_ascii_pieces(text: str, size: int = 4096) -> list[tuple[int, int]]:
    """Newline-aligned spans of about ``size`` characters that contain non-ASCII characters.

    Skipping ASCII spans makes a megabyte with a handful of typographic dashes cheap to process;
    aligning on newlines keeps combining sequences and line numbers intact.
    """
    spans: list[tuple[int, int]] = []
    start, length = 0, len(text)
    while start < length:
        end = text.find("\n", start + size)
        end = length if end < 0 else end + 1
        if not text[start:end].isascii():
            spans.append((start, end))
        start = end
    return spans


def _decode_tags(run: str) -> str:
    return "".join(chr(ord(ch) - _TAG_START) for ch in run if 0x20 <= ord(ch) - _TAG_START < 0x7F)


@lru_cache(maxsize=4096)
def _normalised_width(ch: str) -> int:
    if ord(ch) in _REMOVE:
        return 0
    return len(unicodedata.normalize("NFKC", ch))


def original_column(original_line: str, normalised_column: int) -> int:
    """Map a 1-based column on a normalised line back to the original line: the first original
    character whose normalised text reaches that column."""
    if original_line.isascii():
        return normalised_column
    return bisect.bisect_left(_normalised_ends(original_line), normalised_column) + 1


@lru_cache(maxsize=4)
def _normalised_ends(original_line: str) -> array[int]:
    """Where each character of the line ends once normalised, kept for the last few lines: one
    long line can hold thousands of findings, and walking it for each was quadratic (50 KB of
    one line of Chinese took seconds)."""
    widths = {ch: _normalised_width(ch) for ch in set(original_line)}
    return array("q", accumulate(map(widths.__getitem__, original_line)))  # in C


def visible(snippet: str) -> str:
    """The snippet with invisible characters spelled out, so a reviewer can see them."""
    if snippet.isascii() or _REMOVABLE.search(snippet) is None:
        return snippet  # nothing to spell out: no walk of the snippet character by character
    return "".join(
        f"<U+{ord(ch):04X}>" if ord(ch) in _REMOVE and ch not in "\u200d\ufe0f" else ch
        for ch in snippet
    )
