"""Makefiles read as the shell their recipes run.

``make slim`` runs each recipe line with ``/bin/sh``: a Makefile a skill ships is a shell
script in make's clothes, and read as shell directly its rules, ``$$`` escapes and ``$(VAR)``
references hide the commands from the parser. The recipes are rewritten, character for
character (offsets hold), into the shell they become, the rest of the file blanked:

* a recipe line (tab-indented after a rule) loses its ``@``, ``-`` and ``+`` prefixes;
* ``$$`` is the shell's ``$``; ``$(NAME)`` a variable (``${NAME}``), and ``$(shell cmd)`` the
  command substitution it is (``$(cmd)``).

Each rule's recipe is one region, read on its own as make runs it (a recipe is the unit of a
target; one parse per recipe also keeps a quirk of one from swallowing the next).
"""

from __future__ import annotations

import re

_NAMES = ("makefile", "gnumakefile")
_RULE = re.compile(r"^[^\t#=\s][^=]*?:(?!=)")
_REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_SHELL_CALL = re.compile(r"\$\(shell[ \t]")
_ESCAPED = re.compile(r"\$\$(?=[A-Za-z0-9_({?@#!*-])")


def is_makefile(path: str) -> bool:
    """``Makefile``, ``GNUmakefile``, ``Makefile.slim``, ``build.mk``."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(".mk") or name in _NAMES or name.startswith(tuple(n + "." for n in _NAMES))


def _expand(line: str) -> str:
    """make's expansions of one line as the shell's, the length kept: ``$$`` before what the
    shell expands is ``$`` (the line padded at its end, before a continuation); a lone one (the
    anchor of ``grep "^main$$"``) is blanked: it means nothing to the analysis, and the parser
    reads ``$"`` as the start of another kind of string."""
    line = _SHELL_CALL.sub(lambda m: "$(" + " " * (len(m.group(0)) - 2), line)
    line = _REFERENCE.sub(lambda m: "${" + m.group(1) + "}", line)
    width = len(line)
    line = _ESCAPED.sub("$", line).replace("$$", "  ")
    if line.endswith("\\"):
        return line[:-1].ljust(width - 1) + "\\"
    return line.ljust(width)


def recipes(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The shell the Makefile ``text`` runs, as long as ``text`` (recipe lines rewritten,
    everything else blanked), and the ``(start, end)`` region of each rule's recipe. A recipe
    line ends with ``;`` (its newline moved onto the next line's tab): each is a command of its
    own, as make runs it, however the parser would join them."""
    out: list[str] = []
    regions: list[tuple[int, int]] = []
    ends: list[int] = []
    in_rule = continued = False
    offset = 0
    for line in text.split("\n"):
        if continued or (in_rule and line.startswith("\t")):
            stripped = line if continued else line[1:].lstrip("@-+ \t")
            out.append(" " * (len(line) - len(stripped)) + _expand(stripped))
            if regions and regions[-1][1] == offset - 1:
                if not continued:
                    ends.append(offset - 1)
                regions[-1] = (regions[-1][0], offset + len(line))
            else:
                regions.append((offset, offset + len(line)))
            continued = line.endswith("\\")
        else:
            in_rule = bool(_RULE.match(line)) or (in_rule and not line.strip())
            out.append(" " * len(line))
        offset += len(line) + 1
    shell = list("\n".join(out))
    for end in ends:
        shell[end : end + 2] = [";", "\n"]
    return "".join(shell), tuple(regions)
