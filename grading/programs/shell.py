"""Shell scripts (and shell code blocks) read as programs, with tree-sitter's bash grammar.

Words are folded the way the shell would expand them where the values are known: quoting and
concatenation (``"$HOME/.s""sh"``), variables assigned earlier, ``$HOME``/``~``. A command is
then read for what it does with its operands:

* a *source*: a read, copy or archive of a secret store (``cat``, ``tar``, ``cp``, ``base64``…
  on a sensitive path), the environment (``env``, ``printenv``), a keychain query; its output,
  the file it writes and the variable that captures it carry the secret on;
* a *fetch*: ``curl``/``wget`` output, captured or piped;
* a *decoder*: ``base64 -d``, ``xxd -r``, ``rev``;
* a *sink*: a network tool sending data (``curl -d/-F/-T/--data``, ``wget --post``, ``nc``,
  ``scp``, ``rsync`` to a remote, DNS lookups) — fed by a pipe, a captured variable or a file
  written from a source;
* *execution*: an interpreter fed by a pipe, ``eval``/``sh -c`` of a captured value, ``bash
  <(…)``, ``source`` of a downloaded file. ``python -c "…"`` is read as Python;
* *functions*: a call of a function the script defines — or one defined in a file it
  ``source``s, given to ``analyse`` as a library — walks the function's body with ``$1``…``$9``,
  ``$@`` and ``$*`` bound to the call's arguments (``send() { curl -d "$1" …; }; send "$(env)"``);
* *destruction* (``destruction``): ``rm -r`` or ``find … -delete`` of the home folder, ``.git``,
  backups or a place outside the skill; SQL that drops schemas; git commands that together throw
  history away. ``printf '\x68…'`` is folded like any other decoder.

The walk is linear in the script and bounded (MAX_NODES).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise
from typing import Any

from grading.programs import destruction, sensitive
from grading.programs import javascript as javascript_programs
from grading.programs import powershell as powershell_programs
from grading.programs import python as python_programs
from grading.programs.facts import (
    DECODED_EXEC,
    DECODED_STRING,
    DESTROYS_DATA,
    FETCH_EXEC,
    NETWORK_SEND,
    REPO_FLOW,
    SECRET_FLOW,
    SECRET_READ,
    Fact,
    per_block,
)

MAX_NODES = 100_000
MAX_SOURCE = 512 * 1024
SECRET, FETCHED, DECODED = "secret", "fetched", "decoded"
REPO = "repository"
"""The whole repository: a ``git bundle`` or ``git archive`` of it (the user's code)."""
ENV_SECRET = "env-secret"
"""One named secret (a CI secret): its own service's credential in a header, a leak as data."""
NAMED = "named"
"""A variable the script does not set whose name is a secret's (``$GITHUB_TOKEN``): the usual
way a tool is given its credential, so it counts only where no credential belongs — encoded
(``printf``, ``base32``…) into the name a DNS lookup resolves."""
_READERS = frozenset(
    {"cat", "tar", "zip", "gzip", "cp", "rsync", "base64", "head", "tail", "openssl", "xxd", "less",
     "more", "strings", "sqlite3", "find", "ls", "7z", "grep"}
)  # fmt: skip
_ENV = frozenset({"env", "printenv", "set", "export"})
_FETCHERS = frozenset({"curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod"})
_SEND_FLAGS = ("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form",
               "-T", "--upload-file", "--post-data", "--post-file", "--json")  # fmt: skip
_NET_SENDERS = frozenset(
    {"nc", "ncat", "netcat", "socat", "scp", "sftp", "telnet", "websocat", "wscat",
     "sendmail", "mail", "mailx", "mutt", "msmtp", "ssmtp", "swaks"}
)  # fmt: skip
"""Tools that send what they are given to a host: raw sockets, copies, WebSocket clients, mail
(what ``sendmail``/``mail`` read on their input goes to the address they name)."""
_DNS = frozenset({"dig", "nslookup", "host", "drill"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash"})
_INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "perl", "ruby", "php",
     "pwsh", "powershell", "iex", "invoke-expression"}
)  # fmt: skip


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@dataclass
class _Value:
    text: str | None = None
    labels: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Function:
    body: Any
    source: bytes
    offsets: list[int]
    sourced: bool
    """Defined in a file the script sources: what its body does is reported at the call."""


MAX_CALL_DEPTH = 4
_POSITIONAL = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*")


@dataclass
class _State:
    source: bytes
    base: int
    offsets: list[int]
    """Character offset of each byte (built only for non-ASCII text)."""
    env: dict[str, _Value] = field(default_factory=dict)
    files: dict[str, frozenset[str]] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    seen: set[tuple[str, int]] = field(default_factory=set)
    nodes: int = 0
    fetched_from: list[str] = field(default_factory=list)
    """Hosts downloads came from (an execution of downloaded text names them)."""
    git: list[tuple[list[str], Any]] = field(default_factory=list)
    """The git commands of the script (their words after ``git``), for ``destruction``."""
    created: set[str] = field(default_factory=set)
    """Databases the script creates itself (``createdb``): restoring over one loses nothing."""
    functions: dict[str, _Function] = field(default_factory=dict)
    calling: tuple[str, ...] = ()
    """The functions being walked for a call, innermost last (no recursion)."""
    anchor: tuple[int, int] | None = None
    """(byte, offset) of the call a sourced function's facts are reported at."""
    committed: bool = False
    """A commit's message or files carry a secret: a later ``git push`` publishes it."""
    staged: bool = False
    """``git add`` staged a file the script (or one run before it) wrote a secret into."""

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def offset(self, node: Any) -> int:
        byte = node.start_byte
        return self.base + (self.offsets[byte] if self.offsets else byte)

    def fact(
        self, kind: str, node: Any, detail: str, hosts: tuple[str, ...] = (), store: bool = False
    ) -> None:
        byte, offset = self.anchor or (node.start_byte, self.offset(node))
        key = (kind, byte)
        if key not in self.seen:
            self.seen.add(key)
            self.facts.append(Fact(kind, offset, detail[:200], hosts, store))


def analyse(
    text: str,
    base: int = 0,
    secrets: dict[str, str] | None = None,
    libraries: tuple[str, ...] = (),
    before: tuple[str, ...] = (),
) -> list[Fact]:
    """The facts of the shell script ``text`` (offsets shifted by ``base``); ``secrets`` names
    variables the script starts with that carry a label (a CI workflow's secrets);
    ``libraries``: the texts of the files it sources, whose functions and variables it uses;
    ``before``: the scripts the instructions run before it, whose files it finds written (a
    secret gathered into a file by one script and committed and pushed by the next)."""
    carried = {name: frozenset({label}) for name, label in (secrets or {}).items()}
    return _session_step(text, base, carried, libraries, worth=True, before=before)[0]


Carried = dict[str, frozenset[str]]
"""Variables a block hands the blocks after it: name → the labels of its value."""


def _session_step(
    text: str,
    base: int,
    carried: Carried,
    libraries: tuple[str, ...],
    *,
    worth: bool,
    before: tuple[str, ...] = (),
) -> tuple[list[Fact], Carried]:
    """The facts of one script and the labelled variables it leaves set. ``worth`` False: the
    script is read for its variables only (a block that only gathers, for a later one)."""
    if len(text) > MAX_SOURCE:
        return [], carried
    if worth and not (_worth(text) or any(map(_worth, libraries))):
        return [], carried
    data, offsets = _encoded(text)
    state = _State(data, base, offsets)
    for earlier in before:
        state.files.update(_files_written(earlier))
    state.env.update({name: _Value(None, labels) for name, labels in carried.items()})
    for library in libraries:
        if len(library) <= MAX_SOURCE:
            _load_library(library, state)
    tree = _parser().parse(data)
    _walk(tree.root_node, state)
    lost = destruction.destroys_history([words for words, _ in state.git])
    if lost is not None:
        state.fact(DESTROYS_DATA, state.git[0][1], f"git: {lost}")
    left = {name: value.labels for name, value in state.env.items() if value.labels}
    return (state.facts if worth else []), left


def blocks(
    text: str,
    regions: tuple[tuple[int, int], ...],
    secrets: dict[str, str] | None = None,
    libraries: tuple[str, ...] = (),
    before: tuple[str, ...] = (),
    *,
    session: bool = False,
) -> Iterator[Fact]:
    """The facts of each block of ``text`` (``before`` as for ``analyse``). With ``session``,
    the blocks are one session, as an agent carrying out a document's procedure runs them: a
    variable a block fills from a secret store (``BUNDLE=$(cat .env)``, in a loop or not) is the
    same secret when a later block sends it. A block with nothing to report that assigns from a
    command is then read for its variables only, when a later block has something to report."""
    if not session or len(regions) < 2:
        return per_block(lambda block: analyse(block, 0, secrets, libraries, before), text, regions)
    return _session(text, regions, secrets, libraries, before)


def _session(
    text: str,
    regions: tuple[tuple[int, int], ...],
    secrets: dict[str, str] | None,
    libraries: tuple[str, ...],
    before: tuple[str, ...],
) -> Iterator[Fact]:
    worth = [_worth(text[start:end]) for start, end in regions]
    later = [any(worth[index + 1 :]) for index in range(len(regions))]
    carried: Carried = {name: frozenset({label}) for name, label in (secrets or {}).items()}
    read: dict[tuple[str, frozenset[tuple[str, frozenset[str]]]], tuple[list[Fact], Carried]] = {}
    for index, (start, end) in enumerate(regions):
        block = text[start:end]
        reported = worth[index] or bool(libraries)
        if not (reported or (later[index] and ("$(" in block or "`" in block))):
            continue
        key = (block, frozenset(carried.items()))
        if key not in read:
            read[key] = _session_step(block, 0, carried, libraries, worth=reported, before=before)
        found, carried = read[key]
        for fact in found:
            yield replace(fact, offset=fact.offset + start)


def _files_written(text: str) -> dict[str, frozenset[str]]:
    """The files a script writes, with what they carry (its facts are its own file's)."""
    if len(text) > MAX_SOURCE:
        return {}
    data, offsets = _encoded(text)
    state = _State(data, 0, offsets)
    _walk(_parser().parse(data).root_node, state)
    return state.files


def _encoded(text: str) -> tuple[bytes, list[int]]:
    """The script's bytes, and the character offset of each byte (only for non-ASCII text)."""
    data = text.encode("utf-8", "surrogatepass")
    offsets: list[int] = []
    if not text.isascii():
        for index, char in enumerate(text):
            offsets.extend([index] * len(char.encode("utf-8", "surrogatepass")))
        offsets.append(len(text))
    return data, offsets


def _load_library(text: str, state: _State) -> None:
    """The functions and variables a sourced file defines at its top level, known to the
    script from then on (its own commands are facts of its own file)."""
    data, offsets = _encoded(text)
    saved = state.source, state.offsets
    state.source, state.offsets = data, offsets
    for node in _parser().parse(data).root_node.children:
        if node.type == "function_definition":
            _define(node, state, sourced=True)
        elif node.type == "variable_assignment":
            _assignment(node, state)
    state.source, state.offsets = saved


def _define(node: Any, state: _State, *, sourced: bool) -> None:
    name = next((c for c in node.children if c.type == "word"), None)
    body = node.child_by_field_name("body")
    if name is not None and body is not None:
        state.functions[state.text(name)] = _Function(body, state.source, state.offsets, sourced)


def _call(name: str, args: list[_Value], node: Any, state: _State) -> None:
    """A call of a function the script knows: its body walked with the positional parameters
    bound to the arguments, so a secret passed in reaches the sink inside."""
    function = state.functions[name]
    saved_env = {key: state.env.get(key) for key in _POSITIONAL}
    saved = state.source, state.offsets, state.anchor, state.calling
    for index, arg in enumerate(args[:9], 1):
        state.env[str(index)] = arg
    every = frozenset().union(*(a.labels for a in args)) if args else frozenset()
    state.env["@"] = state.env["*"] = _Value(None, every)
    if function.sourced and state.anchor is None:
        state.anchor = (node.start_byte, state.offset(node))
    state.source, state.offsets = function.source, function.offsets
    state.calling = (*state.calling, name)
    _walk(function.body, state)
    state.source, state.offsets, state.anchor, state.calling = saved
    for key, value in saved_env.items():
        if value is None:
            state.env.pop(key, None)
        else:
            state.env[key] = value


_WORDS = ("curl", "wget", "nc ", "ncat", "scp", "rsync", "eval", "base64", "| sh", "|sh", "bash",
          "python", "dig ", "nslookup", "iex", "source", "<(", "rm -", "-delete", "--orphan",
          "websocat", "wscat", "reflog", "push", "DROP ", "drop ", "dropdb", "pg_restore",
          "mongorestore", "printf",
          "powershell", "pwsh", "node", "gs://", "s3://", "blob.core.windows.net",
          "storage blob upload", "aws s3", "gsutil", "gcloud storage", "az storage", "gh api",
          "gh issue", "gh pr", "rclone", "s3cmd", "azcopy", "s_client", "ssh ", "$'",
          "mail")  # fmt: skip


_EXPANDED_COMMAND = re.compile(r"(?m)(?:^|[;&|({]|\bthen\b|\bdo\b)[ \t]*\$\{?[A-Za-z_]")
"""A command whose name is a variable's value (``$A$B -d @f …``, ``${c}rl``): a name assembled
from pieces hides every word of ``_WORDS`` from a lexical look."""


def _worth(text: str) -> bool:
    return any(word in text for word in _WORDS) or _EXPANDED_COMMAND.search(text) is not None


def _walk(node: Any, state: _State) -> None:
    state.nodes += 1
    if state.nodes > MAX_NODES:
        return
    kind = node.type
    if kind == "variable_assignment":
        _assignment(node, state)
        return
    if kind == "pipeline":
        _pipeline(node, state)
        return
    if kind == "function_definition":
        _define(node, state, sourced=False)
    if kind == "for_statement":
        _loop_variable(node, state)
    if kind in ("command", "redirected_statement"):
        _command_statement(node, state)
        return
    for child in node.children:
        _walk(child, state)


def _loop_variable(node: Any, state: _State) -> None:
    """``for f in .env .env.local config.json; do … cat "$f" …``: the loop variable takes each
    listed word in turn, so what the body does with it is done to each. The body is walked
    once, with the variable bound to the first listed word that names a secret store (else to
    the first word): a store read through the variable is read, as when it is named."""
    variable = node.child_by_field_name("variable")
    words = [_word(c, state) for c in node.children_by_field_name("value")]
    if variable is None or not words:
        return
    secret = next((w for w in words if w.text and sensitive.is_sensitive_path(w.text)), None)
    state.env[state.text(variable)] = secret or words[0]


def _assignment(node: Any, state: _State) -> None:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    if name is None:
        return
    state.env[state.text(name)] = _word(value, state) if value is not None else _Value("")


def _word(node: Any, state: _State) -> _Value:
    """The value of a word node, folded where its parts are known."""
    kind = node.type
    if kind in ("word", "string_content", "raw_string", "number"):
        text = state.text(node)
        if kind == "raw_string":
            text = text[1:-1]
        if text.startswith("~"):
            text = "~" + text[1:]
        return _Value(text)
    if kind == "ansi_c_string":  # $'\x63\x75\x72\x6c' is "curl"
        return _Value(_ansi_c(state.text(node)[2:-1]))
    if kind in ("string", "concatenation"):
        parts = [_word(child, state) for child in node.children if child.type not in ('"',)]
        labels = frozenset().union(*(p.labels for p in parts)) if parts else frozenset()
        if all(p.text is not None for p in parts):
            return _Value("".join(p.text or "" for p in parts), labels)
        return _Value(None, labels)
    if kind in ("simple_expansion", "expansion"):
        names = [c for c in node.children if c.type in ("variable_name", "special_variable_name")]
        name = state.text(names[0]) if names else ""
        if name in ("HOME", "USERPROFILE"):
            return _Value("~")
        if name not in state.env and sensitive.SECRET_NAME.search(name):
            return _Value(None, frozenset({NAMED}))
        return state.env.get(name, _Value(None))
    if kind in ("command_substitution", "process_substitution"):
        printed = _printed(node, state)
        if printed is not None:
            return printed
        labels = _substitution(node, state)
        return _Value(None, labels)
    return _Value(None)


_ANSI_C_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{4})|(.))")
_ANSI_C_LETTERS = {"n": "\n", "t": "\t", "r": "\r", "e": "\x1b", "a": "\a", "\\": "\\", "'": "'"}


