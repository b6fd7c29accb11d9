"""The commands of a task runner's file: go-task's ``Taskfile.yml`` (each task's ``cmds``), mise's
``mise.toml`` (each ``[tasks.NAME]``'s ``run``). ``task reclaim`` or ``mise run reclaim`` runs
them as shell, whatever the task is called and whatever its ``desc`` says, so each command is
read as the shell it is (``scanner._analyse_task_commands``). A command written as a block
(``- |`` with an ``if … then … fi`` under it, a ``run = '''…'''``) is one script: its
condition and what the condition guards are read together."""

from __future__ import annotations

import re
from collections.abc import Iterator

_TASKFILE = re.compile(r"(?:^|/)taskfile(?:\.dist)?\.ya?ml$", re.IGNORECASE)
_MISE = re.compile(r"(?:^|/)\.?mise(?:\.[\w-]{1,20})?\.toml$", re.IGNORECASE)
_CMDS = re.compile(r"(?m)^([ \t]*)cmds[ \t]*:[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)-[ \t]+(?:cmd[ \t]*:[ \t]*)?(.*)$")
_RUN = re.compile(
    r"(?m)^[ \t]*run[ \t]*=[ \t]*(?:'''\n?(.*?)'''|\"\"\"\n?(.*?)\"\"\"|\"((?:[^\"\\\n]|\\.)*)\""
    r"|'([^'\n]*)')",
    re.DOTALL,
)
_BLOCK_SCALAR = frozenset({"|", "|-", "|+", ">", ">-", ">+"})


def is_task_file(path: str) -> bool:
    """A go-task or mise configuration, by its name."""
    return bool(_TASKFILE.search(path) or _MISE.search(path))


def commands(path: str, text: str) -> Iterator[tuple[int, str]]:
    """(offset, command) for each command of a task runner's file (none for another file)."""
    if _TASKFILE.search(path):
        yield from _taskfile_commands(text)
    elif _MISE.search(path):
        for run in _RUN.finditer(text):
            group = next(g for g in range(1, 5) if run.group(g) is not None)
            yield run.start(group), run.group(group)


def _taskfile_commands(text: str) -> Iterator[tuple[int, str]]:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for key in _CMDS.finditer(text):
        index = text.count("\n", 0, key.start()) + 1
        indent = len(key.group(1))
        while index < len(lines):
            line = lines[index]
            width = len(line) - len(line.lstrip())
            if line.strip() and width <= indent and not line.lstrip().startswith("- "):
                break
            item = _ITEM.match(line)
            index += 1
            if item is None or item.group(2).strip().startswith(("task:", "defer:")):
                continue
            value = item.group(2).strip()
            if value not in _BLOCK_SCALAR:
                yield offsets[index - 1] + item.start(2), _unquoted(value)
                continue
            dash = len(item.group(1))
            block: list[str] = []
            start = offsets[index] if index < len(lines) else len(text)
            while index < len(lines) and (
                not lines[index].strip() or len(lines[index]) - len(lines[index].lstrip()) > dash
            ):
                block.append(lines[index].strip())
                index += 1
            joined = "\n".join(block) if value.startswith("|") else " ".join(block)
            yield start, joined.strip()


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
