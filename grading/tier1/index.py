"""Where in a text a rule can possibly match — so most rules never run at all.

Scanning a megabyte with a hundred regular expressions costs seconds; Tier 1 has milliseconds.
Every pattern rule therefore names *keywords*, one of which occurs (case-insensitively) in every
match. A text is tokenised once; a rule whose keywords' tokens are all absent is skipped, and a
rule that may match runs only on windows around its keyword occurrences (a pattern's match is
bounded, so it lies inside the window of the keyword it contains).
"""

from __future__ import annotations

import re
from typing import Protocol

_TOKEN = re.compile(r"[a-z0-9]+")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_SEPARATORS = bytes(byte if byte in _WORD_BYTES else 0x20 for byte in range(256))
MERGE_GAP = 200
"""Windows closer than this are matched as one: scanning a short gap costs less than another
call into the regex engine, and cannot add a match (every match contains a keyword, so it lies
in some keyword's window anyway)."""


class Keyed(Protocol):
    """What the index needs to know about a rule (see ``catalogue.Rule``); read only."""

    @property
    def keywords(self) -> tuple[str, ...]: ...

    @property
    def key_of(self) -> tuple[str, ...]: ...

    @property
    def keys(self) -> frozenset[str]: ...

    @property
    def key_sets(self) -> tuple[frozenset[str], ...]: ...

    @property
    def substring_keywords(self) -> bool: ...

    @property
    def window(self) -> tuple[int, int]: ...


def key_tokens(keyword: str) -> frozenset[str]:
    """Every word of a keyword: a text lacking any of them cannot contain it."""
    return frozenset(_TOKEN.findall(keyword.lower()))


def key_token(keyword: str) -> str:
    """The longest word inside a keyword: what must appear among the text's tokens."""
    return max(_TOKEN.findall(keyword.lower()), key=len, default="")


class TextIndex:
    """Lazily computed lower-case copy, token set and keyword positions of one text."""

    def __init__(self, text: str, *, tokenise: bool = True) -> None:
        self.text = text
        lowered = text.lower()
        self.lowered = lowered if len(lowered) == len(text) else None
        self._tokenise = tokenise
        self._tokens: frozenset[str] | None = None
        self._positions: dict[str, list[int]] = {}
        self._windows: dict[int, list[tuple[int, int]]] = {}

    def may_contain(self, rule: Keyed) -> bool:
        if self.lowered is None:
            return True
        if not self._tokenise or rule.substring_keywords:
            return any(keyword in self.lowered for keyword in rule.keywords)
        return not rule.keys.isdisjoint(self.tokens())

    def tokens(self) -> frozenset[str]:
        if self._tokens is None:
            assert self.lowered is not None
            # Same tokens as _TOKEN.findall (non-ASCII characters separate words), twice as fast:
            # everything but [a-z0-9] becomes a space, then one split.
            ascii_only = self.lowered.encode("ascii", "replace").translate(_SEPARATORS)
            self._tokens = frozenset(ascii_only.decode("ascii").split())
        return self._tokens

    def windows(self, rule: Keyed) -> list[tuple[int, int]]:
        """Disjoint (start, end) spans that contain every possible match; [] if none.

        A keyword is only searched for when all its words occur among the text's tokens (unless
        the rule's keywords are prefixes of longer words, like the "AKIA" of an AWS key).
        Computed once per rule: the views of one file share this index.
        """
        cached = self._windows.get(id(rule))
        if cached is None:
            cached = self._windows[id(rule)] = (
                self._compute_windows(rule) if self.may_contain(rule) else []
            )
        return cached

    def _compute_windows(self, rule: Keyed) -> list[tuple[int, int]]:
        if self.lowered is None:
            return [(0, len(self.text))]
        tokens = self.tokens() if self._tokenise and not rule.substring_keywords else None
        starts: list[int] = []
        for keyword, key_set in zip(rule.keywords, rule.key_sets, strict=True):
            if tokens is None or key_set <= tokens:
                starts.extend(self._find_all(keyword))
        if not starts:
            return []
        starts.sort()
        spans: list[tuple[int, int]] = []
        size = len(self.text)
        before, after = rule.window
        for position in starts:
            low, high = max(0, position - before), min(size, position + after)
            if spans and low <= spans[-1][1] + MERGE_GAP:
                spans[-1] = (spans[-1][0], max(spans[-1][1], high))
            else:
                spans.append((low, high))
        return spans

    def _find_all(self, keyword: str) -> list[int]:
        cached = self._positions.get(keyword)
        if cached is not None:
            return cached
        assert self.lowered is not None
        found: list[int] = []
        index = self.lowered.find(keyword)
        while index >= 0:
            found.append(index)
            index = self.lowered.find(keyword, index + 1)
        self._positions[keyword] = found
        return found