def _ansi_c(body: str) -> str:
    """The text of a ``$'…'`` string, its escapes undone (hex, octal, ``\\u``, letters)."""

    def one(match: re.Match[str]) -> str:
        hexa, octal, uni, other = match.groups()
        if hexa or octal or uni:
            return chr(int(hexa or uni, 16) if (hexa or uni) else int(octal, 8))
        return _ANSI_C_LETTERS.get(other, other)

    return _ANSI_C_ESCAPE.sub(one, body)


def _substitution(node: Any, state: _State) -> frozenset[str]:
    """The labels of what a ``$( … )`` or ``<( … )`` produces."""
    labels: set[str] = set()
    for child in node.children:
        stdin: frozenset[str] = frozenset()
        if child.type == "redirected_statement":  # ``$(cat ~/.npmrc 2>/dev/null)``
            stdin = _stdin(child, state)  # ``$(base64 < ~/.ssh/id_rsa)``
            child = next((c for c in child.children if c.type in ("command", "pipeline")), child)
        if child.type == "command":
            labels |= _command_labels(child, state, stdin)
        elif child.type == "pipeline":
            labels |= _pipeline(child, state)
    return frozenset(labels)


_NOT_OPERANDS = ("command_name", "file_redirect", "herestring_redirect", "variable_assignment")


