"""Where in a text a rule can possibly match — so most rules never run at all.

Scanning a megabyte with a hundred regular expressions costs seconds; Tier 1 has milliseconds.
Every pattern rule therefore names *keywords*, one of which occurs (case-insensitively) in every
match. Only the rules with a keyword in the text are visited (``KeywordRules``), a keyword counts
where its words are tokens of the text, and a rule runs only on windows around its keyword
occurrences (a pattern's match is bounded, so it lies inside the window of the keyword it
contains). Within those windows, each pattern runs only where one of its required literals
occurs, and is tried only where one of its leading literals starts (``literals``).

Keywords and literals are found together: one Aho–Corasick pass over the lower-case text
(``StringSearch``) yields every occurrence of every one of them, instead of one ``str.find``
sweep of the whole text per keyword.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import chain, compress, count, groupby, islice
from operator import itemgetter, sub
from typing import Generic, Protocol, TypeVar

from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, Implementation

from grading.tier1.literals import CASE_FOLD_EXCEPTIONS, Literals

_TOKEN = re.compile(r"[a-z0-9]+")
_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_SEPARATORS = bytes(byte if chr(byte) in _WORD_CHARACTERS else 0x20 for byte in range(256))
MERGE_GAP = 200
"""Windows closer than this are matched as one: scanning a short gap costs less than another
call into the regex engine, and cannot add a match (every match contains a keyword, so it lies
in some keyword's window anyway)."""


class Keyed(Protocol):
    """What the index needs to know about a rule (see ``catalogue.Rule``); read only."""

    @property
    def keywords(self) -> tuple[str, ...]: ...

    @property
    def keyword_set(self) -> frozenset[str]: ...

    @property
    def substring_keywords(self) -> bool: ...

    @property
    def window(self) -> tuple[int, int]: ...


class StringSearch:
    """An Aho–Corasick automaton over a fixed set of lower-case strings (the catalogue's keywords
    and pattern literals), built once per catalogue.

    When the strings are plain ASCII without "?" (the catalogue's are), a text is searched as
    ASCII bytes with every other character replaced by "?": one byte per character, so offsets
    stay character offsets, and no string can match across a replaced character, so the matches
    are the same — without the UTF-8 conversion and offset mapping a ``str`` search costs.
    """

    def __init__(self, strings: Iterable[str]) -> None:
        self._strings = tuple(sorted({string for string in strings if string}))
        self.known = frozenset(self._strings)
        as_bytes = all(string.isascii() and "?" not in string for string in self._strings)
        self._automaton: AhoCorasick | BytesAhoCorasick | None = None
        if self._strings and as_bytes:
            encoded = [string.encode("ascii") for string in self._strings]
            self._automaton = BytesAhoCorasick(encoded, implementation=Implementation.DFA)
        elif self._strings:
            self._automaton = AhoCorasick(self._strings, implementation=Implementation.DFA)

    def positions(self, lowered: str) -> dict[str, list[int]]:
        """Start offsets (ascending) of every occurrence, overlapping ones included, of each
        string found in ``lowered``: what ``str.find`` from each previous hit + 1 would give."""
        automaton = self._automaton
        if isinstance(automaton, BytesAhoCorasick):
            matches = automaton.find_matches_as_indexes(lowered.encode("ascii", "replace"), True)
        else:
            matches = automaton.find_matches_as_indexes(lowered, True) if automaton else []
        # Grouped by string in C: a stable sort on the string's index keeps each string's
        # starts ascending, as the search reports them.
        by_string = groupby(sorted(matches, key=itemgetter(0)), key=itemgetter(0))
        strings = self._strings
        return {strings[index]: list(map(itemgetter(1), hits)) for index, hits in by_string}


_Rule = TypeVar("_Rule", bound=Keyed)


@lru_cache(maxsize=4096)
def key_tokens(keyword: str) -> frozenset[str]:
    """Every word of a keyword: a text lacking any of them cannot contain it."""
    return frozenset(_TOKEN.findall(keyword.lower()))


def key_token(keyword: str) -> str:
    """The longest word inside a keyword: what must appear among the text's tokens."""
    return max(_TOKEN.findall(keyword.lower()), key=len, default="")


class KeywordRules(Generic[_Rule]):
    """Rules in catalogue order and, for each keyword, the rules naming it (built once per
    catalogue and set of file kinds).

    The strings the search finds in a text name the rules whose keywords occur there. Rules
    without keywords, or with a keyword the search does not look for (``known``), are always
    candidates.
    """

    def __init__(self, rules: Iterable[_Rule], known: frozenset[str]) -> None:
        self.rules = tuple(rules)
        self.by_keyword: dict[str, list[int]] = {}
        always: list[int] = []
        for position, rule in enumerate(self.rules):
            if not rule.keyword_set or not rule.keyword_set <= known:
                always.append(position)
            for keyword in rule.keyword_set:
                self.by_keyword.setdefault(keyword, []).append(position)
        self.always = frozenset(always)


class TextIndex:
    """Lazily computed lower-case copy, tokens, keyword positions and pattern literals (see
    ``literals``) of one text."""

    def __init__(
        self, text: str, *, tokenise: bool = True, search: StringSearch | None = None
    ) -> None:
        self.text = text
        lowered = text.lower()
        self.lowered = lowered if len(lowered) == len(text) else None
        self._tokenise = tokenise
        self._spaced: bytes | None = None
        self._counted: dict[str, bool] = {}
        self._search = search
        self._found: dict[str, list[int]] | None = None
        self._folds_plainly = lowered.isascii() or not any(
            c in lowered for c in CASE_FOLD_EXCEPTIONS
        )
        self._positions: dict[str, list[int]] = {}
        self._windows: dict[int, list[tuple[int, int]]] = {}
        self._offsets: dict[Literals, list[int]] = {}
        self._presence: dict[Literals, set[str] | None] = {}

    def plausible(self, selection: KeywordRules[_Rule]) -> list[_Rule]:
        """The rules of ``selection`` that may have windows here, in order: those with a keyword
        the search found in the text (whose windows then check its words, see ``windows``) and
        those without keywords. Read from the search's pass, which every rule with a keyword
        needs anyway: one look-up per string found rather than a visit to every rule."""
        found = self._occurrences()
        if found is None:
            return list(selection.rules)
        picked = set(selection.always)
        for keyword in found.keys() & selection.by_keyword.keys():
            picked.update(selection.by_keyword[keyword])
        return [selection.rules[position] for position in sorted(picked)]

    def has_word(self, word: str) -> bool:
        """Whether ``word`` (ASCII letters and digits) is one of the text's tokens: the maximal
        runs of [a-z0-9] of the lower-case text (any other character, non-ASCII ones too,
        separates them). A word the search looks for is one when an occurrence stands alone;
        any other is looked for with spaces around it in a copy of the text where every other
        character is a space: one search in C, no token set built."""
        if self._occurrences() is not None and word in self._known():
            return self._stands_alone(word)
        if self._spaced is None:
            assert self.lowered is not None
            words = self.lowered.encode("ascii", "replace").translate(_SEPARATORS)
            self._spaced = b" " + words + b" "
        return b" " + word.encode("ascii") + b" " in self._spaced

    def _counts(self, keyword: str) -> bool:
        """Whether every word of ``keyword`` is a token of the text (see ``windows``).

        Most keywords the search found stand alone somewhere, not inside a longer word at
        either end: their words are then tokens. Only the others are looked up word by word.
        """
        counts = self._counted.get(keyword)
        if counts is None:
            words = key_tokens(keyword)
            # A keyword that is one word is a token exactly when it stands alone.
            counts = self._stands_alone(keyword) or (
                words != {keyword} and all(map(self.has_word, words))
            )
            self._counted[keyword] = counts
        return counts

    def _stands_alone(self, keyword: str) -> bool:
        """Whether an occurrence of ``keyword`` continues no token of the text: at each end
        where the keyword has a letter or digit, the text has none next to it."""
        assert self.lowered is not None
        lowered, size, length = self.lowered, len(self.lowered), len(keyword)
        open_start, open_end = keyword[:1] in _WORD_CHARACTERS, keyword[-1:] in _WORD_CHARACTERS
        for start in self._find_all(keyword):
            end = start + length
            if (not open_start or start == 0 or lowered[start - 1] not in _WORD_CHARACTERS) and (
                not open_end or end == size or lowered[end] not in _WORD_CHARACTERS
            ):
                return True
        return False

    def candidates(
        self, literals: Literals | None, windows: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """The ``windows`` a pattern needing one of ``literals`` can match in: those holding an
        occurrence of one. All of them when nothing is known: no literals, literals the search
        does not know, or a text whose lower-case copy does not mirror its case-insensitive
        matches (see ``literals.CASE_FOLD_EXCEPTIONS``)."""
        present = self._present(literals)
        if present is None:
            return windows
        assert self.lowered is not None
        return _holding(self.lowered, windows, present)

    def offsets(self, strings: Literals | None) -> list[int] | None:
        """Where one of ``strings`` starts in the lower-case text, ascending (once per set);
        None when that is not known, as for ``candidates``."""
        present = self._present(strings)
        if present is None:
            return None
        assert strings is not None and self._found is not None
        cached = self._offsets.get(strings)
        if cached is None:
            found = self._found
            cached = sorted(set(chain.from_iterable(found[string] for string in present)))
            self._offsets[strings] = cached
        return cached

    def lacks(self, literals: Literals | None) -> bool:
        """Whether the text provably holds none of ``literals``: no pattern needing one of them
        can match anywhere in it (see ``candidates``)."""
        return self._present(literals) == set()

    def _present(self, literals: Literals | None) -> set[str] | None:
        """Those of ``literals`` the text holds; None when that is not known (see
        ``candidates``). Kept per set: each pattern asks for its own in every view."""
        if literals is None:
            return None
        if literals in self._presence:
            return self._presence[literals]
        found = self._occurrences()
        present: set[str] | None = None
        if found is not None and self._folds_plainly and literals <= self._known():
            present = found.keys() & literals
        self._presence[literals] = present
        return present

    def mentioning(
        self, windows: list[tuple[int, int]], needles: tuple[str, ...]
    ) -> list[tuple[int, int]]:
        """The ``windows`` of the lower-case text holding one of ``needles`` (a rule's
        ``context``)."""
        assert self.lowered is not None
        return _holding(self.lowered, windows, needles)

    def _known(self) -> frozenset[str]:
        return self._search.known if self._search is not None else frozenset()

    def _occurrences(self) -> dict[str, list[int]] | None:
        """Every known keyword's and literal's positions, from one pass (None: no search)."""
        if self._found is None and self._search is not None and self.lowered is not None:
            self._found = self._search.positions(self.lowered)
        return self._found

    def windows(self, rule: Keyed) -> list[tuple[int, int]]:
        """Disjoint (start, end) spans that contain every possible match; [] if none.

        A keyword is only searched for when all its words occur among the text's tokens (unless
        the rule's keywords are prefixes of longer words, like the "AKIA" of an AWS key).
        Computed once per rule: the views of one file share this index.
        """
        cached = self._windows.get(id(rule))
        if cached is None:
            cached = self._windows[id(rule)] = self._compute_windows(rule)
        return cached

    def _compute_windows(self, rule: Keyed) -> list[tuple[int, int]]:
        if self.lowered is None:
            return [(0, len(self.text))]
        starts = self._starts(rule)
        if not starts:
            return []
        before, after = rule.window
        size = len(self.text)
        if len(starts) == 1:  # the commonest case, without the machinery below
            return [(max(0, starts[0] - before), min(size, starts[0] + after))]
        # Keyword windows (position - before, position + after) overlap or lie within MERGE_GAP
        # of each other exactly when their keywords are at most `reach` apart: a new window
        # starts after each longer gap.
        reach = before + after + MERGE_GAP
        gaps = map(sub, islice(starts, 1, None), starts)
        cuts = list(compress(count(1), map(reach.__lt__, gaps)))  # C-level: no bytecode per hit
        firsts, lasts = [0, *cuts], [cut - 1 for cut in cuts] + [len(starts) - 1]
        return [
            (max(0, starts[first] - before), min(size, starts[last] + after))
            for first, last in zip(firsts, lasts, strict=True)
        ]

    def _starts(self, rule: Keyed) -> list[int]:
        """The offsets, ascending, of the rule's keywords that count: each occurrence of a
        keyword whose words all occur among the text's tokens (of any occurrence when the text
        is not tokenised or the rule's keywords are substrings).

        A rule has a dozen keywords and a text holds few of them: the ones the search saw are
        picked by one intersection in C (it looks each of the rule's keywords up in the search's
        result), instead of a loop over them in Python.
        """
        by_words = self._tokenise and not rule.substring_keywords
        found, known = self._occurrences() or {}, self._known()
        present = found.keys() & rule.keyword_set
        unsearched = rule.keyword_set - known  # not the search's: looked for one by one
        lists = [
            self._find_all(keyword)
            for keyword in (present | unsearched if unsearched else present)
            if not by_words or self._counts(keyword)
        ]
        if len(lists) == 1:
            return lists[0]
        return sorted(chain.from_iterable(lists))

    def _find_all(self, keyword: str) -> list[int]:
        cached = self._positions.get(keyword)
        if cached is not None:
            return cached
        found_all = self._occurrences()
        if found_all is not None and keyword in self._known():
            return found_all.get(keyword, [])
        assert self.lowered is not None
        found: list[int] = []
        index = self.lowered.find(keyword)
        while index >= 0:
            found.append(index)
            index = self.lowered.find(keyword, index + 1)
        self._positions[keyword] = found
        return found


def _holding(
    lowered: str, windows: list[tuple[int, int]], needles: Iterable[str]
) -> list[tuple[int, int]]:
    """The windows holding one of ``needles`` whole, in order."""
    wanted = list(needles)
    if not wanted:
        return []
    kept: list[tuple[int, int]] = []
    for window in windows:
        start, end = window
        for needle in wanted:
            if lowered.find(needle, start, end) >= 0:
                kept.append(window)
                break
    return kept
