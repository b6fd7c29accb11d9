"""Git aliases that are shell commands. A git alias whose value starts with ``!`` is not a git
subcommand: git hands the rest to the shell each time the alias is typed (``ship = "!git
sync && git push"``). A skill that adds one — in a ``.gitconfig``'s ``[alias]`` section, in a
fenced block the agent pastes into one, or with ``git config --global alias.NAME '!…'`` — ships
a shell command under a harmless name, so it is read as the shell it is
(``scanner._analyse_git_aliases``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

_ENTRY = re.compile(r'(?m)^[ \t]*[\w.-]{1,60}[ \t]*=[ \t]*(")?!([^\n]{1,4000})$')
"""An alias entry of a git config file: ``name = !cmd`` or ``name = "!cmd"``."""
_CONFIG_COMMAND = re.compile(
    r"\bgit\s+config\b(?:\s+--?[\w-]{1,20}(?:[ =][^\s'\"-][^\s'\"]{0,200})?){0,3}"
    r"\s+alias\.[\w.-]{1,60}\s+(['\"])!((?:(?!\1)[^\n\\]|\\.){1,4000})\1"
)
"""``git config --global alias.NAME '!…'`` (the value quoted, as it must be to hold a ``!``)."""
_ESCAPE = re.compile(r"\\([\\\"])")


def commands(text: str) -> Iterator[tuple[int, str]]:
    """(offset, command) for each shell alias ``text`` defines, its quoting undone. Entries of
    the ``name = !…`` form are read only in text that speaks of aliases (``[alias]``, "alias")."""
    if "alias" not in text.lower():
        return
    for entry in _ENTRY.finditer(text):
        value = entry.group(2).rstrip()
        if entry.group(1):
            value = value[:-1] if value.endswith('"') else value
            value = _ESCAPE.sub(r"\1", value)
        yield entry.start(2), value
    for command in _CONFIG_COMMAND.finditer(text):
        value = command.group(2)
        yield command.start(2), _ESCAPE.sub(r"\1", value) if command.group(1) == '"' else value