def _command_parts(node: Any, state: _State) -> tuple[str, list[_Value], Any]:
    name_node = node.child_by_field_name("name")
    name = state.text(name_node).strip().lower() if name_node is not None else ""
    if name.startswith("$") and name_node is not None and name_node.named_children:
        folded = _word(name_node.named_children[0], state).text  # c=curl; $c -d @f …
        name = folded.strip().lower() if folded else name
    name = name.rsplit("/", 1)[-1]
    args = [_word(child, state) for child in node.children if child.type not in _NOT_OPERANDS]
    return name, args, name_node


def _command_labels(
    node: Any, state: _State, piped: frozenset[str] = frozenset()
) -> frozenset[str]:
    """What a command's output carries, and the facts it is a sink or executor of."""
    name, args, _ = _command_parts(node, state)
    known = name in state.functions and name not in state.calling
    if known and len(state.calling) < MAX_CALL_DEPTH:
        _call(name, args, node, state)
    texts = [a.text or "" for a in args]
    carried = piped.union(*(_as_data(a, i, texts, name) for i, a in enumerate(args)))
    labels: set[str] = set()
    if name in _READERS and not _quiet(name, texts) and any(_secret_file(t) for t in texts):
        state.fact(SECRET_READ, node, f"{name} {' '.join(texts)[:120]}")
        labels.add(SECRET)
    if name in _ENV and not args:
        labels.add(SECRET)
    if name == "security" and any("password" in t or "keychain" in t for t in texts):
        labels.add(SECRET)
    if name in ("base64", "base32", "basenc", "xxd", "openssl") and any(
        t in ("-d", "--decode", "-D", "-r", "-a") for t in texts
    ):
        labels.add(DECODED)
    if name == "rev":
        labels.add(DECODED)
    if name == "git" and texts[:1] == ["archive"]:
        labels.add(REPO)
    if name in _FETCHERS and not _sends(texts):
        labels.add(FETCHED)
        state.fetched_from.extend(_hosts(texts))
    if name in ("python", "python3") and "-c" in texts:
        index = texts.index("-c")
        if index + 1 < len(texts) and texts[index + 1]:
            for fact in python_programs.analyse(texts[index + 1], 0):
                state.fact(fact.kind, node, f"python -c: {fact.detail}", fact.hosts, fact.store)
    if name in _SHELLS and "-c" in texts:  # sh -c '…': the quoted script is a script too
        index = texts.index("-c")
        if index + 1 < len(texts) and texts[index + 1]:
            for fact in analyse(texts[index + 1], 0):
                state.fact(fact.kind, node, f"{name} -c: {fact.detail}", fact.hosts, fact.store)
    inline = next((t for t in ("-e", "--eval", "-p", "--print") if t in texts), None)
    if name in ("node", "nodejs", "bun", "deno") and inline is not None:
        index = texts.index(inline)
        if index + 1 < len(texts) and texts[index + 1]:
            for fact in javascript_programs.analyse(texts[index + 1], 0):
                state.fact(
                    fact.kind, node, f"{name} {inline}: {fact.detail}", fact.hosts, fact.store
                )
    if name.removesuffix(".exe") in ("powershell", "pwsh"):
        encoded = powershell_programs.encoded_command(state.text(node))
        if encoded is not None:
            for fact in powershell_programs.encoded_facts(encoded[1]):
                state.fact(
                    fact.kind,
                    node,
                    f"powershell -EncodedCommand: {fact.detail}",
                    fact.hosts,
                    fact.store,
                )
    _destroys(name, texts, node, state)
    _commits(name, texts, frozenset(carried), node, state)
    from_files = frozenset(_file_labels(texts + _unfolded(node, state), state))
    _sink(name, texts, frozenset(carried) | from_files, node, state)
    _execute(name, texts, frozenset(carried) | from_files, node, state)
    return frozenset(labels) | (frozenset(carried) if name in _PASS_THROUGH else frozenset())


