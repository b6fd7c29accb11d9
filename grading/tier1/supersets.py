"""An RE2 pattern that matches wherever a Python pattern can: a linear-time test that lets a
slow Python search be skipped where it would find nothing.

Some cues need what RE2 cannot run (look-arounds, possessive repetitions) and are searched
with Python's ``re``, which tries every position of a text: over a megabyte of prose one such
alternation costs half a second even where nothing matches. ``superset`` rewrites the pattern,
from Python's own parse of it, into one RE2 can run and that matches at least where the
original does:

* look-arounds and anchors (``\\b``, ``^``, ``(?<!…)``) are dropped — a condition removed only
  adds matches; possessive and atomic repetitions become ordinary ones; laziness is irrelevant
  (only whether a match exists is asked);
* ``\\w``, ``\\s``, ``\\d`` become Unicode classes at least as wide as Python's (RE2's are ASCII),
  the negated ones any character;
* case-insensitive letters become the explicit class of every character Python's case folding
  lets match them (``_sre.unicode_tolower`` and ``re._casefix``: ``i`` also matches ``İ`` and
  ``ı``, ``k`` the Kelvin sign), and RE2 runs case-sensitively;
* a negated class keeps only the characters it names (a narrower exclusion is a wider class);
* a pattern with what cannot be widened so (backreferences, conditionals) gets no superset.

So ``superset(p).search(text, a, b) is None`` proves ``p.search(text, a, b) is None``.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Any

from grading import linear

_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")
_casefix: Any = importlib.import_module("re._casefix")
_sre: Any = importlib.import_module("_sre")
"""The regex engine's own case folding (``unicode_tolower``), which ``str.lower`` is not."""

_CASED_BELOW = 0x20000
"""Every code point whose lower case differs from it lies below this (checked by a test)."""
_MAX_FOLDED_RANGE = 2000
"""A case-insensitive range wider than this is not widened character by character."""
_MAX_REPEAT = 1000
"""RE2's largest counted repetition; a larger bound becomes unbounded."""

_WORD = r"\pL\pN_"
"""Python's ``\\w`` (letters, digits and numbers, ``_``); a test checks every character
Python counts is in it, whatever the two Unicode versions."""
_SPACE = r"\t-\r\x{1c}-\x{1f}\x{85}\pZ\x{180e}\x{200b}\x{feff}"
"""Python's ``\\s`` (``str.isspace``) and a few characters older versions counted."""
_DIGIT = r"\p{Nd}"
_ANYTHING = r"\x{0}-\x{10ffff}"
_CATEGORIES = {
    "CATEGORY_WORD": _WORD,
    "CATEGORY_SPACE": _SPACE,
    "CATEGORY_DIGIT": _DIGIT,
    "CATEGORY_NOT_WORD": _ANYTHING,
    "CATEGORY_NOT_SPACE": _ANYTHING,
    "CATEGORY_NOT_DIGIT": _ANYTHING,
}
_DROPPED = frozenset({"AT", "ASSERT", "ASSERT_NOT"})


class _Unwidenable(Exception):
    """The pattern holds something with no RE2 superset."""


@lru_cache(maxsize=1)
def _folded_from() -> dict[int, tuple[int, ...]]:
    """Lower case → the code points whose lower case (as the regex engine folds) it is."""
    found: dict[int, list[int]] = {}
    for point in range(_CASED_BELOW):
        lower = _sre.unicode_tolower(point)
        found.setdefault(lower, []).append(point)
    return {lower: tuple(points) for lower, points in found.items()}


def _case_variants(point: int) -> set[int]:
    """Every character a case-insensitive ``point`` matches: those whose lower case is its
    lower case or one of that lower case's extra equivalents (``re._casefix``)."""
    lower = _sre.unicode_tolower(point)
    targets = {lower, *_casefix._EXTRA_CASES.get(lower, ())}
    folded = _folded_from()
    return {point, *targets, *(p for t in targets for p in folded.get(t, ()))}


def _char(point: int) -> str:
    return f"\\x{{{point:x}}}"


def _class(items: list[tuple[Any, Any]], folded: bool) -> str:
    if items and str(items[0][0]) == "NEGATE":
        named = [
            _char(av) if str(op) == "LITERAL" else f"{_char(av[0])}-{_char(av[1])}"
            for op, av in items[1:]
            if str(op) in ("LITERAL", "RANGE")
        ]
        return f"[^{''.join(named)}]" if named else f"[{_ANYTHING}]"
    parts: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            parts.extend(_char(p) for p in sorted(_case_variants(av) if folded else {av}))
        elif name == "RANGE":
            low, high = av
            parts.append(f"{_char(low)}-{_char(high)}")
            if folded:
                if high - low > _MAX_FOLDED_RANGE:
                    raise _Unwidenable(f"range {low:x}-{high:x}")
                variants = {v for p in range(low, high + 1) for v in _case_variants(p)}
                parts.extend(_char(p) for p in sorted(variants))
        elif name == "CATEGORY" and str(av) in _CATEGORIES:
            parts.append(_CATEGORIES[str(av)])
        else:
            raise _Unwidenable(name)
    return f"[{''.join(parts)}]"


def _emit(parsed: Any, folded: bool, dotall: bool) -> str:
    out: list[str] = []
    for op, av in parsed:
        name = str(op)
        if name in _DROPPED:
            continue
        if name == "LITERAL":
            out.append(_class([(op, av)], folded))
        elif name == "NOT_LITERAL":
            out.append(f"[^{_char(av)}]")
        elif name == "IN":
            out.append(_class(list(av), folded))
        elif name == "ANY":
            out.append(f"[{_ANYTHING}]" if dotall else r"[^\n]")
        elif name == "BRANCH":
            out.append("(?:" + "|".join(_emit(alt, folded, dotall) for alt in av[1]) + ")")
        elif name == "SUBPATTERN":
            _, add, remove, inner = av
            inside_folded = (folded or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            inside_dotall = (dotall or bool(add & re.DOTALL)) and not remove & re.DOTALL
            out.append("(?:" + _emit(inner, inside_folded, inside_dotall) + ")")
        elif name == "ATOMIC_GROUP":
            out.append("(?:" + _emit(av, folded, dotall) + ")")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, inner = av
            if low > _MAX_REPEAT:
                raise _Unwidenable("repeat")
            top = "" if high == _constants.MAXREPEAT or high > _MAX_REPEAT else str(high)
            out.append(f"(?:{_emit(inner, folded, dotall)}){{{low},{top}}}")
        else:
            raise _Unwidenable(name)
    return "".join(out)


def superset(pattern: re.Pattern[str]) -> linear.LinearPattern | None:
    """An RE2 pattern matching wherever ``pattern`` can (see the module docstring), or None
    when it has no such rewriting (or RE2 refuses the rewritten one)."""
    if not isinstance(pattern.pattern, str) or pattern.flags & re.LOCALE:
        return None
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    flags = parsed.state.flags
    try:
        source = _emit(parsed, bool(flags & re.IGNORECASE), bool(flags & re.DOTALL))
        return linear.compile(source)
    except (_Unwidenable, linear.LinearError, RecursionError):
        return None
