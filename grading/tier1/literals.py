"""Literals a regular expression cannot match without — so a pattern runs only where one occurs.

Keyword windows (``index``) bound where a rule *may* match; most windows still hold no match,
and running a hundred patterns over them is most of Tier 1's time on large files. Every pattern
of the catalogue is therefore read once, when the catalogue compiles, for a set of strings of
which every match contains at least one (``required_literals``). One Aho–Corasick pass over a
text (``index.TextIndex.occurrences``) finds them all, and a pattern runs only on windows that
hold one of its literals.

The filter is exact — it never drops a window the pattern could match in:

* literals are read from Python's own parse of the pattern (its flags, ``(?x)`` included), only
  from what a match consumes (never from lookarounds), and optional or alternative parts
  contribute either all their alternatives or nothing;
* literals are lower-case ASCII and looked for in the lower-cased text. A character matching an
  ASCII letter, case-sensitively or not, lower-cases to that letter — except the few in
  ``CASE_FOLD_EXCEPTIONS``, which ``index`` treats as "no filter at all";
* a pattern without such a set (``None``) always runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from re import _parser
from typing import Any

MIN_LENGTH = 3
"""Shorter literals would occur almost everywhere and only swell the automaton's output."""
MAX_ALTERNATIVES = 32
"""Bound on the strings a set may hold (alternations multiply across a sequence)."""
MAX_CLASS = 8
"""A character class of at most this many characters (``[sS]``, ``[-_]``) counts as literal."""
MAX_OPTIONAL_REPEAT = 3
"""``x?``, ``(?:ab){1,2}``: repetitions this short of a literal still spell literal strings."""

CASE_FOLD_EXCEPTIONS = "\u0130\u0131\u017f"
"""Characters that a case-insensitive ASCII letter matches but that do not lower-case to it
(dotted capital I, dotless i, long s). A text containing one is matched without the filter."""

Literals = frozenset[str]


def required_literals(pattern: re.Pattern[str]) -> Literals | None:
    """Lower-case ASCII strings (each at least MIN_LENGTH long) of which every match of
    ``pattern`` contains one; None when no such set can be proven."""
    _, required = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    return required


_Info = tuple[Literals | None, Literals | None]
"""(exact, required) for a piece of a pattern: every string it can consume (if few and
literal), and a set of which every string it consumes contains one."""


def _sequence(items: Iterable[tuple[Any, Any]]) -> _Info:
    """Concatenation: adjacent exact pieces multiply into longer literals; the best literal set
    found anywhere in the sequence is its requirement."""
    candidates: list[Literals] = []
    run: Literals | None = frozenset({""})
    broken = False
    for op, argument in items:
        exact, required = _item(str(op), argument)
        if exact is not None:
            joined = exact if run is None else _product(run, exact)
            if joined is None:  # too many strings: keep what we had, start afresh
                candidates.append(run or exact)
                broken, joined = True, exact
            run = joined
            continue
        broken = True
        if run is not None:
            candidates.append(run)
        if required is not None:
            candidates.append(required)
        run = None
    if run is not None:
        candidates.append(run)
    return (None if broken else run), _best(candidates)


def _item(op: str, argument: Any) -> _Info:
    if op == "LITERAL":
        char = chr(argument)
        return (frozenset({char.lower()}) if char.isascii() else None), None
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return frozenset({""}), None  # consumes nothing: the pieces around it stay adjacent
    if op == "IN":
        return _char_class(argument), None
    if op == "SUBPATTERN":
        return _sequence(argument[3])
    if op == "ATOMIC_GROUP":
        return _sequence(argument)
    if op == "BRANCH":
        return _branch(argument[1])
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, body = argument
        exact, required = _sequence(body)
        return _repeat(exact, low, high), (required if low >= 1 else None)
    return None, None  # any character, categories, back-references, conditionals


def _char_class(members: list[tuple[Any, Any]]) -> Literals | None:
    chars: set[str] = set()
    for op, argument in members:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(argument))
        elif name == "RANGE" and argument[1] - argument[0] < MAX_CLASS:
            chars.update(chr(code) for code in range(argument[0], argument[1] + 1))
        else:
            return None  # negation, categories, wide ranges
    if len(chars) > MAX_CLASS or not all(char.isascii() for char in chars):
        return None
    return frozenset(char.lower() for char in chars)


def _branch(alternatives: list[Any]) -> _Info:
    """Alternation: literal if every alternative is; required only if every alternative has a
    requirement (their union)."""
    infos = [_sequence(alternative) for alternative in alternatives]
    return _union([exact for exact, _ in infos]), _union([required for _, required in infos])


def _union(sets: list[Literals | None]) -> Literals | None:
    union: set[str] = set()
    for strings in sets:
        if strings is None:
            return None
        union |= strings
    return frozenset(union) if len(union) <= MAX_ALTERNATIVES else None


def _repeat(body: Literals | None, low: int, high: int) -> Literals | None:
    if body is None or high > MAX_OPTIONAL_REPEAT:
        return None
    spelled: set[str] = set()
    power: Literals | None = frozenset({""})
    for count in range(high + 1):
        if power is None:
            return None
        if count >= low:
            spelled.update(power)
        power = _product(power, body)
    return frozenset(spelled) if len(spelled) <= MAX_ALTERNATIVES else None


def _product(left: Literals, right: Literals) -> Literals | None:
    """Every concatenation of a string of ``left`` with one of ``right``; None if too many."""
    if len(left) * len(right) > MAX_ALTERNATIVES:
        return None
    return frozenset(a + b for a in left for b in right)