_KEY_FLAGS = frozenset(
    {"-i", "--key", "--cert", "-E", "--cacert", "--capath", "-o", "-F", "--netrc-file", "-K",
     "--config", "--proxy-cert", "--proxy-key"}
)  # fmt: skip
"""Flags whose value is a key the tool authenticates with (``scp -i ~/.ssh/id_rsa``), a config
or an option: never what is sent (curl's ``-F`` is a form field, read by its ``@``)."""


def _sends_store(texts: list[str]) -> bool:
    """A sending command given a secret store as an operand or an upload (``curl -T
    ~/.ssh/id_rsa``, ``-F f=@~/.aws/credentials``, ``--data-binary @~/.netrc``, ``scp
    ~/.ssh/id_rsa host:``, ``wget --post-file=~/.aws/credentials``), not as its own key."""
    for index, text in enumerate(texts):
        if index > 0 and texts[index - 1] in _KEY_FLAGS and "@" not in text:
            continue
        if text.startswith("-") and ("=" not in text or text.split("=", 1)[0] in _KEY_FLAGS):
            continue
        uploaded = text.split("@", 1)[1] if "@" in text else text.split("=", 1)[-1]
        if uploaded.startswith(("~", "/", "$", ".")) and sensitive.is_sensitive_path(uploaded):
            return True
    return False


