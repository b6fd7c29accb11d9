"""PowerShell scripts read for the same facts as the other languages, without a syntax tree.

A script is read statement by statement (lines, and ``;`` outside quotes), not as a syntax tree
(``tree-sitter-powershell`` would give one; not adopted yet), with a small folder of the common
ways a value is written: quoted strings with ``$env:USERPROFILE``/``$HOME`` and earlier variables
interpolated, ``+`` concatenation, ``Join-Path``, ``-join [char[]](104, 116, …)``, ``[char]104 +
[char]116``, ``-join ('a', 'b')``, ``-join $s[-1..-99]`` and ``[array]::Reverse($a)`` (reversal),
``[Convert]::FromBase64String`` and ``[Text.Encoding]::…GetString`` (base64). Variables carry
labels as in the Python reading:

* a *source*: ``Get-Content`` (``gc``, ``cat``, ``type``) of a credential store, ``git credential
  fill``, ``cmdkey /list``, ``Get-StoredCredential``, ``vaultcmd``, the whole environment;
* a *fetch*: ``Invoke-WebRequest``/``iwr``, ``Invoke-RestMethod``/``irm`` without a body,
  ``DownloadString``/``DownloadFile``;
* *execution*: ``Invoke-Expression``/``iex``, ``[scriptblock]::Create``, ``& (…)``;
* a *sink*: the same web cmdlets with ``-Body``/``-InFile``/``-Method Post|Put``,
  ``UploadString``/``UploadData``/``UploadFile``.

Bounded: at most MAX_STATEMENTS statements, folded strings capped at MAX_TEXT.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from grading.programs import sensitive
from grading.programs.facts import (
    DECODED_EXEC,
    DECODED_STRING,
    FETCH_EXEC,
    NETWORK_SEND,
    SECRET_FLOW,
    SECRET_READ,
    Fact,
    per_block,
)

MAX_STATEMENTS = 5000
MAX_TEXT = 4096
MAX_DECODED = 64 * 1024
SECRET, FETCHED, DECODED = "secret", "fetched", "decoded"


@dataclass
class _Value:
    text: str | None = None
    labels: frozenset[str] = frozenset()
    items: tuple[str, ...] | None = None


@dataclass
class _State:
    env: dict[str, _Value] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    seen: set[tuple[str, int]] = field(default_factory=set)
    inner: bool = False
    """Reading a script decoded from ``-EncodedCommand`` (not decoded again)."""

    def fact(
        self, kind: str, offset: int, detail: str, hosts: tuple[str, ...] = (), store: bool = False
    ) -> None:
        if (kind, offset) not in self.seen:
            self.seen.add((kind, offset))
            self.facts.append(Fact(kind, offset, detail[:200], hosts, store))


_WORDS = ("iex", "invoke-", "iwr", "irm", "download", "upload", "credential", "cmdkey",
          "get-content", "[char", "-join", "frombase64", "scriptblock", "vaultcmd",
          "-e", "gc ", "readall", "copy-item", "compress-archive", "new-object")  # fmt: skip


def analyse(text: str, base: int = 0) -> list[Fact]:
    """The facts of the PowerShell script ``text`` (offsets shifted by ``base``)."""
    lowered = text.lower()
    if not any(word in lowered for word in _WORDS):
        return []
    state = _State()
    for index, (offset, statement) in enumerate(_statements(text)):
        if index >= MAX_STATEMENTS:
            break
        _statement(statement, base + offset, state)
    return state.facts


def _run_encoded(script: str, offset: int, state: _State) -> None:
    """The facts of an encoded command, reported at the command that runs it."""
    for fact in encoded_facts(script):
        state.fact(fact.kind, offset, f"-EncodedCommand: {fact.detail}", fact.hosts, fact.store)


def encoded_facts(script: str) -> list[Fact]:
    """The facts of a script decoded from ``-EncodedCommand`` (offsets within it)."""
    inner = _State(inner=True)
    for index, (at, statement) in enumerate(_statements(script)):
        if index >= MAX_STATEMENTS:
            break
        _statement(statement, at, inner)
    return inner.facts


def blocks(text: str, regions: tuple[tuple[int, int], ...]) -> Iterator[Fact]:
    return per_block(analyse, text, regions)


def _statements(text: str) -> Iterator[tuple[int, str]]:
    """(offset, statement): lines split at ``;`` outside quotes and hashtables (``@{ a = 1; b =
    $k }`` is one value), comments dropped."""
    offset = 0
    for line in text.split("\n"):
        start, quote = 0, ""
        braces: list[bool] = []  # the open braces of the line: is each a hashtable?
        for position, char in enumerate(line):
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "#":
                break
            elif char == "{":
                braces.append(position > 0 and line[position - 1] == "@")
            elif char == "}" and braces:
                braces.pop()
            elif char == ";" and not any(braces):
                yield offset + start, line[start:position]
                start = position + 1
        else:
            position = len(line)
        yield offset + start, line[start:position]
        offset += len(line) + 1


_ASSIGN = re.compile(r"^\s*\$([\w:.]+)\s*(?:\+)?=\s*(.+)$")
_VARIABLE = re.compile(r"\$(?:env:)?(\w+)")
_STRING = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_CHAR_ARRAY = re.compile(r"(?i)\[char\[\]\]\s*\(?\s*([\d\s,]+)\)?")
_CHARS = re.compile(r"(?i)\[char\]\s*(\d+)")
_REVERSED = re.compile(r"(?i)-join\s*\(?\s*\$(\w+)\s*\[\s*-1\s*\.\.\s*-\s*\d+\s*\]")
_ARRAY_REVERSE = re.compile(r"(?i)\[array\]::reverse\(\s*\$(\w+)\s*\)")
_BASE64 = re.compile(r"(?i)frombase64string\(\s*(?:'([^']*)'|\"([^\"]*)\"|\$(\w+))\s*\)")
_JOIN_PATH = re.compile(r"(?i)join-path\s+(\S+)\s+(\S+)")
_FETCH = re.compile(
    r"(?i)\b(?:invoke-webrequest|iwr|invoke-restmethod|irm|curl|wget)\b"
    r"|\.download(?:string|data|file)(?:\.invoke)?\("
)
_SEND = re.compile(r"(?i)-(?:body|infile)\b|-method\s+['\"]?(?:post|put|patch)\b|\.upload\w*\(")
_EXEC = re.compile(
    r"(?i)\b(?:invoke-expression|iex)\b|\[scriptblock\]::create\(|^\s*[&.]\s*\(|\|\s*&\s*\{?"
)
_SECRET_COMMAND = re.compile(
    r"(?i)\bgit\s+credential\s+fill\b|\bcmdkey\s+/list\b|\bget-storedcredential\b|\bvaultcmd\b"
    r"|\bget-childitem\s+env:|\bdir\s+env:|\[environment\]::getenvironmentvariables\("
)
_READ = re.compile(
    r"(?i)\b(?:get-content|gc|cat|type|copy-item|compress-archive)\b|::readall(?:text|bytes|lines)\("
)
_OPERAND = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s,()]+")
_ENCODED = re.compile(
    r"(?i)\b(?:powershell|pwsh)(?:\.exe)?\b[^\n|;]{0,200}?\s(-e[a-z]{0,13})\s+['\"]?([A-Za-z0-9+/]{8,}={0,2})"
)


_ADDRESS_VARIABLES = re.compile(r"""(?i)["']https?://[^"'\s]*?\$\{?(\w+)""")
"""A variable expanded in the address of a request (``"https://h/ping?k=$key"``)."""


def _secret_in_address(statement: str, state: _State) -> bool:
    """A request's address that expands a variable holding a secret store: a GET sends its
    address (a store in a header is left to the pattern rules, as a token authenticates)."""
    return any(
        SECRET in state.env.get(name.lower(), _Value()).labels
        for name in _ADDRESS_VARIABLES.findall(statement)
    )


def _statement(statement: str, offset: int, state: _State) -> None:
    written, statement = statement, _resolved(statement, state)
    for hidden in (_EXEC, _FETCH):
        found = hidden.search(statement)
        if found and not hidden.search(written):
            state.fact(DECODED_STRING, offset, f"builds the command {found.group(0)!r} from pieces")
    encoded = encoded_command(statement)
    if encoded is not None and not state.inner:
        _run_encoded(encoded[1], offset + encoded[0], state)
    assigned = _ASSIGN.match(statement)
    expression = assigned.group(2) if assigned else statement
    value = _expression(expression, offset, state)
    reversal = _ARRAY_REVERSE.search(statement)
    if reversal:
        name = reversal.group(1).lower()
        held = state.env.get(name)
        if held is not None and held.items is not None:
            items = tuple(reversed(held.items))
            state.env[name] = _Value(None, held.labels | {DECODED}, items)
    carried = value.labels
    hosts = _hosts(value, statement, state)
    if _FETCH.search(statement) and _SEND.search(statement):
        state.fact(NETWORK_SEND, offset, "a web request with a body", hosts)
        if SECRET in carried:
            state.fact(SECRET_FLOW, offset, "a secret store reaches a web request", hosts, True)
        value = _Value(None, frozenset({FETCHED}))
    elif _FETCH.search(statement):
        if _secret_in_address(statement, state):
            state.fact(NETWORK_SEND, offset, "a web request", hosts)
            state.fact(
                SECRET_FLOW, offset, "a secret store in a web request's address", hosts, True
            )
        value = _Value(None, value.labels | {FETCHED})
    if _EXEC.search(statement):
        if FETCHED in value.labels:
            state.fact(FETCH_EXEC, offset, "runs text fetched from the network", hosts)
        elif DECODED in value.labels:
            state.fact(DECODED_EXEC, offset, "runs text produced by a decoder")
    if assigned:
        target = assigned.group(1).lower().split(".", 1)[0]
        if "." in assigned.group(1) or "+=" in statement.split("=", 1)[0] + "=":
            held = state.env.get(target, _Value())
            text = None
            if "." not in assigned.group(1) and held.text is not None and value.text is not None:
                text = (held.text + value.text)[:MAX_TEXT]  # ``$h += '.net'``: the name grows
            value = _Value(text, held.labels | value.labels)
        state.env[target] = value


_LITERAL = r"(?:'[^'\n]*'|\"[^\"$`\n]*\")"
_JOINED = re.compile(
    rf"(?P<dot>\.?)\(\s*(?:(?P<plus>{_LITERAL}(?:\s*\+\s*{_LITERAL})+)"
    rf"|-join\s*\(\s*(?P<join>{_LITERAL}(?:\s*,\s*{_LITERAL})+)\s*\)"
    rf"|(?P<format>{_LITERAL}\s*-f\s*{_LITERAL}(?:\s*,\s*{_LITERAL})*))\s*\)"
)
"""A value built in place from quoted pieces: ``('Download' + 'String')``, ``(-join ('iex',
…))``, ``('{0}{1}' -f 'Invoke-', 'Expression')``; after a dot, the name of a member called."""
_NAME_VARIABLE = re.compile(r"\$(\w+)")
_COMMAND_NAME = re.compile(r"[\w.-]{1,60}")
_GET_COMMAND = re.compile(r"(?i)\(\s*(?:get-command|gcm)\s+['\"]?([\w.-]{1,60})['\"]?\s*\)")


def _resolved(statement: str, state: _State) -> str:
    """The statement with the names it builds at run time written out: a member or a type named
    by quoted pieces joined in place (``$w.('Download' + 'String')``, ``New-Object ('Net.' +
    'WebClient')``), a variable that holds a command's name (``$x = 'I' + 'nvoke-' …``) where it
    is called (``& $x``, ``& (Get-Command $x)``). The command a reader cannot see is the one a
    check for it must see."""
    statement = _JOINED.sub(_joined, statement)
    head, _, rest = statement.partition("=") if _ASSIGN.match(statement) else ("", "", statement)

    def name(match: re.Match[str]) -> str:
        held = state.env.get(match.group(1).lower())
        text = held.text if held is not None else None
        return text if text and _COMMAND_NAME.fullmatch(text) else match.group(0)

    rest = _NAME_VARIABLE.sub(name, rest)
    rest = _GET_COMMAND.sub(lambda m: m.group(1), rest)
    return f"{head}={rest}" if head else rest


def _joined(match: re.Match[str]) -> str:
    body = match.group("plus") or match.group("join") or match.group("format")
    pieces = [a if a else b for a, b in _STRING.findall(body)]
    text = "".join(pieces)
    if match.group("format"):
        arguments = pieces[1:]
        text = re.sub(
            r"\{(\d+)\}",
            lambda m: arguments[int(m.group(1))] if int(m.group(1)) < len(arguments) else "",
            pieces[0],
        )
    return f".{text}" if match.group("dot") else f"'{text}'"


def _expression(expression: str, offset: int, state: _State) -> _Value:
    """The value of an expression: its folded text where known, and the labels it carries."""
    labels: set[str] = set()
    for name in _VARIABLE.findall(expression):
        labels |= state.env.get(name.lower(), _Value()).labels
    if _SECRET_COMMAND.search(expression):
        state.fact(SECRET_READ, offset, "reads a credential store")
        labels.add(SECRET)
    text = _fold(expression, state, labels)
    if _READ.search(expression):
        read = next(
            (p for p in _read_paths(expression, text, state) if sensitive.is_sensitive_path(p)),
            None,
        )
        if read is not None:
            state.fact(SECRET_READ, offset, f"reads {read[:120]}")
            labels.add(SECRET)
    if DECODED in labels and text:
        meaning = sensitive.meaningful(text)
        if meaning:
            state.fact(DECODED_STRING, offset, f"decodes to {meaning}: {text[:120]}")
    items = _items(expression)
    return _Value(text, frozenset(labels), items)


def _fold(expression: str, state: _State, labels: set[str]) -> str | None:
    codes = _CHAR_ARRAY.search(expression)
    if codes:
        labels.add(DECODED)
        return _spell(codes.group(1).split(","))
    chars = _CHARS.findall(expression)
    if len(chars) >= 3:
        labels.add(DECODED)
        return _spell(chars)
    reversed_name = _REVERSED.search(expression)
    if reversed_name:
        held = state.env.get(reversed_name.group(1).lower())
        if held is not None and held.text is not None:
            labels.add(DECODED)
            return held.text[::-1]
    if re.search(r"(?i)-join\s*\(?\s*\$(\w+)\s*\)?\s*$", expression):
        name = re.search(r"\$(\w+)", expression.split("-join", 1)[-1])
        held = state.env.get(name.group(1).lower()) if name else None
        if held is not None and held.items is not None:
            labels |= held.labels
            return "".join(held.items)[:MAX_TEXT]
    encoded = _BASE64.search(expression)
    if encoded:
        labels.add(DECODED)
        source = encoded.group(1) or encoded.group(2)
        if source is None and encoded.group(3):
            source = state.env.get(encoded.group(3).lower(), _Value()).text
        return _b64(source)
    joined = _JOIN_PATH.search(expression)
    if joined:
        parts = [_word(part, state) for part in joined.groups()]
        if all(p is not None for p in parts):
            return "/".join(p or "" for p in parts).replace("\\", "/")
    items = _items(expression)
    if items is not None and re.search(r"(?i)^\s*-join\b", expression):
        return "".join(items)[:MAX_TEXT]
    pieces = [p.strip() for p in expression.split("+")]
    words = [_word(p, state) for p in pieces]
    if all(w is not None for w in words):
        return "".join(w or "" for w in words)[:MAX_TEXT]
    return None


def _read_paths(expression: str, text: str | None, state: _State) -> Iterator[str]:
    """The paths a read may name: the folded expression, and each operand of the command
    folded on its own (``Get-Content "$env:USERPROFILE\\.aws\\credentials" -Raw``, ``gc
    ~\\.ssh\\id_rsa``, ``[IO.File]::ReadAllText("$HOME\\.ssh\\id_rsa")``)."""
    if text is not None:
        yield text
    for operand in _OPERAND.findall(expression):
        folded = _word(operand, state)
        if folded is None and not operand.startswith("-"):
            folded = _VARIABLE.sub(
                lambda m: _interpolated(m.group(0), m.group(1), state), operand
            ).replace("\\", "/")
        if folded:
            yield folded


def encoded_command(line: str) -> tuple[int, str] | None:
    """(offset, script) of ``powershell -EncodedCommand <base64>`` (any prefix of the flag:
    ``-enc``, ``-e``, ``-ec``): the script PowerShell runs, base64 of UTF-16LE text that no
    reader sees as it is."""
    match = _ENCODED.search(line)
    if match is None:
        return None
    flag = match.group(1).lower()
    if flag != "-ec" and not "-encodedcommand".startswith(flag):
        return None
    try:
        decoded = base64.b64decode(match.group(2), validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError):
        return None
    return match.start(), decoded[:MAX_DECODED]


def _word(piece: str, state: _State) -> str | None:
    piece = piece.strip().strip("()")
    if len(piece) >= 2 and piece[0] == piece[-1] and piece[0] in "'\"":
        inner = piece[1:-1]
        if piece[0] == '"':
            inner = _VARIABLE.sub(lambda m: _interpolated(m.group(0), m.group(1), state), inner)
        return inner.replace("\\", "/")
    variable = _VARIABLE.fullmatch(piece)
    if variable:
        held = _interpolated(piece, variable.group(1), state)
        return None if held == piece else held
    return None


def _interpolated(whole: str, name: str, state: _State) -> str:
    if name.lower() in ("home", "userprofile"):
        return "~"
    if name.lower() in ("appdata", "localappdata"):
        return "~/AppData"
    held = state.env.get(name.lower())
    return held.text if held is not None and held.text is not None else whole


def _items(expression: str) -> tuple[str, ...] | None:
    """The strings of a literal list ``('a', 'b', …)`` or ``@('a', 'b')``."""
    stripped = expression.strip()
    if stripped.lower().startswith("-join"):
        stripped = stripped[5:].strip()
    if not (stripped.startswith(("(", "@(")) and stripped.endswith(")")):
        return None
    found = [a if a else b for a, b in _STRING.findall(stripped)]
    return tuple(found) if len(found) >= 3 else None


def _spell(codes: list[str]) -> str | None:
    try:
        return "".join(chr(int(c)) for c in codes if c.strip())[:MAX_TEXT]
    except (ValueError, OverflowError):
        return None


def _b64(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4)).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


def _hosts(value: _Value, statement: str, state: _State) -> tuple[str, ...]:
    texts = [value.text or "", statement]
    for name in _VARIABLE.findall(statement):
        held = state.env.get(name.lower())
        if held is not None and held.text:
            texts.append(held.text)
        if held is not None and held.items:
            texts.append("".join(held.items))
    return tuple(dict.fromkeys(h for t in texts if (h := sensitive.host_of(t))))
