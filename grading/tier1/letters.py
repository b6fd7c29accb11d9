"""Words disguised in ASCII so that the English rules do not read them: letters spaced apart
(``s e n d``) and digits standing for letters (``s3nd th3 c0nt3nts``, leetspeak).

Normalisation (``normalise``) folds look-alike and invisible *Unicode*; these disguises are
plain ASCII, so an order written with them in a file the agent obeys is rebuilt here, line by
line and with every offset kept (a spaced word is closed up and padded with spaces), and
rescanned by the engine like decoded text. A line is rebuilt only when it changes; honest text
rarely does (``v2``, ``S3``, ``ec2`` are too short or have no stand-in digit).
"""

from __future__ import annotations

import re

from grading import linear

_SPACED = re.compile(r"(?<![\w-])(?:[A-Za-z] ){2,}[A-Za-z](?![\w-])")
"""Three or more single letters, each followed by one space: ``s e n d``."""
_MIXED = re.compile(r"(?<![\w./-])(?=\w*[A-Za-z])(?=\w*[013457])[A-Za-z0-9]{2,}(?![\w/-]|\.\w)")
"""A word with a letter and a digit that stands for a letter (``d0``, ``c0nt3nts``), not part
of a host name or a path (``abc123.ngrok.io``)."""
_CODE = re.compile(r"`[^`\n]*`")
"""Inline code: names, hosts and commands, never disguised prose."""
_LEET = str.maketrans("013457", "oieast")
_EITHER = linear.compile(
    r"(?:^|[^\w-])([A-Za-z] [A-Za-z] [A-Za-z]"
    r"|[A-Za-z0-9]*(?:[A-Za-z][A-Za-z0-9]*[013457]|[013457][A-Za-z0-9]*[A-Za-z]))"
)
"""What every match of ``_SPACED`` or of ``_MIXED`` holds (three spaced letters; a run of
letters and digits with a letter and a stand-in digit) at a word's start, without their
look-arounds, which Python's ``re`` tries at every character: RE2 finds the lines worth
rebuilding at its own speed."""


def _closed_up(match: re.Match[str]) -> str:
    letters = match.group(0).replace(" ", "")
    return letters + " " * (len(match.group(0)) - len(letters))


def _lettered(match: re.Match[str]) -> str:
    word = match.group(0)
    return word if word.isdigit() else word.translate(_LEET)


def _rebuilt(prose: str) -> str:
    return _MIXED.sub(_lettered, _SPACED.sub(_closed_up, prose))


def rebuilt_lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of each line whose disguised words, rebuilt, change it.

    Only lines holding what a spaced or mixed word holds (``_EITHER``) are rebuilt: no pattern
    reaches past a line, and a piece of a line split at its inline code matches only where the
    line does (a backtick is no letter, digit, dot, slash or hyphen to a look-around), so every
    other line would be rebuilt unchanged — most of a text."""
    found: list[tuple[int, str]] = []
    for start in _candidate_lines(text):
        end = text.find("\n", start)
        line = text[start : len(text) if end < 0 else end]
        rebuilt = _rebuilt_line(line)
        if rebuilt != line:
            found.append((start, rebuilt))
    return found


def _candidate_lines(text: str) -> list[int]:
    """The start of each line holding a match of ``_EITHER``, in order.

    Each line's start is looked for back to the previous line found only, and once a line has
    given ``_SKIPPED_IN_A_LINE`` more matches the search starts again at its end: a line of a
    megabyte with a match in every word is read once, not once per match."""
    starts: list[int] = []
    line_end = 0
    while True:
        skipped = 0
        for start, _ in _EITHER.spans(text, 1, line_end):
            if start < line_end:
                skipped += 1
                if skipped > _SKIPPED_IN_A_LINE:
                    break
                continue
            skipped = 0
            starts.append(text.rfind("\n", line_end, start) + 1)
            found = text.find("\n", start)
            line_end = len(text) if found < 0 else found
        else:
            return starts


_SKIPPED_IN_A_LINE = 16
"""Matches of one line passed over before searching again from its end (a search costs a few
microseconds more than taking the next match, so most lines never pay it)."""


def _rebuilt_line(line: str) -> str:
    pieces, last = [], 0
    for code in _CODE.finditer(line):
        pieces += [_rebuilt(line[last : code.start()]), code.group(0)]
        last = code.end()
    return "".join([*pieces, _rebuilt(line[last:])])
