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

import importlib
import re
from collections.abc import Iterable
from typing import Any, NamedTuple, Protocol

_parser: Any = importlib.import_module("re._parser")
"""The regex parser (typeshed has no stubs for the engine's private modules)."""

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


class Source(Protocol):
    """A compiled pattern's source and flags (``re.Pattern`` or ``grading.linear``'s)."""

    @property
    def pattern(self) -> str: ...
    @property
    def flags(self) -> int: ...


def required_literals(pattern: Source) -> Literals | None:
    """Lower-case ASCII strings (each at least MIN_LENGTH long) of which every match of
    ``pattern`` contains one; None when no such set can be proven."""
    _, required = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    return required


def leading_literals(pattern: Source) -> Literals | None:
    """Lower-case ASCII strings (each at least MIN_LENGTH long) one of which every match of
    ``pattern`` starts with — a match can then only begin where one of them occurs; None when
    no such set can be proven."""
    leading = _heads(_parser.parse(pattern.pattern, pattern.flags))
    return leading if min(map(len, leading)) >= MIN_LENGTH else None


def _heads(items: Iterable[tuple[Any, Any]]) -> Literals:
    """Strings one of which every match of a sequence starts with ({""}: none known): the exact
    pieces at its head multiplied out, then the strings the next piece starts with."""
    run: Literals = frozenset({""})
    for op, argument in items:
        exact, _ = _item(str(op), argument)
        head = exact if exact is not None else _head_of(str(op), argument)
        joined = _product(run, head)
        if joined is None:
            return run
        run = joined
        if exact is None:
            return run
    return run


def _head_of(op: str, argument: Any) -> Literals:
    if op == "SUBPATTERN":
        return _heads(argument[3])
    if op == "ATOMIC_GROUP":
        return _heads(argument)
    if op == "BRANCH":
        union = frozenset().union(*(_heads(branch) for branch in argument[1]))
        return union if len(union) <= MAX_ALTERNATIVES else frozenset({""})
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and argument[0] >= 1:
        return _heads(argument[2])
    return frozenset({""})


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
    chars = _class_members(members, max_range=MAX_CLASS)
    if chars is None or len(chars) > MAX_CLASS or not all(char.isascii() for char in chars):
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
    rejects almost all positions first. It is case-insensitive where the pattern is (a superset
    of the characters that can start a match), so the gated pattern matches exactly the same.

    Returned unchanged when a match could start with any character or be empty, and when the
    regex engine already rejects a position by one test of its character (see
    ``_tests_first_character``): a look-ahead would only add a step there, three times slower.
    """
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    first = _leading(parsed, bool(pattern.flags & re.IGNORECASE))
    if first is None or first.nullable or _tests_first_character(parsed, pattern.flags):
        return pattern
    body = _GLOBAL_FLAGS.sub("", pattern.pattern, count=1)  # they stay in pattern.flags
    end = "\n)" if pattern.flags & re.VERBOSE else ")"  # a trailing (?x) comment ends at "\n"
    chars = "[" + "".join(re.escape(char) for char in sorted(first.chars)) + "]"
    gate = f"(?i:{chars})" if first.folded else chars
    return re.compile(f"(?={gate})(?:{body}{end}", pattern.flags)


_GLOBAL_FLAGS = re.compile(r"\A\(\?[aiLmsux]+\)")
_SRE_COMPILER: Any = importlib.import_module("re._compiler")
"""The regex compiler, asked how its search will look for a pattern's first character."""
_SINGLE_CHARACTER = ("LITERAL", "NOT_LITERAL", "IN", "ANY")


def _tests_first_character(parsed: Any, flags: int) -> bool:
    """Whether the regex engine rejects a position by one test of its character: its search
    skips ahead to a literal prefix or a set of first characters, the pattern opens with an
    element matching one character (possibly repeated, at least once), or with alternatives
    each opening with a character or class matched with its case (which the engine tests before
    entering the alternative)."""
    if _SRE_COMPILER._get_literal_prefix(parsed, flags)[0]:
        return True
    if _SRE_COMPILER._get_charset_prefix(parsed, flags) is not None:
        return True
    items = list(parsed)
    while items and str(items[0][0]) == "SUBPATTERN":
        items = list(items[0][1][3])
    if not items:
        return False
    op, argument = items[0]
    if str(op) in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and argument[0] >= 1:
        body = list(argument[2])
        return len(body) == 1 and str(body[0][0]) in _SINGLE_CHARACTER
    if str(op) == "BRANCH" and not flags & re.IGNORECASE:
        return all(branch and str(branch[0][0]) in ("LITERAL", "IN") for branch in argument[1])
    return str(op) in _SINGLE_CHARACTER


class _First(NamedTuple):
    """The characters a match of a piece of pattern can start with, whether the piece can be
    empty, and whether any of those characters is matched ignoring case."""

    chars: frozenset[str]
    nullable: bool
    folded: bool


def _leading(items: Iterable[tuple[Any, Any]], ignore_case: bool) -> _First | None:
    """How a match of a sequence starts (None: with any character); ``ignore_case``: the
    sequence is matched ignoring case."""
    chars: set[str] = set()
    folded = False
    for op, argument in items:
        first = _leading_item(str(op), argument, ignore_case)
        if first is None:
            return None
        chars |= first.chars
        folded = folded or first.folded
        if not first.nullable:
            return _First(frozenset(chars), False, folded)
    return _First(frozenset(chars), True, folded)


MAX_GATE_RANGE = 256
"""A character-class range wider than this makes a match start anywhere, as far as the gate is
concerned (a gate of thousands of characters would reject nothing)."""


def _class_members(
    members: list[tuple[Any, Any]], max_range: int = MAX_GATE_RANGE
) -> set[str] | None:
    """Every character of a class made of characters and ranges (``[A-Z_.]``), as written; None
    for negated classes, categories (``\\w``) and ranges of ``max_range`` characters or more."""
    chars: set[str] = set()
    for op, argument in members:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(argument))
        elif name == "RANGE" and argument[1] - argument[0] < max_range:
            chars.update(chr(code) for code in range(argument[0], argument[1] + 1))
        else:
            return None
    return chars


def _leading_item(op: str, argument: Any, ignore_case: bool) -> _First | None:
    if op == "LITERAL":
        return _First(frozenset(chr(argument)), False, ignore_case)
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return _First(frozenset(), True, False)
    if op == "IN":
        members = _class_members(argument)
        return None if members is None else _First(frozenset(members), False, ignore_case)
    if op == "SUBPATTERN":
        _, add_flags, del_flags, body = argument
        folds = (ignore_case or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
        return _leading(body, folds)
    if op == "ATOMIC_GROUP":
        return _leading(argument, ignore_case)
    if op == "BRANCH":
        return _any_of([_leading(branch, ignore_case) for branch in argument[1]])
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, body = argument
        first = _leading(body, ignore_case)
        return None if first is None else first._replace(nullable=first.nullable or low == 0)
    return None


def _any_of(alternatives: list[_First | None]) -> _First | None:
    """How a match of one of ``alternatives`` starts."""
    chars: set[str] = set()
    nullable = folded = False
    for first in alternatives:
        if first is None:
            return None
        chars |= first.chars
        nullable = nullable or first.nullable
        folded = folded or first.folded
    return _First(frozenset(chars), nullable, folded)