def _as_data(arg: _Value, index: int, texts: list[str], name: str) -> frozenset[str]:
    """The labels an argument carries as data. A named secret is data only as the value of a
    send flag (``-d "k=$TOKEN"``); in a header, a user or the URL (``-H "Authorization: Bearer
    $TOKEN"``, ``curl -X POST "$WEBHOOK_URL"``) it authenticates or addresses the request. A
    secret-named variable of the environment (``NAMED``) is data only to a command that passes
    it on or to a DNS lookup."""
    if NAMED in arg.labels and name not in _PASS_THROUGH and name not in _DNS:
        return _as_data(_Value(arg.text, arg.labels - {NAMED}), index, texts, name)
    if ENV_SECRET not in arg.labels:
        return arg.labels
    value = index > 0 and _send_flag(texts[index - 1])
    glued = texts[index].startswith(("--data", "--json", "--form")) or (
        texts[index][:2] in ("-d", "-F") and len(texts[index]) > 2
    )
    return arg.labels if value or glued else arg.labels - {ENV_SECRET}


_PASS_THROUGH = frozenset({"echo", "printf", "base64", "base32", "basenc", "gzip", "xxd", "od",
                           "tr", "sed", "awk", "cut", "fold", "cat", "tee", "rev", "head", "tail",
                           "openssl", "zip", "tar", "sort", "jq", "grep", "egrep"})  # fmt: skip


_FLAG_CLUSTER = re.compile(r"-[sSLfkvigNq#]+[dFT]")
"""Short options run together whose last one takes what is sent (``curl -sT -``, ``-fsSd``):
the options before it take no value, so the word after the cluster is the send's."""


def _send_flag(text: str) -> bool:
    """Whether ``text`` is an option whose value is what a request sends."""
    return text in _SEND_FLAGS or _FLAG_CLUSTER.fullmatch(text) is not None


def _sends(texts: list[str]) -> bool:
    return any(
        _send_flag(t)
        or t.startswith(("--data", "-d@", "-F", "--form", "--post-", "--upload-file=", "--body-"))
        for t in texts
    )


def _unfolded(node: Any, state: _State) -> list[str]:
    """The operands of a command as written, unquoted (``"$tmp/$repo.bundle"`` →
    ``$tmp/$repo.bundle``): a file named through a value the analysis cannot fold (``tmp=$(mktemp
    -d)``) is still the same file wherever the script writes the same words."""
    return [
        state.text(child).strip("\"'") for child in node.children if child.type not in _NOT_OPERANDS
    ]


def _file_labels(texts: list[str], state: _State) -> set[str]:
    """Labels of files the command reads by name (``-F f=@/tmp/x.tgz``, ``< file``)."""
    labels: set[str] = set()
    for text in texts:
        for name, carried in state.files.items():
            if name and name in text:
                labels |= carried
    return labels


def _hosts(texts: list[str]) -> tuple[str, ...]:
    return tuple(h for t in texts if (h := sensitive.host_of(t)))


def _publishes(name: str, texts: list[str]) -> bool:
    """``gh gist create`` / ``gh gist edit``: the files named are uploaded to a gist, public or
    secret, that anyone with its address can read — a send whatever the host."""
    words = [t.strip("\"'") for t in texts[:3]]
    return name == "gh" and "gist" in words and bool({"create", "edit"} & set(words))


_BUCKET = re.compile(
    r"(?i)^(?:gs|s3)://([\w.-]{3,63})|^https://(\w{3,24})\.blob\.core\.windows\.net"
)
_CLOUD_TOOLS = {"gsutil": (), "gcloud": ("storage",), "aws": ("s3",), "azcopy": (), "rclone": ()}
_COPY_VERBS = frozenset({"cp", "mv", "rsync", "sync", "copy", "move"})


def _uploads(name: str, texts: list[str]) -> str | None:
    """The bucket a cloud storage copy uploads to (``gsutil cp -r dir gs://b/``, ``aws s3 cp f
    s3://b``, ``azcopy copy f https://a.blob.core.windows.net/c``, ``az storage blob upload
    --account-name a``): the last operand, when it is a bucket and a local file comes before."""
    words = [t.strip("\"'") for t in texts]
    if (
        name == "az"
        and words[:2] == ["storage", "blob"]
        and words[2:3] in (["upload"], ["upload-batch"])
    ):
        index = words.index("--account-name") if "--account-name" in words else -1
        return words[index + 1] if 0 <= index < len(words) - 1 else "a storage account"
    if name not in _CLOUD_TOOLS:
        return None
    operands = [w for w in words if not w.startswith("-")]
    group = _CLOUD_TOOLS[name]
    if tuple(operands[: len(group)]) != group:
        return None
    operands = operands[len(group) :]
    if len(operands) < 3 or operands[0] not in _COPY_VERBS:
        return None
    bucket = _BUCKET.match(operands[-1])
    if bucket is None or _BUCKET.match(operands[-2]):
        return None
    return bucket.group(1) or bucket.group(2)


_STORAGE_VERBS = frozenset({"cp", "mv", "sync", "rsync", "upload", "upload-batch", "put", "copy",
                            "copyto", "move"})  # fmt: skip
_RCLONE_REMOTE = re.compile(r"\A(?![A-Za-z]:[\\/])[A-Za-z][\w-]{0,40}:(?!//)")
"""An rclone remote (``photos-remote:library``), not a URL nor a Windows drive letter."""
_FIELD_FLAGS = frozenset({"-f", "-F", "--field", "--raw-field", "--input", "-b", "--body",
                          "--body-file"})  # fmt: skip


_MESSAGE_FLAGS = frozenset({"-m", "--message", "--trailer", "-F", "--file"})
"""Flags of ``git commit`` whose value becomes the commit message: pushed with the branch, it
is read by everyone who can read the repository, for as long as the history is kept."""


