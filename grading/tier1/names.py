"""Typosquat detection: is a name one keystroke away from a well-known one?

Only the edits typosquatters actually use count — swapping two neighbouring letters
(``reqeusts``), dropping an inner vowel so that an unpronounceable consonant cluster appears
(``confg``) and doubling a letter (``webbapp``). A substitution (``render``/``tender``), a dropped
final letter (``parser``/``parse``) or a drop that leaves a pronounceable word (``models``/
``modes``, ``forum``/``form``) is far more often a different real word, so it is not reported:
precision matters more here than recall, because a false typosquat sends an honest skill to
review.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

_NAMES_FILE = Path(__file__).with_name("data") / "well_known_names.txt"
_SCOPES_FILE = Path(__file__).with_name("data") / "well_known_scopes.txt"
_MIN_LENGTH = 5
_TOKEN_SPLIT = re.compile(r"[-_.\s/]+")


@lru_cache(maxsize=1)
def well_known() -> frozenset[str]:
    lines = _NAMES_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and line[0] != "#")


@lru_cache(maxsize=1)
def _typo_index(known: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Every string one edit away from a known name (two neighbours swapped, a letter dropped,
    a letter doubled), with the names it is one edit from, shortest first and then
    alphabetically (the name reported must not vary by run). A token is then checked with one
    lookup, not against every known name of a similar length: the index proposes,
    ``is_typo_of`` decides."""
    index: dict[str, set[str]] = {}
    for name in known:
        for variant in _one_edit_away(name):
            index.setdefault(variant, set()).add(name)
    return {
        variant: tuple(sorted(names, key=lambda name: (len(name), name)))
        for variant, names in index.items()
    }


def _one_edit_away(name: str) -> Iterator[str]:
    for index in range(len(name) - 1):
        yield name[:index] + name[index + 1] + name[index] + name[index + 2 :]
    for index in range(len(name)):
        yield name[:index] + name[index + 1 :]
    for index in range(1, len(name) + 1):
        yield name[:index] + name[index - 1] + name[index:]


def imitated(name: str) -> str | None:
    """The well-known name (or name part) that ``name`` looks like a typo of, if any."""
    known = well_known()
    lowered = name.strip().lower()
    if not lowered or lowered in known:
        return None
    whole = _near_miss(lowered, known)
    if whole is not None:
        return whole
    for token in _TOKEN_SPLIT.split(lowered):
        hit = _near_miss(token, known)
        if hit is not None:
            return hit
    return None


def _near_miss(token: str, known: frozenset[str]) -> str | None:
    if len(token) < _MIN_LENGTH or _is_known(token, known):
        return None
    for candidate in _typo_index(known).get(token, ()):
        if is_typo_of(token, candidate):
            return candidate
    return None


def _is_known(token: str, known: frozenset[str]) -> bool:
    return token in known or token.rstrip("s") in known or f"{token}s" in known


def is_typo_of(typed: str, intended: str) -> bool:
    """True if ``typed`` is ``intended`` with two neighbours swapped, an inner letter dropped or a
    letter doubled."""
    if typed == intended:
        return False
    if len(typed) == len(intended):
        diffs = [i for i, (a, b) in enumerate(zip(typed, intended, strict=True)) if a != b]
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and typed[diffs[0]] == intended[diffs[1]]
            and typed[diffs[1]] == intended[diffs[0]]
        )
    if len(typed) == len(intended) - 1:
        index = _first_difference(typed, intended)
        return (
            index < len(typed)
            and typed[index:] == intended[index + 1 :]
            and intended[index] in _VOWELS
            and _longest_consonant_run(typed) > max(2, _longest_consonant_run(intended))
        )
    if len(typed) == len(intended) + 1:
        index = _first_difference(intended, typed)
        doubled = index > 0 and typed[index] == typed[index - 1]
        return doubled and typed[index + 1 :] == intended[index:]
    return False


_VOWELS = frozenset("aeiouy")
_CONSONANT_RUN = re.compile(r"[b-df-hj-np-tv-xz]+")


def _longest_consonant_run(word: str) -> int:
    return max((len(run) for run in _CONSONANT_RUN.findall(word)), default=0)


def _first_difference(shorter: str, longer: str) -> int:
    for index, ch in enumerate(shorter):
        if ch != longer[index]:
            return index
    return len(shorter)


@lru_cache(maxsize=1)
def well_known_scopes() -> frozenset[str]:
    lines = _SCOPES_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and line[0] != "#")


_LOOKALIKE_LETTERS = str.maketrans(
    {"0": "o", "1": "l", "3": "e", "5": "s", "7": "t", "4": "a", "i": "l", "I": "l"}
)
_SEPARATORS = re.compile(r"[-_.]")
_MIN_EDITED_SCOPE = 6
"""Shorter scopes (``types``, ``vue``) are compared only as folded look-alikes: one edit of a
short name is too often another real name."""


@lru_cache(maxsize=4096)
def lookalike_scope(scope: str) -> str | None:
    """The well-known npm scope (``@modelcontextprotocol``) that ``scope`` (written without its
    ``@``) imitates, or None. A scope is the vendor's word on a package: one that reads as a
    well-known vendor's at a glance — the same letters with a capital I or a digit for a
    letter, a separator added or dropped, or, for names of six letters or more, one letter
    swapped with its neighbour, dropped, doubled or replaced — is made to be trusted as theirs.
    npm scopes are lower case, so a capital letter in one that folds to a known scope is a
    disguise too."""
    known = well_known_scopes()
    lowered = scope.lower()
    if lowered in known and scope == lowered:
        return None
    folded = _SEPARATORS.sub("", _fold_letters(scope))
    for name in sorted(known):
        if lowered == name:
            return name  # the vendor's scope in capitals npm does not allow
        if lowered in known:
            continue
        if folded == _SEPARATORS.sub("", _fold_letters(name)):
            return name
        if len(name) >= _MIN_EDITED_SCOPE and _one_edit(lowered, name):
            return name
    return None


def _fold_letters(text: str) -> str:
    return text.translate(_LOOKALIKE_LETTERS).lower().replace("rn", "m").replace("vv", "w")


def _one_edit(typed: str, intended: str) -> bool:
    """One letter replaced, dropped, added, or two neighbours swapped."""
    if abs(len(typed) - len(intended)) > 1 or typed == intended:
        return False
    if len(typed) == len(intended):
        diffs = [i for i, (a, b) in enumerate(zip(typed, intended, strict=True)) if a != b]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and typed[diffs[0]] == intended[diffs[1]]
            and typed[diffs[1]] == intended[diffs[0]]
        )
    shorter, longer = sorted((typed, intended), key=len)
    index = _first_difference(shorter, longer)
    return shorter[index:] == longer[index + 1 :]
