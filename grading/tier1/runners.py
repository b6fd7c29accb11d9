"""Commands a runner executes by itself from its configuration, whatever the file is called: a
systemd unit's ``Exec…=`` lines, a tox environment's ``commands``, a crontab's lines, the
``command``/``args`` of a container in a Kubernetes or Compose manifest, an Ansible task's
``shell``/``command`` (and its ``uri`` request whose body looks up a file or a variable, read
as the ``curl`` it is), a Maven ``exec`` plugin's or an Ant ``<exec>``'s program and arguments,
a CMake ``execute_process``/``add_custom_command`` ``COMMAND``, a Windows scheduled task's
``<Exec>``, a CI pipeline's or a task runner's steps (GitLab CI ``script``, Buildkite
``command``, a go-task or mise task as ``tasks`` reads it, a Jenkinsfile's
``sh``/``bat``/``powershell``), an XDG autostart entry's ``Exec=`` (run at every login). The skill
ships the file and tells the agent to install or apply it; from then on the commands run
without anyone reading them, so they are read as the shell they are
(``scanner._analyse_runner_commands``). Each tool's own spelling of the user's home
(``{{ ansible_env.HOME }}``, ``${user.home}``, ``$ENV{HOME}``, ``%USERPROFILE%``) is read as
``~``, so the stores under it are recognised."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

from grading import linear
from grading.tier1 import tasks

_UNIT_EXEC = linear.compile(
    r"(?m)^[ \t]*Exec(?:Start|StartPre|StartPost|Stop|StopPost|Reload|Condition)[ \t]*=[ \t]*"
    r"[-@+!:]*([^\n]+)$"
)
"""``ExecStart=/bin/sh -c '…'`` (the prefixes ``-@+!:`` change how systemd runs it, not what)."""
_TOX_COMMANDS = linear.compile(
    r"(?m)^[ \t]*commands(?:_pre|_post)?[ \t]*=[ \t]*([^\n]*(?:\n[ \t]+[^\n]+)*)"
)
"""A tox environment's ``commands = …`` with its indented continuation lines, one command each."""
_DESKTOP_EXEC = linear.compile(r"(?m)^[ \t]*(?:Exec|TryExec)[ \t]*=[ \t]*([^\n]+)$")
"""A desktop entry's command (``~/.config/autostart/*.desktop`` runs it at every login)."""
_SHELL_C = re.compile(r"^\s*(?:\S*/)?(?:ba|da|z)?sh\s+-c\s+(.+?)\s*$", re.S)
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
_HOME = re.compile(
    r"\{\{-?\s*(?:ansible_env\.HOME|ansible_user_dir|lookup\(\s*['\"]env['\"]\s*,\s*['\"]HOME['\"]\s*\))"
    r"\s*-?\}\}|\$\{(?:user\.home|env\.HOME|env\.USERPROFILE)\}|\$ENV\{HOME\}|%(?:USERPROFILE|HOME)%",
    re.IGNORECASE,
)
"""The user's home as a build, provisioning or scheduling tool spells it."""
_ANSIBLE_TASK = re.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?(?:ansible\.(?:builtin|windows)\.)?"
    r"(?:shell|command|raw|win_shell|win_command)[ \t]*:[ \t]*([^\n#]*)$"
)
_ANSIBLE_PLAY = re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?(?:hosts|tasks|handlers)[ \t]*:")
"""An Ansible play or task list: its ``shell``/``command`` values are commands."""
_ANSIBLE_URI = re.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?(?:ansible\.builtin\.)?(?:uri|get_url)[ \t]*:[ \t]*$"
)
_URL_FIELD = re.compile(r"(?m)^[ \t]*url[ \t]*:[ \t]*[\"']?(https?://[^\s\"']+)")
_LOOKUP = re.compile(r"lookup\(\s*['\"](file|env)['\"]\s*,\s*['\"]([^'\"]{1,200})['\"]\s*\)")
"""An Ansible lookup of a file's contents or an environment variable, put into a request."""
_XML_ELEMENT = re.compile(r"<(executable|argument|Command|Arguments)>([^<]{0,2000})</\1>")
_ANT_EXEC = re.compile(
    r"<exec\b[^>]*\bexecutable=\"([^\"]{1,200})\"[^>]*>(.{0,4000}?)</exec>", re.S
)
_ANT_ARG = re.compile(r"<arg\b[^>]*\b(?:value|line)=\"([^\"]{0,2000})\"")
_CMAKE_CALL = re.compile(
    r"\b(?:execute_process|add_custom_command|add_custom_target)\s*\(([^()]{0,4000})\)", re.I
)
_CMAKE_SET = re.compile(r"\bset\s*\(\s*(\w{1,60})\s+\"([^\"\n]{0,400})\"\s*\)", re.I)
_CMAKE_KEYWORD = re.compile(
    r"^(?:COMMAND|WORKING_DIRECTORY|OUTPUT_\w+|ERROR_\w+|RESULT_\w+|INPUT_FILE|TIMEOUT|DEPENDS"
    r"|BYPRODUCTS|COMMENT|VERBATIM|USES_TERMINAL|ALL|OUTPUT|ECHO_\w+|COMMAND_\w+|ENCODING)$"
)
_CMAKE_WORD = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s"]+)')
_STEP_KEY = re.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?(?:script|before_script|after_script|cmds|commands|command)"
    r"[ \t]*:[ \t]*([^\n#]*)$"
)
_PIPELINE = re.compile(
    r"(?m)^[ \t]*(?:-[ \t]+)?(?:stages|steps|tasks|jobs|image|script|before_script)[ \t]*:"
)
"""A CI pipeline's file: GitLab CI, Buildkite, Drone, Woodpecker."""
_TASK_ITEM = re.compile(r"^(?:cmd|command|script)[ \t]*:[ \t]*")
_GROOVY_STEP = re.compile(
    r"\b(?:sh|bat|powershell|pwsh)\s*\(?\s*(?:script\s*:\s*)?"
    r"(\'\'\'|\"\"\"|'|\")(.{1,4000}?)(?<!\\)\1",
    re.S,
)
"""A Jenkinsfile's shell step: ``sh 'make'``, ``sh(script: "…")``, ``sh '''…'''``."""
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
    if tasks.is_task_file(path):  # go-task and mise: read by their own reader, blocks whole
        yield from tasks.commands(path, text)
        return
    lowered = path.lower()
    if "[Service]" in text:  # systemd's specifiers: %h the user's home, %u the user's name
        for match in _UNIT_EXEC.finditer(text):
            yield match.start(1), match.group(1).replace("%h", "~").replace("%u", "user")
    if "[Desktop Entry]" in text:
        for match in _DESKTOP_EXEC.finditer(text):
            script = _SHELL_C.match(match.group(1))
            command = _unquoted(script.group(1)) if script else match.group(1)
            yield match.start(1), command
    if "[testenv" in text:
        for match in _TOX_COMMANDS.finditer(text):
            yield from _lines(match.start(1), match.group(1))
    if not lowered.endswith((".md", ".markdown", ".py", ".js", ".ts", ".json", ".yaml", ".yml")):
        yield from ((m.start(1), m.group(1)) for m in _CRON_LINE.finditer(text))
    if lowered.endswith((".yaml", ".yml")) and _IMAGE.search(text):
        yield from _container_commands(text)
    if lowered.endswith((".yaml", ".yml")) and _ANSIBLE_PLAY.search(text):
        yield from _ansible_commands(text)
        yield from _ansible_requests(text)
    if lowered.endswith((".xml", ".pom")) or "<exec" in text:
        yield from _xml_commands(text)
    if lowered.endswith((".cmake", "cmakelists.txt")):
        yield from _cmake_commands(text)
    if lowered.endswith((".yaml", ".yml")) and _PIPELINE.search(text):
        yield from _step_commands(text)
    if lowered.rsplit("/", 1)[-1].startswith("jenkinsfile") or lowered.endswith(".groovy"):
        yield from ((m.start(2), m.group(2)) for m in _GROOVY_STEP.finditer(text))