def _stores_remotely(name: str, texts: list[str], written: list[str]) -> str | None:
    """Where a copy to cloud storage or a comment on a forge puts what it is given — ``aws s3
    cp``, ``gsutil cp``, ``gcloud storage cp``, ``s3cmd put``, ``rclone copy`` to a remote,
    ``azcopy copy``, ``az storage blob upload``, ``gh api`` with fields, ``gh issue|pr
    comment|create`` with a body, ``git commit -m|--trailer`` — or None. Each is a send whose
    reader is whoever owns the bucket or reads the thread or the history; only a secret carried
    there is reported (a deploy to the project's own bucket is no finding). ``written``: the
    operands as written, for a bucket named through a value the analysis cannot fold."""
    words = [t.strip("\"'") for t in texts[:4]]
    remote = next((t for t in texts + written if t.startswith(("s3://", "gs://"))), None)
    if name in ("aws", "gsutil", "gcloud", "s3cmd") and remote is not None:
        verbs = words[1:3] if name in ("aws", "gcloud") else words[:2]
        return remote if _STORAGE_VERBS & set(verbs) else None
    if name == "rclone" and _STORAGE_VERBS & set(words[:1]):
        return next((t for t in texts[2:] if _RCLONE_REMOTE.match(t)), None)
    if name == "azcopy" and _STORAGE_VERBS & set(words[:1]):
        return next((t for t in texts[2:] if t.startswith("https://")), None)
    if name == "az" and words[:2] == ["storage", "blob"] and _STORAGE_VERBS & set(words[2:3]):
        return "Azure blob storage"
    fields = _FIELD_FLAGS & {t.split("=", 1)[0] for t in texts}
    posts = words[:1] == ["api"] or words[1:2] in (["comment"], ["create"])
    if name == "gh" and fields and posts:
        return "a GitHub thread"
    if (
        name == "git"
        and words[:1] == ["commit"]
        and _MESSAGE_FLAGS & {t.split("=", 1)[0] for t in texts}
    ):
        return "a commit message"
    return None


_NAMED_REPO = re.compile(r"^[\w.-]{1,39}/[\w.-]{1,100}$")
"""``owner/name`` written out: a repository the skill names, not one it is given (``$REPO``,
``<owner/repo>``, ``{{repo}}``)."""
_API_THREAD = re.compile(r"^/?repos/([\w.-]{1,39}/[\w.-]{1,100})/(?:issues|pulls)/\d+/comments$")


def _named_thread(name: str, texts: list[str]) -> str | None:
    """The repository, written out by the skill, on whose issue or pull request ``gh`` posts a
    comment (``gh issue comment 1 --repo owner/name --body-file f``, ``gh api
    repos/owner/name/issues/1/comments -f body=…``), or None. Its readers are whoever follows
    that repository — a send to a party the skill chose, as a URL it names is; a comment on the
    user's own pull request (no ``--repo``, or one the user gives) is not."""
    if name != "gh" or not _FIELD_FLAGS & {t.split("=", 1)[0] for t in texts}:
        return None
    words = [t.strip("\"'") for t in texts]
    if words[:1] == ["api"]:
        found = next((m for w in words[1:] if (m := _API_THREAD.match(w))), None)
        return f"github.com/{found.group(1)}" if found else None
    if words[1:2] != ["comment"] or words[:1] not in (["issue"], ["pr"]):
        return None
    for flag, value in pairwise(words):
        if flag in ("--repo", "-R") and _NAMED_REPO.match(value):
            return f"github.com/{value}"
    repo = next((w.split("=", 1)[1] for w in words if w.startswith("--repo=")), "")
    return f"github.com/{repo}" if _NAMED_REPO.match(repo) else None


def _sink(name: str, texts: list[str], carried: frozenset[str], node: Any, state: _State) -> None:
    written = _unfolded(node, state) if "" in texts else texts  # a bucket path built at run time
    bucket = _uploads(name, written if len(written) == len(texts) else texts)
    remote = None if bucket else _stores_remotely(name, texts, _unfolded(node, state))
    if remote is not None and (SECRET in carried or ENV_SECRET in carried or _sends_store(texts)):
        store = SECRET in carried or _sends_store(texts)
        what = "a secret store" if store else "a named secret"
        state.fact(SECRET_FLOW, node, f"{what} is put in {remote} by {name}", _hosts(texts), store)
        return
    thread = _named_thread(name, texts)
    sending = (
        (name in _FETCHERS and _sends(texts))
        or name in _NET_SENDERS
        or (_remote_session(name, texts) and bool(carried & {SECRET, ENV_SECRET}))
        or (name == "rsync" and any(":" in t and "@" in t for t in texts))
        or name in _DNS
        or _publishes(name, texts)
        or bucket is not None
        or thread is not None
    )
    if not sending:
        return
    hosts = (
        _hosts(texts)
        or (("gist.github.com",) if _publishes(name, texts) else ())
        or ((thread,) if thread else ())
        or ((bucket,) if bucket else ())
    )
    state.fact(NETWORK_SEND, node, name, hosts)
    if _sends_store(texts):
        carried = carried | {SECRET}
    if SECRET in carried or ENV_SECRET in carried:
        what = "a secret store" if SECRET in carried else "a named secret"
        state.fact(SECRET_FLOW, node, f"{what} reaches {name}", hosts, SECRET in carried)
    elif NAMED in carried and name in _DNS:
        what = f"a secret of the environment in the name {name} resolves"
        state.fact(SECRET_FLOW, node, what, hosts)
    if REPO in carried and hosts:
        state.fact(REPO_FLOW, node, f"the whole repository reaches {name}", hosts)


def _execute(
    name: str, texts: list[str], carried: frozenset[str], node: Any, state: _State
) -> None:
    executing = (
        name in _INTERPRETERS
        or name in ("eval", "source", ".", "exec")
        or _apple_shell(name, node, state)
    )
    if not executing:
        return
    if FETCHED in carried:
        hosts = _hosts(texts) or tuple(dict.fromkeys(state.fetched_from))
        state.fact(FETCH_EXEC, node, f"{name} runs what was downloaded", hosts)
    elif DECODED in carried:
        state.fact(DECODED_EXEC, node, f"{name} runs what a decoder produced")