def _best(candidates: list[Literals]) -> Literals | None:
    """The most selective set: the longest shortest string, then the fewest strings."""
    usable = [c for c in candidates if c and min(map(len, c)) >= MIN_LENGTH]
    if not usable:
        return None
    return max(usable, key=lambda c: (min(map(len, c)), -len(c)))


def gated(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` behind a look-ahead for the characters a match can start with.

    Python's regex search tries every position; for a case-insensitive alternation of words that
    means entering every branch at every character. The gate — one character-class test —
    rejects almost all positions first. It is case-insensitive whatever the pattern (a superset
    of the characters that can start a match), so the gated pattern matches exactly the same.

    Where a match can only start a word (``\\b``, ``^`` or a look-behind excluding ``\\w`` before
    a word character), the gate also asserts ``\\b``: inside a word the gate then fails at once
    instead of letting the alternation try its branches at every letter.
    Returned unchanged when a match could start with any character or be empty.
    """
    start = _leading(_parser.parse(pattern.pattern, pattern.flags), False)
    if start is None or start.nullable:
        return pattern
    body = _GLOBAL_FLAGS.sub("", pattern.pattern, count=1)  # they stay in pattern.flags
    end = "\n)" if pattern.flags & re.VERBOSE else ")"  # a trailing (?x) comment ends at "\n"
    gates = [f"(?=(?i:[{_class(start.word_start)}]))\\b"] if start.word_start else []
    gates += [f"(?=(?i:[{_class(start.anywhere)}]))"] if start.anywhere else []
    gate = gates[0] if len(gates) == 1 else f"(?:{'|'.join(gates)})"
    return re.compile(f"{gate}(?:{body}{end}", pattern.flags)


_GLOBAL_FLAGS = re.compile(r"\A\(\?[aiLmsux]+\)")
_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_LOCAL_WORD_FLAGS = re.ASCII | re.UNICODE | re.LOCALE
"""Inline flags that change what ``\\w`` and ``\\b`` mean: a group setting one is not analysed."""


def _class(chars: set[str]) -> str:
    return "".join(re.escape(char) for char in sorted(chars))


@dataclass
class _Start:
    """The characters a match of a piece of pattern can start with: ``word_start`` those only
    where no word character precedes (so ``\\b`` holds before them), ``anywhere`` the others;
    ``nullable`` when the piece can match the empty string."""

    word_start: set[str] = field(default_factory=set)
    anywhere: set[str] = field(default_factory=set)
    nullable: bool = True

    def add(self, chars: Iterable[str], word_start: bool) -> None:
        for char in chars:
            if word_start and char in _WORD_CHARACTERS:
                self.word_start.add(char)
            else:
                self.anywhere.add(char)

    def merge(self, other: _Start) -> None:
        self.word_start |= other.word_start
        self.anywhere |= other.anywhere


def _leading(items: Iterable[tuple[Any, Any]], word_start: bool) -> _Start | None:
    """How a match of a sequence can start (None: with any character). ``word_start``: no word
    character precedes the sequence's first position."""
    start = _Start()
    for op, argument in items:
        name = str(op)
        if _after_non_word(name, argument):
            word_start = True  # a zero-width assertion: still at the first position
            continue
        first = _leading_item(name, argument, word_start)
        if first is None:
            return None
        start.merge(first)
        if not first.nullable:
            start.nullable = False
            return start
    return start


def _after_non_word(op: str, argument: Any) -> bool:
    """Whether an assertion holds only where no word character precedes: a word boundary before
    a word character, a line or text start, or a look-behind excluding ``\\w``."""
    if op == "AT":
        return str(argument) in ("AT_BOUNDARY", "AT_BEGINNING", "AT_BEGINNING_STRING")
    if op != "ASSERT_NOT" or argument[0] != -1 or len(argument[1]) != 1:
        return False
    inner, members = argument[1][0]
    if str(inner) != "IN":
        return False
    kinds = {(str(name), str(value)) for name, value in members}
    return ("CATEGORY", "CATEGORY_WORD") in kinds and not any(n == "NEGATE" for n, _ in kinds)


MAX_GATE_RANGE = 256
"""Ranges of a character class wider than this make a match start anywhere, as far as the gate
is concerned (a gate of thousands of characters would reject nothing)."""


def _class_members(members: list[tuple[Any, Any]]) -> set[str] | None:
    """Every character of a character class made of characters and ranges (``[A-Z_.]``), as
    written; None for negated classes, categories (``\\w``) and wide ranges."""
    chars: set[str] = set()
    for op, argument in members:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(argument))
        elif name == "RANGE" and argument[1] - argument[0] < MAX_GATE_RANGE:
            chars.update(chr(code) for code in range(argument[0], argument[1] + 1))
        else:
            return None
    return chars


def _leading_item(op: str, argument: Any, word_start: bool) -> _Start | None:
    if op == "LITERAL":
        start = _Start(nullable=False)
        start.add(chr(argument), word_start)
        return start
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return _Start()
    if op == "IN":
        members = _class_members(argument)
        if members is None:
            return None
        start = _Start(nullable=False)
        start.add(members, word_start)
        return start
    if op in ("SUBPATTERN", "ATOMIC_GROUP", "BRANCH"):
        if op == "SUBPATTERN" and (argument[1] | argument[2]) & _LOCAL_WORD_FLAGS:
            return None
        body = argument[3] if op == "SUBPATTERN" else argument
        branches = argument[1] if op == "BRANCH" else [body]
        union = _Start(nullable=False)
        for branch in branches:
            first = _leading(branch, word_start)
            if first is None:
                return None
            union.merge(first)
            union.nullable = union.nullable or first.nullable
        return union
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, body = argument
        first = _leading(body, word_start)
        if first is not None and low == 0:
            first.nullable = True
        return first
    return None
