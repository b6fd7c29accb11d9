"""Commands a runner executes by itself from its configuration, whatever the file is called: a
systemd unit's ``Exec…=`` lines, a tox environment's ``commands``, a crontab's lines, the
``command``/``args`` of a container in a Kubernetes or Compose manifest. The skill ships the
file and tells the agent to install or apply it; from then on the commands run without anyone
reading them, so they are read as the shell they are (``scanner._analyse_runner_commands``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from grading import linear

_UNIT_EXEC = linear.compile(
    r"(?m)^[ \t]*Exec(?:Start|StartPre|StartPost|Stop|StopPost|Reload|Condition)[ \t]*=[ \t]*"
    r"[-@+!:]*([^\n]+)$"
)
"""``ExecStart=/bin/sh -c '…'`` (the prefixes ``-@+!:`` change how systemd runs it, not what)."""
_TOX_COMMANDS = linear.compile(
    r"(?m)^[ \t]*commands(?:_pre|_post)?[ \t]*=[ \t]*([^\n]*(?:\n[ \t]+[^\n]+)*)"
)
"""A tox environment's ``commands = …`` with its indented continuation lines, one command each."""
_CRON_LINE = linear.compile(
    r"(?m)^[ \t]*(?:@(?:reboot|yearly|annually|monthly|weekly|daily|hourly)"
    r"|(?:[\d*][\d*/,-]*[ \t]+){4}[\d*][\d*/,-]*)[ \t]+(\S[^\n]*)$"
)
"""A crontab line: five time fields (or an ``@daily``-style nickname), then the command."""
_CONTAINER_KEY = re.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?(?:command|args|entrypoint)[ \t]*:[ \t]*([^\n#]*)$"
)
_IMAGE = re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?image[ \t]*:")
"""A container's image: the manifest runs containers (Kubernetes, Compose)."""
_ITEM = re.compile(r"(?m)^([ \t]*)-[ \t]+([^\n]+)$")
_SHELLS = frozenset({"sh", "bash", "ash", "zsh", "dash"})
MAX_COMMANDS = 200


def commands(path: str, text: str) -> Iterator[tuple[int, str]]:
    """(offset, command) for each command a runner configured by ``text`` executes."""
    found = 0
    for offset, command in _all(path, text):
        if command.strip():
            yield offset, command
            found += 1
            if found >= MAX_COMMANDS:
                return


def _all(path: str, text: str) -> Iterator[tuple[int, str]]:
    lowered = path.lower()
    if "[Service]" in text:  # systemd's specifiers: %h the user's home, %u the user's name
        for match in _UNIT_EXEC.finditer(text):
            yield match.start(1), match.group(1).replace("%h", "~").replace("%u", "user")
    if "[testenv" in text:
        for match in _TOX_COMMANDS.finditer(text):
            yield from _lines(match.start(1), match.group(1))
    if not lowered.endswith((".md", ".markdown", ".py", ".js", ".ts", ".json", ".yaml", ".yml")):
        yield from ((m.start(1), m.group(1)) for m in _CRON_LINE.finditer(text))
    if lowered.endswith((".yaml", ".yml")) and _IMAGE.search(text):
        yield from _container_commands(text)


def _lines(start: int, value: str) -> Iterator[tuple[int, str]]:
    offset = start
    for line in value.split("\n"):
        yield offset + len(line) - len(line.lstrip()), line.strip()
        offset += len(line) + 1


def _container_commands(text: str) -> Iterator[tuple[int, str]]:
    """A container's ``command``/``args``: a flow list, a block list, a block scalar or a plain
    value. A shell's ``-c`` script is its own command; a list of words is one command line."""
    for key in _CONTAINER_KEY.finditer(text):
        indent, rest = len(key.group(1)), key.group(2).strip()
        if rest.startswith("["):
            words = _flow_list(rest)
            yield from _as_commands(key.start(2), [(key.start(2), word) for word in words])
        elif rest in ("", "|", ">", "|-", ">-"):
            block = _block(text, key.end(), indent, scalar=bool(rest))
            yield from _as_commands(key.start(), block)
        else:
            yield key.start(2), _unquoted(rest)


def _block(text: str, start: int, indent: int, *, scalar: bool) -> list[tuple[int, str]]:
    items: list[tuple[int, str]] = []
    lines: list[str] = []
    offset = start + 1
    for line in text[start + 1 :].split("\n"):
        stripped = line.strip()
        width = len(line) - len(line.lstrip())
        if stripped and width <= indent and not (stripped.startswith("- ") and width == indent):
            break
        if scalar:
            lines.append(stripped)
        else:
            item = _ITEM.match(line)
            if item is not None:
                items.append((offset + item.start(2), _unquoted(item.group(2).strip())))
            elif stripped and items:  # a plain scalar folded over several lines
                items[-1] = (items[-1][0], items[-1][1] + " " + stripped)
        offset += len(line) + 1
    if scalar:
        return [(start + 1, "\n".join(lines))]
    return items


def _as_commands(offset: int, items: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    words = [item for _, item in items]
    if words and words[0].rsplit("/", 1)[-1] in _SHELLS:
        scripts = [(o, w) for o, w in items[1:] if w != "-c" and not w.startswith("-")]
        yield from scripts
        return
    if any(" " in w or "\n" in w for w in words):
        yield from ((o, w) for o, w in items if " " in w or "\n" in w)
    elif words:
        yield offset, " ".join(words)


def _flow_list(value: str) -> list[str]:
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = [_unquoted(part.strip()) for part in value.strip("[] ").split(",")]
    return [str(item) for item in parsed] if isinstance(parsed, list) else []


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