def _apple_shell(name: str, node: Any, state: _State) -> bool:
    """``osascript -e "do shell script \"$cmd\""``: AppleScript hands the text to ``sh``, so
    what it is given runs as a shell command would (a LaunchAgent's fetch-and-run loop)."""
    return name == "osascript" and any(
        "do shell script" in text.lower() for text in _unfolded(node, state)
    )


def _pipeline(node: Any, state: _State) -> frozenset[str]:
    carried: frozenset[str] = frozenset()
    for child in node.children:
        if child.type == "command":
            carried = _command_labels(child, state, carried)
        elif child.type == "redirected_statement":
            inner = [c for c in child.children if c.type == "command"]
            if inner:
                carried = _command_labels(inner[0], state, carried | _stdin(child, state))
                _keep_written(child, carried, state)
    return carried


def _commits(
    name: str, texts: list[str], carried: frozenset[str], node: Any, state: _State
) -> None:
    """A secret put in a commit (``git commit -m "$(env)"``, a tag's message) and pushed: the
    repository's remote is the sink, and a public one shows every commit message to anyone."""
    verb = next((t for t in texts if not t.startswith("-")), "") if name == "git" else ""
    if verb == "add" and _stages_secret(texts[1:], state):
        state.staged = True
    if verb in ("commit", "tag") and (carried & {SECRET, ENV_SECRET} or state.staged):
        state.committed = True
    if verb == "push" and state.committed:
        state.fact(NETWORK_SEND, node, "git push")
        state.fact(SECRET_FLOW, node, "a secret in a commit reaches git push", (), True)


_STAGE_ALL = frozenset({"-A", "--all", ".", "*", ":/", "-u", "--update"})


def _stages_secret(paths: list[str], state: _State) -> bool:
    """``git add`` of a file written with a secret, of a folder holding one, or of everything
    (``-A``, ``.``)."""
    written = [
        "/" + path.strip("/").removeprefix("./") + "/"
        for path, labels in state.files.items()
        if labels & {SECRET, ENV_SECRET}
    ]
    if not written:
        return False
    for path in paths:
        if path in _STAGE_ALL:
            return True
        named = "/" + path.strip("/").removeprefix("./") + "/"
        if not path.startswith("-") and any(named in place for place in written):
            return True
    return False


def _remote_session(name: str, texts: list[str]) -> bool:
    """``ssh host …`` and ``openssl s_client -connect host:port``: what they are fed on standard
    input goes to the other end; a session given nothing (``< /dev/null``) sends nothing."""
    return name == "ssh" or (name == "openssl" and "s_client" in texts)


_QUIET = frozenset({"-q", "--quiet", "--silent", "-s", "-c", "--count", "-l", "-L"})


def _quiet(name: str, texts: list[str]) -> bool:
    """``grep -q``/``-c``/``-l`` on a store tells whether a setting is there, how often, or
    which files hold it: none of its contents comes out (``grep -q caching
    ~/.gradle/gradle.properties || echo … >>`` tunes a setting)."""
    return name in ("grep", "egrep") and any(
        t in _QUIET or (t.startswith("-") and not t.startswith("--") and "q" in t) for t in texts
    )


def _secret_file(text: str) -> bool:
    """A store whose contents are secret: a public key (``~/.ssh/id_ed25519.pub``), made to be
    handed to servers and forges, is none."""
    return sensitive.is_sensitive_path(text) and not text.rstrip("\"'").endswith(".pub")


def _stdin(node: Any, state: _State) -> frozenset[str]:
    """What a command reads on its standard input (``nc host 9 < ~/.ssh/id_rsa``, ``ssh host
    'cat > x' < <(tar cz .aws)``, ``openssl s_client … < key``): a store, a file the script
    wrote a secret into, or what a process substitution produces is what it sends."""
    labels: set[str] = set()
    for child in node.children:
        if child.type == "heredoc_redirect":  # ``cat > f <<EOT … $KEY … EOT``: what it expands
            labels |= _heredoc(child, state)
            continue
        if child.type != "file_redirect" or not any(c.type == "<" for c in child.children):
            continue
        for target in child.named_children:
            if target.type == "process_substitution":
                labels |= _substitution(target, state)
            elif target.type in ("word", "string", "raw_string", "concatenation"):
                text = _word(target, state).text or state.text(target).strip("\"'")
                if _secret_file(text):
                    labels.add(SECRET)
                labels |= _file_labels([text], state)
    return frozenset(labels)


def _heredoc(node: Any, state: _State) -> frozenset[str]:
    """The labels of the values a here-document expands into the text it feeds a command."""
    labels: set[str] = set()
    for body in (c for c in node.children if c.type == "heredoc_body"):
        for part in body.named_children:
            if part.type in ("simple_expansion", "expansion"):
                labels |= _word(part, state).labels
            elif part.type == "command_substitution":
                labels |= _substitution(part, state)
    return frozenset(labels)


def _keep_written(node: Any, carried: frozenset[str], state: _State) -> None:
    """What a pipeline carries into the file it ends in (``echo "$S" | base64 > .ctx``): a
    later ``curl --data-binary @.ctx`` sends it."""
    written = _written("", [], node, state)
    if written and carried:
        state.files[written] = state.files.get(written, frozenset()) | carried


def _command_statement(node: Any, state: _State) -> None:
    command = (
        node
        if node.type == "command"
        else next((c for c in node.children if c.type == "command"), None)
    )
    if command is None:
        for child in node.children:
            if child.type == "pipeline":
                _keep_written(node, _pipeline(child, state), state)
            else:
                _walk(child, state)
        return
    labels = _command_labels(command, state, _stdin(node, state))
    name, args, _ = _command_parts(command, state)
    texts = [a.text or "" for a in args]
    written = _written(name, texts, node, state)
    if written and (labels or name in _READERS):
        state.files[written] = labels | (
            frozenset({SECRET}) if any(map(_secret_file, texts)) else frozenset()
        )
    if name in _FETCHERS and written:
        state.files[written] = frozenset({FETCHED})
    bundle = _repository_file(name, texts, _unfolded(command, state))
    if bundle:
        state.files[bundle] = state.files.get(bundle, frozenset()) | {REPO}


