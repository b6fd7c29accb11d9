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

_SPACED = re.compile(r"(?<![\w-])(?:[A-Za-z] ){2,}[A-Za-z](?![\w-])")
"""Three or more single letters, each followed by one space: ``s e n d``."""
_MIXED = re.compile(r"(?<![\w./-])(?=\w*[A-Za-z])(?=\w*[013457])[A-Za-z0-9]{2,}(?![\w/-]|\.\w)")
"""A word with a letter and a digit that stands for a letter (``d0``, ``c0nt3nts``), not part
of a host name or a path (``abc123.ngrok.io``)."""
_CODE = re.compile(r"`[^`\n]*`")
"""Inline code: names, hosts and commands, never disguised prose."""
_LEET = str.maketrans("013457", "oieast")


def _closed_up(match: re.Match[str]) -> str:
    letters = match.group(0).replace(" ", "")
    return letters + " " * (len(match.group(0)) - len(letters))


def _lettered(match: re.Match[str]) -> str:
    word = match.group(0)
    return word if word.isdigit() else word.translate(_LEET)


def _rebuilt(prose: str) -> str:
    return _MIXED.sub(_lettered, _SPACED.sub(_closed_up, prose))


def rebuilt_lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of each line whose disguised words, rebuilt, change it."""
    found: list[tuple[int, str]] = []
    offset = 0
    for line in text.split("\n"):
        pieces, last = [], 0
        for code in _CODE.finditer(line):
            pieces += [_rebuilt(line[last : code.start()]), code.group(0)]
            last = code.end()
        rebuilt = "".join([*pieces, _rebuilt(line[last:])])
        if rebuilt != line:
            found.append((offset, rebuilt))
        offset += len(line) + 1
    return found
