"""Whether a credential file named in a text is only checked, never read.

A secret scanner or a host audit names `~/.ssh/id_rsa` and `~/.aws/credentials` to test that
they exist, to warn that they are world-readable, or to list them by name in its report. The
credential rules match the path, and a path is not a read: what decides is what is done with
it. This module answers, for one hit of a credential path, whether everything the text does
with that path is a check of existence or permissions, a comparison, or printing its name —
then no byte of the secret is read, and the hit is labelled ``checked`` (``spans.yaml``).

* Python (shipped scripts): the string literal is followed through the path builders
  (``os.path.join``, ``expanduser``, ``Path(…)``, ``/``), a ``for`` loop over a list of them and
  assignments to names in the same function; every use must be a check (``os.path.exists``,
  ``os.stat``, ``Path.is_file``, ``os.chmod`` …), a comparison or a printed name. Any other use —
  ``open``, ``read_text``, ``shutil.copy``, a call to a function of its own, a ``return`` — and
  the path counts as read.
* Shell: the path is the operand of a file test (``[ -f … ]``, ``test -e``) or of ``stat`` /
  ``ls`` / ``chmod``, in a command whose output goes nowhere but the terminal or a filter.
* Prose: the sentence asks whether the file exists or what its permissions are, and names no
  act that would read, copy or send it.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

_CHECKS = frozenset(
    {
        "exists", "lexists", "isfile", "isdir", "islink", "is_file", "is_dir", "is_symlink",
        "stat", "lstat", "access", "getsize", "getmtime", "getctime", "getatime", "owner",
        "group", "chmod",
    }
)  # fmt: skip
"""Functions and methods that look at a file's existence, size, owner or mode, or set its
mode, without reading a byte of it."""
_SHOWS = frozenset({"print", "debug", "info", "warning", "warn", "error", "critical", "echo"})
"""Calls that print or log what they are given: a path so handled is shown by name."""
_BUILDERS = frozenset(
    {"join", "expanduser", "expandvars", "abspath", "normpath", "realpath", "Path", "PurePath",
     "home", "joinpath", "fspath", "str"}
)  # fmt: skip
"""Calls that make a path of a path: what they return is followed like their argument."""
_COUNTS = frozenset({"len", "bool", "any", "all"})
"""Calls that turn a list of paths into a number or a truth value: nothing of a file."""
_MAX_DEPTH = 4


def python_checked(source: str, offset: int) -> bool:
    """Whether the string literal at ``offset`` of the Python ``source`` names a path that the
    program only checks (see the module docstring)."""
    parsed = _parse(source)
    if parsed is None:
        return False
    tree, parents, starts = parsed
    line = source.count("\n", 0, offset) + 1
    column = len(source[starts[line - 1] : offset].encode("utf-8"))
    literal = _literal_at(tree, line, column)
    if literal is None:
        return False
    return _only_checked(literal, parents, _MAX_DEPTH)


@lru_cache(maxsize=8)
def _parse(
    source: str,
) -> tuple[ast.AST, dict[ast.AST, ast.AST], list[int]] | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    starts = [0] + [m.end() for m in re.finditer("\n", source)]
    return tree, parents, starts


def _literal_at(tree: ast.AST, line: int, column: int) -> ast.Constant | None:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.end_lineno is not None
            and node.end_col_offset is not None
            and (node.lineno, node.col_offset)
            <= (line, column)
            < (node.end_lineno, node.end_col_offset)
        ):
            return node
    return None


def _name_of(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _only_checked(node: ast.AST, parents: dict[ast.AST, ast.AST], depth: int) -> bool:
    """Whether every use of the value ``node`` computes is a check, a comparison or a shown
    name, following path builders, loops and assignments ``depth`` steps deep."""
    if depth < 0:
        return False
    while True:
        parent = parents.get(node)
        if isinstance(parent, (ast.List, ast.Tuple, ast.Set)):
            node = parent  # an entry of a list of paths: follow the list
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Div, ast.Add)):
            node = parent  # Path.home() / ".ssh/id_rsa", home + "/.aws/credentials"
        elif isinstance(parent, ast.Call) and node in parent.args and _name_of(parent) in _BUILDERS:
            node = parent
        elif (
            isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and parent.elt is node
        ):
            node = parent  # [path for path in PATHS if …]: the paths kept, followed as a list
        elif isinstance(parent, (ast.FormattedValue, ast.JoinedStr)):
            return True  # the name, written into a message
        else:
            break
    if isinstance(parent, ast.Call) and node in parent.args:
        return _name_of(parent) in _CHECKS | _SHOWS | _COUNTS
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        return isinstance(call, ast.Call) and call.func is parent and parent.attr in _CHECKS
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        scope = parent if isinstance(parent, ast.For) else parents.get(parent)
        return scope is not None and _names_checked(parent.target, scope, parents, depth - 1)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        return _names_checked(parent.targets[0], _scope(parent, parents), parents, depth - 1)
    return False


def _scope(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    """The function holding ``node``, or the module: where a name it assigns is used."""
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return node
    return node


def _names_checked(
    target: ast.AST, scope: ast.AST, parents: dict[ast.AST, ast.AST], depth: int
) -> bool:
    """Whether every read of the names ``target`` binds, within ``scope``, is only checked."""
    if not isinstance(target, ast.Name):
        return False  # unpacking: where each part goes is not followed
    uses = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Name) and node.id == target.id and isinstance(node.ctx, ast.Load)
    ]
    return bool(uses) and all(_only_checked(use, parents, depth) for use in uses)


_SHELL_CHECK = re.compile(
    r"(?:\[\[?|\btest)\s+(?:!\s+)?-[efrsdLhwxOG]\s+[\"']?\S*$|\b(?:stat|ls|chmod)\b[^;&|`\n]*$"
)
_SHELL_AFTER = re.compile(r"[^;&|\n`)]*")
_SHELL_FILTERS = re.compile(r"\|\s*(?:head|tail|grep|wc|awk|cut|sort)\b")
_SHELL_LOOP = re.compile(r"\bfor\s+(\w+)\s+in\s[^;\n]*$")
_SHELL_SHOW = re.compile(r"\b(?:echo|printf)\b[^;&|`\n]*$")


def shell_checked(text: str, start: int, end: int) -> bool:
    """Whether the path at ``text[start:end]`` is the operand of a file test or of ``stat`` /
    ``ls`` / ``chmod``, in a command whose output is at most filtered for the terminal — or
    one of the words a ``for`` loop runs over, whose variable the loop body only so uses or
    prints."""
    line_start = text.rfind("\n", 0, start) + 1
    loop = _SHELL_LOOP.search(text, line_start, start)
    if loop is not None:
        return _loop_checked(text, loop)
    return _operand_checked(text, start, end, show=False)


def _loop_checked(text: str, loop: re.Match[str]) -> bool:
    body_end = re.compile(r"\bdone\b").search(text, loop.end())
    if body_end is None:
        return False
    name = loop.group(1)
    uses = list(re.finditer(rf"\$\{{?{name}\b\}}?", text[: body_end.start()]))
    uses = [use for use in uses if use.start() > loop.end()]
    return bool(uses) and all(
        _operand_checked(text, use.start(), use.end(), show=True) for use in uses
    )


def _operand_checked(text: str, start: int, end: int, *, show: bool) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    cut = max(before.rfind(c) for c in (";", "&", "|", "(", "`"))
    if cut >= 0 and before[cut] in "(`":
        return False  # a command substitution hands what it prints to another command
    segment = before[cut + 1 :]
    if not (_SHELL_CHECK.search(segment) or (show and _SHELL_SHOW.search(segment))):
        return False
    after = _SHELL_AFTER.match(text, end)
    stop = after.end() if after else end
    rest = text[stop : text.find("\n", stop) if "\n" in text[stop:] else len(text)]
    if rest.startswith("|") and not rest.startswith("||"):
        return bool(_SHELL_FILTERS.match(rest))  # piped on: only into a filter for the terminal
    return ">" not in text[end:stop]


_PROSE_CHECK = re.compile(
    r"(?i)\b(?:exists?|existence|is\s+(?:present|missing|absent)|(?:world|group|other)[-\s]"
    r"(?:readable|writable)|readable\s+by|permissions?|(?:file|loose|safe|unsafe)\s+modes?"
    r"|mode\s+0?o?[0-7]{3}"
    r"|chmod\s+[0-7]{3})\b"
)
_PROSE_ACT = re.compile(
    r"(?i)\b(?:read|reads|reading|cat|open|opens|cop(?:y|ies)|upload\w*|send\w*|post\w*|print\w*"
    r"|show\w*|display\w*|dump\w*|contents?|tar|zip|base64|encode\w*|include\w*|attach\w*"
    r"|share\w*|scp|rsync|curl|wget|use|uses|using|load\w*|source|parse\w*|extract\w*"
    r"|decrypt\w*|import\w*|paste\w*|move|mv|cp|collect\w*|gather\w*|archive\w*|back\s+up)\b"
)
_PROSE_DENIED = re.compile(
    r"(?i)\b(?:not|never|without)\s+(?:\w+\s+){0,2}(?:read\w*|open\w*|print\w*|show\w*|cop\w+"
    r"|upload\w*|send\w*)\b[^.;]{0,40}"
)


_PROSE_CONDITION = re.compile(
    r"(?i)\b(?:if|when|whenever|once|where|in\s+case)\b(?:[^.;]|\.(?!\s)){0,160}?"
    r"\b(?:exists?|is\s+present)\b"
)


def prose_checked(sentence: str) -> bool:
    """Whether a sentence naming a credential file asks only whether it exists or what its
    permissions are: a check cue, and no act on the file that it does not deny. A file's
    existence made the condition of what follows ("when the token file exists, keep it …") is
    not a check: the act is in the rest of the sentence."""
    if not _PROSE_CHECK.search(sentence) or _PROSE_CONDITION.search(sentence):
        return False
    return not _PROSE_ACT.search(_PROSE_DENIED.sub(" ", sentence))


_READ_ONLY_DECLARED = re.compile(
    r"(?i)\b(?:read[-\s]only|changes\s+nothing|makes\s+no\s+changes|does\s+not\s+(?:change|modify)"
    r"|without\s+(?:changing|modifying)\s+anything|propos\w+\s+fixes\s+only)\b"
)
_AUDIT_DECLARED = re.compile(
    r"(?i)\b(?:audit\w*|posture|assessment|compliance\s+checks?|hardening\s+review|inspection)\b"
)
_READERS = frozenset(
    {"awk", "gawk", "grep", "egrep", "cut", "cat", "head", "tail", "wc", "stat", "ls", "getent",
     "find", "test", "lsattr", "sort", "uniq"}
)  # fmt: skip
_WRITES = re.compile(r">|\$\(|`|\btee\b|-exec\b|-delete\b|-fprint|\b(?:curl|wget|nc|scp|rsync)\b")


def declares_read_only_audit(purpose: str) -> bool:
    """Whether the skill's name and description call it a read-only audit ("read-only security
    posture audit …, changes nothing"): what it reads of the system is its declared purpose."""
    return bool(_READ_ONLY_DECLARED.search(purpose) and _AUDIT_DECLARED.search(purpose))


def read_only_command(command: str) -> bool:
    """Whether a one-line command only reads and prints (``awk``, ``grep``, ``cut`` … as root or
    not), writing no file and handing its output to nothing but a filter for the terminal."""
    if _WRITES.search(command):
        return False
    stages = [stage.split() for stage in command.split("|")]
    if not all(stages) or "" in command.split("|"):
        return False
    first = stages[0]
    while first and (first[0] == "sudo" or (first[0].startswith("-") and len(first) > 1)):
        first = first[1:]  # sudo and its options
    return bool(first) and first[0] in _READERS and all(s[0] in _READERS for s in stages[1:])