_POWERSHELL = re.compile(
    r"(?is)^\s*(?:\S*[\\/])?(?:powershell|pwsh)(?:\.exe)?\b[^\n]*?\s-(?:c|command)\s+(.+)$"
)


def powershell_script(command: str) -> str | None:
    """The script of ``powershell -Command "…"`` (a scheduled task's usual action), which the
    PowerShell reader reads, not the shell's."""
    match = _POWERSHELL.match(command)
    return None if match is None else _unquoted(match.group(1).strip())


def _home(command: str) -> str:
    return _HOME.sub("~", command)


def _ansible_commands(text: str) -> Iterator[tuple[int, str]]:
    """An Ansible task's ``shell``/``command`` (``ansible.builtin.shell: …``), a plain value or
    a block scalar; its ``cmd:`` form is read by the container reader's plain values."""
    for key in _ANSIBLE_TASK.finditer(text):
        indent, rest = len(key.group(1)), key.group(2).strip()
        if rest in ("", "|", ">", "|-", ">-"):
            for offset, command in _block(text, key.end(), indent, scalar=True):
                joined = command if rest.startswith("|") else command.replace("\n", " ")
                yield offset, _home(joined)
        else:
            yield key.start(2), _home(_unquoted(rest))


def _ansible_requests(text: str) -> Iterator[tuple[int, str]]:
    """An Ansible ``uri`` task whose fields take a file's contents or an environment variable
    by a ``lookup``: the request it makes, as the ``curl`` that would make it."""
    for key in _ANSIBLE_URI.finditer(text):
        block = "\n".join(
            line for _, line in _block(text, key.end(), len(key.group(1)), scalar=True)
        )
        url = _URL_FIELD.search(block)
        if url is None:
            continue
        for lookup in _LOOKUP.finditer(block):
            kind, name = lookup.groups()
            data = f"@{_home(name)}" if kind == "file" else f'"${name}"'
            yield key.start(), f"curl --data-binary {data} {url.group(1)}"