def _repository_file(name: str, texts: list[str], written: list[str]) -> str | None:
    """The file a git command writes the repository into: ``git bundle create F --all``, ``git
    archive -o F HEAD`` (as folded, or as written when it cannot be folded)."""
    if name != "git" or not texts:
        return None
    if texts[:2] == ["bundle", "create"] and len(texts) >= 3:
        return texts[2] or (written[2] if len(written) >= 3 else None) or None
    if texts[0] == "archive":
        for index, text in enumerate(texts):
            if text in ("-o", "--output") and index + 1 < len(texts):
                return texts[index + 1] or (
                    written[index + 1] if index + 1 < len(written) else None
                )
            if text.startswith("--output="):
                return text.split("=", 1)[1] or None
    return None


def _written(name: str, texts: list[str], node: Any, state: _State) -> str | None:
    """The file a command writes: ``> file``, ``tar czf file``, ``curl -o file``, ``cp a file``."""
    for child in node.children:
        if child.type == "file_redirect":
            descriptors = [c for c in child.children if c.type == "file_descriptor"]
            if descriptors and state.text(descriptors[0]) not in ("1", "&"):
                continue  # a redirect of stderr is not what the command produces
            targets = [c for c in child.children if c.type in ("word", "string", "concatenation")]
            target = _word(targets[-1], state).text if targets else None
            if target and target != "/dev/null":
                return target
    if name in ("tar", "zip", "7z") and len(texts) >= 2:
        flags = texts[0]
        if name != "tar" or "f" in flags:
            return texts[1]
    if name in ("curl", "wget"):
        for index, text in enumerate(texts):
            if text in ("-o", "--output", "-O", "--output-document") and index + 1 < len(texts):
                return texts[index + 1]
    if name in ("cp", "mv") and len(texts) >= 2:
        return texts[-1]
    return None


_DATABASE_CLIENTS = frozenset({"psql", "mysql", "sqlite3", "mariadb", "cockroach", "clickhouse"})


def _destroys(name: str, texts: list[str], node: Any, state: _State) -> None:
    """``rm -r`` / ``find -delete`` of the user's data, SQL that drops schemas, git history."""
    if name == "git":
        state.git.append(([t for t in texts if t], node))
        return
    if name == "dropdb" or (
        name in _DATABASE_CLIENTS and any(destruction.SQL_DESTRUCTION.search(t) for t in texts if t)
    ):
        state.fact(DESTROYS_DATA, node, f"{name} drops a schema or a database")
        return
    if name == "createdb":
        state.created.update(t for t in texts if t and not t.startswith("-"))
    overwritten = _restored_over(name, texts)
    if overwritten is not None and overwritten not in state.created:
        state.fact(DESTROYS_DATA, node, f"{name} replaces a database: {overwritten or '?'}")
        return
    lost: str | None = None
    operands = [t for t in texts if t and not t.startswith("-")]
    if name == "rm" and any(_recursive(t) for t in texts):
        lost = next((why for t in operands if (why := destruction.valuable(t))), None)
    elif name == "find" and (
        "-delete" in texts or ("-exec" in texts and any(t in ("rm", "shred") for t in texts))
    ):
        start = operands[0] if operands else ""
        names = [
            texts[i + 1].strip("*")
            for i, t in enumerate(texts[:-1])
            if t in ("-name", "-iname", "-path") and texts[i + 1].strip("*")
        ]
        lost = (
            destruction.valuable(start)
            or next((why for n in names if (why := destruction.valuable("x/" + n))), None)
            or destruction.documents(start, names)
        )
    if lost is not None:
        state.fact(DESTROYS_DATA, node, f"{name} deletes {lost}")


_RESTORE_SWITCHES = frozenset("acCeOsvx1")
"""pg_restore's one-letter options that take no value (so may be written together: ``-cC``)."""


def _restored_over(name: str, texts: list[str]) -> str | None:
    """The database a restore empties before it loads a dump (``pg_restore --clean -d db``,
    ``mongorestore --drop``): its name, "" when the script computes it, None for a restore that
    only adds (no clean, no drop) or any other command. What was in it is gone unless a
    snapshot was taken — whatever the dump holds."""
    if name == "mongorestore":
        return "" if "--drop" in texts else None
    if name != "pg_restore":
        return None
    switches = [t[1:] for t in texts if t[:1] == "-" and t[1:2] != "-" and len(t) > 1]
    cleans = "--clean" in texts or any(
        "c" in flags and set(flags) <= _RESTORE_SWITCHES for flags in switches
    )
    if not cleans:
        return None
    for index, text in enumerate(texts):
        if text in ("-d", "--dbname") and index + 1 < len(texts):
            return texts[index + 1]
        if text.startswith("--dbname="):
            return text.removeprefix("--dbname=")
        if text.startswith("-d") and len(text) > 2:
            return text[2:]
    return ""


def _recursive(flag: str) -> bool:
    if flag.startswith("--"):
        return flag == "--recursive"
    return flag.startswith("-") and ("r" in flag or "R" in flag)


def _printed(node: Any, state: _State) -> _Value | None:
    """``$(printf '\\x68\\x74…')``: the text printf spells from escapes, a decoder's output."""
    commands = [c for c in node.children if c.type == "command"]
    if len(commands) != 1:
        return None
    name, args, _ = _command_parts(commands[0], state)
    if name != "printf" or len(args) != 1 or args[0].text is None or "\\" not in args[0].text:
        return None
    try:
        text = args[0].text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return None
    meaning = sensitive.meaningful(text)
    if meaning:
        state.fact(DECODED_STRING, node, f"printf decodes to {meaning}: {text[:120]}")
    return _Value(text, frozenset({DECODED}))
