"""An RE2 superset of a Python pattern finds a match wherever the pattern does, so a Python
search it rules out can be skipped (``grading.tier1.supersets``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading import linear
from grading.tier1 import spans, supersets

_CUES = [
    name
    for name, value in vars(spans.cues()).items()
    if isinstance(value, re.Pattern) and supersets.superset(value) is not None
]
_PIECES = [
    "attacker", "Attackers", "ATTACKER", "red flag", "red-flags", "anti-pattern", "IoCs", "ıoc",
    "İOC", "never do this", "don't", "❌", "BAD:", "WRONG —", "look for", "such as", "e.g.",
    "malware typically", "lets anyone", "to read", "detects", "patterns", "k", "K", "ſ", "é",
    " ", "\n", "\t", "\x1c", "\x85", "\u2028", "\u00a0", ".", ",", ":", "-", "/", "@", "`", "_",
    "x", "1", "٣", "the", "a", "do not", "never", "not", "check the logs for",
]  # fmt: skip


@pytest.mark.parametrize("name", _CUES)
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_a_cue_found_by_python_is_found_by_its_superset(name: str, text: str) -> None:
    pattern = getattr(spans.cues(), name)
    gate = supersets.superset(pattern)
    assert gate is not None
    if pattern.search(text) is not None:
        assert gate.search(text) is not None


def test_the_discussion_cue_has_a_superset() -> None:
    """The cue the large inputs need it for (half a second a megabyte in Python)."""
    assert spans.cues().discussion_gate is not None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            r"(?i)\bkey\b", r"(?<![\w.])token(?!\w)", r"\w+\s+\d", r"(?i)[a-f]{2}[^\s.]x",
            r"(?s)a.b", r"a.b", r"(?i:st)(?-i:EP)", r"(?:ab)++c", r"(?>a|ab)c", r"[^\W\d]z",
            r"(?i)[ǅ-ǈ]", r"(?i)σ", r"x{2,1500}",
        ]
    ),
    st.text(alphabet="aAbBcCkKſsSıİiIσςΣǅǆǄǈ0٣ \n\t\x85x.EePpTtOoNnYy_", max_size=30),
)  # fmt: skip
def test_constructs_are_widened_never_narrowed(source: str, text: str) -> None:
    pattern = re.compile(source)
    gate = supersets.superset(pattern)
    assert gate is not None
    if pattern.search(text) is not None:
        assert gate.search(text) is not None


def test_backreferences_have_no_superset() -> None:
    assert supersets.superset(re.compile(r"(a)\1")) is None


@pytest.mark.parametrize(
    ("category", "counts"),
    [
        (supersets._WORD, lambda c: c.isalnum() or c == "_"),
        (supersets._SPACE, str.isspace),
        (supersets._DIGIT, str.isdecimal),
    ],
)
def test_the_unicode_classes_hold_every_character_python_counts(
    category: str, counts: Callable[[str], bool]
) -> None:
    every = "".join(
        chr(p) for p in range(sys.maxunicode + 1) if not 0xD800 <= p < 0xE000 and counts(chr(p))
    )
    assert linear.compile(f"[{category}]*").fullmatch(every) is not None


def test_no_character_above_the_folded_range_changes_case() -> None:
    fold = supersets._sre.unicode_tolower
    assert all(fold(p) == p for p in range(supersets._CASED_BELOW, sys.maxunicode + 1))