def _xml_commands(text: str) -> Iterator[tuple[int, str]]:
    """A Maven ``exec`` plugin's ``<executable>`` with its ``<argument>``s, a scheduled task's
    ``<Command>`` with its ``<Arguments>``, an Ant ``<exec executable=…>`` with its ``<arg>``s:
    one command line each (a shell's ``-c`` script is its own command)."""
    items: list[tuple[int, str]] = []
    for element in _XML_ELEMENT.finditer(text):
        name, value = element.group(1), html.unescape(element.group(2).strip())
        if name in ("executable", "Command") and items:
            yield from _as_commands(items[0][0], items)
            items = []
        if name == "Arguments":
            if items:
                items[-1] = (items[-1][0], items[-1][1] + " " + _home(value))
            continue
        items.append((element.start(2), _home(value)))
    if items:
        yield from _as_commands(items[0][0], items)
    for ant in _ANT_EXEC.finditer(text):
        words = [(ant.start(1), _home(html.unescape(ant.group(1))))]
        words += [
            (ant.start(2) + a.start(1), _home(html.unescape(a.group(1))))
            for a in _ANT_ARG.finditer(ant.group(2))
        ]
        yield from _as_commands(ant.start(1), words)


def _cmake_commands(text: str) -> Iterator[tuple[int, str]]:
    """Each ``COMMAND`` of a CMake call that runs at configure or build time, its ``${VAR}``
    filled from the file's ``set(VAR "value")``."""
    values = {m.group(1): m.group(2) for m in _CMAKE_SET.finditer(text)}
    for call in _CMAKE_CALL.finditer(text):
        words: list[tuple[int, str]] = []
        running = False
        for word in _CMAKE_WORD.finditer(call.group(1)):
            bare = word.group(2)
            if bare is not None and _CMAKE_KEYWORD.match(bare):
                if words:
                    yield from _as_commands(words[0][0], words)
                words, running = [], bare == "COMMAND"
                continue
            if running:
                value = word.group(1) if word.group(1) is not None else bare or ""
                value = re.sub(
                    r"\$\{(\w{1,60})\}", lambda m: values.get(m.group(1), m.group()), value
                )
                words.append((call.start(1) + word.start(), _home(value)))
        if words:
            yield from _as_commands(words[0][0], words)


def _step_commands(text: str) -> Iterator[tuple[int, str]]:
    """The steps of a CI pipeline or a task runner: each item of a ``script``/``cmds``/
    ``commands`` list is a command line of its own (a Taskfile's ``- cmd: …`` too), a block
    scalar one script, a plain value one command."""
    for key in _STEP_KEY.finditer(text):
        indent, rest = len(key.group(1)), key.group(2).strip()
        if rest.startswith("["):
            yield from ((key.start(2), word) for word in _flow_list(rest))
        elif rest in ("", "|", ">", "|-", ">-"):
            for offset, item in _block(text, key.end(), indent, scalar=bool(rest)):
                yield offset, _TASK_ITEM.sub("", item, count=1)
        else:
            yield key.start(2), _unquoted(rest)


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
