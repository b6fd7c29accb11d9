"""JavaScript and TypeScript read as programs, with tree-sitter's grammars.

The same reading as for Python (``python``): strings folded (literals, template strings with
known parts, ``+``, ``path.join``, ``os.homedir()``), decoders followed (``String.fromCharCode``,
``atob``, ``Buffer.from(…, "base64")``, ``split("").reverse().join("")``), values labelled by
where they come from — a secret store read with ``fs``, the whole ``process.env`` or a secret
variable of it, a ``fetch`` response, a decoder — and facts at the sinks: a labelled value in
a request body (``fetch`` with a body, ``axios.post``, ``http.request``), or executed (``eval``,
``new Function``, ``child_process.exec``). A delete (``fs.rmSync``, ``fs.promises.rm``,
``fs-extra``'s ``remove``, ``rimraf``) of a path computed from ``os.homedir()`` is weighed by
``destruction`` as in Python and shell.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from grading.programs import destruction, sensitive
from grading.programs.destruction import HOME
from grading.programs.facts import (
    DECODED_EXEC,
    DECODED_STRING,
    DESTROYS_DATA,
    FETCH_EXEC,
    NETWORK_SEND,
    SECRET_FLOW,
    SECRET_READ,
    Fact,
    per_block,
)

MAX_NODES = 100_000
MAX_SOURCE = 512 * 1024
MAX_TEXT = 4096
SECRET, ENV_SECRET, FETCHED, DECODED = "secret", "env-secret", "fetched", "decoded"
STORE_PATH = "store-path"
"""A path to a secret store, or a list holding one (``[path.join(home, ".claude", "projects"),
…]``): what is read from it, or from a path under it, is the store's."""
SOCKET = "socket"
"""An open WebSocket or socket.io connection: what its ``send``/``emit`` get leaves the machine."""
_TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")


@lru_cache(maxsize=2)
def _parser(typescript: bool) -> Any:
    import tree_sitter

    if typescript:
        import tree_sitter_typescript

        language = tree_sitter_typescript.language_typescript()
    else:
        import tree_sitter_javascript

        language = tree_sitter_javascript.language()
    return tree_sitter.Parser(tree_sitter.Language(language))


@dataclass(frozen=True)
class _Value:
    text: str | None = None
    labels: frozenset[str] = frozenset()
    number: int | None = None
    hosts: tuple[str, ...] = ()


_UNKNOWN = _Value()


@dataclass
class _State:
    source: bytes
    base: int
    offsets: list[int]
    env: dict[str, _Value] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    seen: set[tuple[str, int]] = field(default_factory=set)
    nodes: int = 0
    functions: dict[str, Any] = field(default_factory=dict)
    """The script's named functions (declared, or an arrow or function expression assigned)."""
    calling: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    """Names bound to a module or to a function of one (``const cp = require("child_process")``,
    ``import { exec as run } from "child_process"``, ``const send = fetch``): a call through the
    name is a call of what it names (``_resolved``)."""
    anchor: Any = None
    """The call a function defined before the script (an imported module's, read as a prelude
    at negative offsets) is walked for: its facts are reported there."""

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def fact(
        self, kind: str, node: Any, detail: str, hosts: tuple[str, ...] = (), store: bool = False
    ) -> None:
        node = self.anchor if self.anchor is not None else node
        key = (kind, node.start_byte)
        if key not in self.seen:
            self.seen.add(key)
            byte = node.start_byte
            offset = self.base + (self.offsets[byte] if self.offsets else byte)
            self.facts.append(Fact(kind, offset, detail[:200], hosts, store))


_WORDS = (
    "fetch", "axios", "http", "eval", "Function", "child_process", "exec", "fromCharCode", "atob",
    "base64", "reverse", "readFile", "process.env", "sendBeacon", "WebSocket", "rmSync",
    "rmdirSync", "unlinkSync", "removeSync", "rimraf", ".rm(", ".rmdir(", ".remove(", "Deno.",
    "Bun.env", "Bun.file", "mnemonic", "seed", "socket.io", "io(", "cookies.", "history.",
)  # fmt: skip
_DELETERS = frozenset({"rm", "rmSync", "rmdir", "rmdirSync", "unlink", "unlinkSync", "remove",
                       "removeSync", "emptyDir", "emptyDirSync"})  # fmt: skip
_WHOLE_ENV = frozenset({"process.env", "Bun.env"})
"""The whole environment as an object in Node and Bun (Deno's is ``Deno.env.toObject()``)."""
_FILE_READS = frozenset({"readFileSync", "readFile", "createReadStream", "readdirSync", "readdir",
                         "readTextFile", "readTextFileSync"})  # fmt: skip
"""Node's ``fs`` reads and Deno's (``Deno.readTextFile``)."""
_BROWSER_STORES = frozenset(
    {"cookies.getAll", "cookies.get", "history.search", "history.getVisits",
     "passwordsPrivate.getSavedPasswordList"}
)  # fmt: skip
"""What a browser extension reads of the user's browsing (``chrome.cookies.getAll``,
``browser.history.search``): every site's sessions and where the user has been, the stores an
extension that sends them elsewhere steals. Only where they flow is a fact: a cookie manager
reads them to count or clear them."""
_FILE_MODULES = ("fs", "fsp", "fse", "fs.promises", "fsPromises", "fsExtra")
_RIMRAF = ("rimraf", "rimraf.sync", "rimrafSync")


def _run_command(command: str, name: str, node: Any, state: _State) -> None:
    """A shell command line ``exec``/``execSync`` runs, folded from its pieces, read by the
    shell analysis (``execSync("tar czf - ~/.aws | curl -T - …")``): its facts are the call's."""
    from grading.programs import shell  # shell reads ``node -e`` with this module

    for fact in shell.analyse(command):
        state.fact(fact.kind, node, f"{name}: {fact.detail}", fact.hosts, fact.store)


def analyse(text: str, base: int = 0, *, typescript: bool = False) -> list[Fact]:
    if len(text) > MAX_SOURCE or not any(word in text for word in _WORDS):
        return []
    data = text.encode("utf-8", "surrogatepass")
    offsets: list[int] = []
    if not text.isascii():
        for index, char in enumerate(text):
            offsets.extend([index] * len(char.encode("utf-8", "surrogatepass")))
        offsets.append(len(text))
    state = _State(data, base, offsets)
    root = _parser(typescript).parse(data).root_node
    _declare(root, state)
    _walk(root, state)
    return state.facts


def blocks(text: str, regions: tuple[tuple[int, int], ...], path: str = "") -> Iterator[Fact]:
    typescript = path.lower().endswith(_TYPESCRIPT)
    return per_block(lambda block: analyse(block, typescript=typescript), text, regions)


def _walk(node: Any, state: _State) -> None:
    state.nodes += 1
    if state.nodes > MAX_NODES:
        return
    if node.type == "variable_declarator":
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and value is not None:
            _alias(name, value, state)
            state.env[state.text(name)] = _eval(value, state)
        return
    if node.type == "import_statement":
        _import(node, state)
        return
    if node.type == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            state.env[state.text(left)] = _eval(right, state)
        return
    if node.type in ("call_expression", "new_expression", "await_expression"):
        _eval(node, state)
        return
    if node.type == "for_in_statement":  # for (const f of files): f is one of files
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and left.type == "identifier":
            iterated = _eval(right, state)
            state.env[state.text(left)] = _Value(None, iterated.labels, hosts=iterated.hosts)
        body = node.child_by_field_name("body")
        if body is not None:
            _walk(body, state)
        return
    for child in node.children:
        _walk(child, state)


def _merge(values: list[_Value]) -> _Value:
    labels = frozenset().union(*(v.labels for v in values)) if values else frozenset()
    return _Value(None, labels, hosts=tuple(h for v in values for h in v.hosts))


def _eval(node: Any, state: _State) -> _Value:
    state.nodes += 1
    if node is None or state.nodes > MAX_NODES:
        return _UNKNOWN
    kind = node.type
    if kind == "string":
        parts = [
            state.text(c) for c in node.children if c.type in ("string_fragment", "escape_sequence")
        ]
        return _Value("".join(parts)[:MAX_TEXT])
    if kind == "number":
        try:
            return _Value(None, number=int(state.text(node), 0))
        except ValueError:
            return _UNKNOWN
    if kind == "template_string":
        pieces: list[_Value] = []
        for child in node.children:
            if child.type == "string_fragment":
                pieces.append(_Value(state.text(child)))
            elif child.type == "template_substitution":
                inner = [c for c in child.children if c.type not in ("${", "}")]
                value = _eval(inner[0], state) if inner else _UNKNOWN
                pieces.append(
                    value
                    if value.text is not None
                    else _Value("{}", value.labels, hosts=value.hosts)
                )
        merged = _merge(pieces)
        if all(p.text is not None for p in pieces):
            return _Value(
                "".join(p.text or "" for p in pieces)[:MAX_TEXT], merged.labels, hosts=merged.hosts
            )
        return merged
    if kind == "identifier":
        return state.env.get(state.text(node), _UNKNOWN)
    if kind == "shorthand_property_identifier":  # ``{ vars }`` is ``{vars: vars}``
        return _seeded(state.text(node), state.env.get(state.text(node), _UNKNOWN))
    if kind == "binary_expression":
        left = _eval(node.child_by_field_name("left"), state)
        right = _eval(node.child_by_field_name("right"), state)
        operator = node.child_by_field_name("operator")
        if (
            operator is not None
            and state.text(operator) == "+"
            and left.text is not None
            and right.text is not None
        ):
            return _Value((left.text + right.text)[:MAX_TEXT], left.labels | right.labels)
        return _merge([left, right])
    if kind in (
        "parenthesized_expression",
        "await_expression",
        "as_expression",
        "non_null_expression",
    ):
        inner = [c for c in node.children if c.type not in ("(", ")", "await", "as", "!")]
        return _eval(inner[0], state) if inner else _UNKNOWN
    if kind == "member_expression":
        dotted = state.text(node)
        if dotted in state.env:
            return state.env[dotted]
        if dotted in _WHOLE_ENV:
            return _Value(None, frozenset({SECRET}))
        if dotted.startswith(("process.env.", "Bun.env.")):
            name = dotted.rsplit(".", 1)[-1]
            if name in ("HOME", "USERPROFILE"):
                return _Value("~")
            if sensitive.SECRET_NAME.search(name):
                return _Value(None, frozenset({ENV_SECRET}))
            return _UNKNOWN
        return _eval(node.child_by_field_name("object"), state)
    if kind == "subscript_expression":
        return _eval(node.child_by_field_name("object"), state)
    if kind in ("object", "array"):
        values = [_eval(c, state) for c in node.named_children[:256]]
        merged = _merge(values)
        if kind == "array" and any(sensitive.is_sensitive_path(v.text or "") for v in values):
            return _Value(None, merged.labels | {STORE_PATH}, hosts=merged.hosts)
        return merged
    if kind == "pair":
        key = node.child_by_field_name("key")
        field = state.text(key).strip("'\"`") if key is not None else None
        return _seeded(field, _eval(node.child_by_field_name("value"), state))
    if kind == "spread_element":  # {...process.env}
        return _eval(node.named_children[0], state) if node.named_children else _UNKNOWN
    if kind in ("call_expression", "new_expression"):
        return _call(node, state)
    if kind == "ternary_expression":
        return _either(
            _eval(node.child_by_field_name("consequence"), state),
            _eval(node.child_by_field_name("alternative"), state),
        )
    return _UNKNOWN


def _seeded(field: str | None, value: _Value) -> _Value:
    """A value computed at run time under a seed-phrase key (``{ mnemonic: words }``) is the
    user's wallet seed, a secret store (as in ``python._seeded``)."""
    if field is None or value.text is not None or not sensitive.SEED_FIELD.search(field):
        return value
    return _Value(None, value.labels | {SECRET}, value.number, value.hosts)


def _either(first: _Value, second: _Value) -> _Value:
    """``c ? a : b``: either branch may be the value — the labels of both, the hosts of both
    (a URL written in each), the text only when both are the same."""
    if first.text is not None and first.text == second.text:
        return _Value(first.text, first.labels | second.labels, hosts=first.hosts + second.hosts)
    hosts = tuple(
        host
        for branch in (first, second)
        for host in (*branch.hosts, sensitive.host_of(branch.text or "") if branch.text else None)
        if host
    )
    return _Value(None, first.labels | second.labels, hosts=hosts)


_ALIASED = frozenset(
    {"fetch", "axios", "eval", "Function", "exec", "execSync", "spawn", "spawnSync", "execFile",
     "child_process", "http", "https", "got", "ky", "navigator.sendBeacon", "vm"}
)  # fmt: skip
"""Names worth following through an alias: the senders, executors and modules the analysis
knows by name."""
_MODULES = frozenset(
    {"child_process", "http", "https", "vm", "axios", "got", "ky", "ws", "socket.io-client"}
)
"""Modules whose functions the analysis knows, loaded by ``require`` or imported under any
name."""


def _alias(name: Any, value: Any, state: _State) -> None:
    """``const send = fetch``, ``const cp = require("child_process")``, ``const { execSync: run }
    = require("child_process")``: the names bound to what the analysis knows."""
    target = _module(value, state)
    if target is None and value.type in ("identifier", "member_expression"):
        resolved = _resolved(state.text(value), state)
        target = resolved if resolved.split(".", 1)[0] in _ALIASED else None
    if target is None:
        return
    if name.type == "identifier" and state.text(name) != target:
        state.aliases[state.text(name)] = target
    elif name.type == "object_pattern":
        for part in name.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                state.aliases[state.text(part)] = f"{target}.{state.text(part)}"
            elif part.type == "pair_pattern":
                key, bound = part.child_by_field_name("key"), part.child_by_field_name("value")
                if key is not None and bound is not None and bound.type == "identifier":
                    state.aliases[state.text(bound)] = f"{target}.{state.text(key)}"


def _module(value: Any, state: _State) -> str | None:
    """The known module ``require("…")`` loads, without its ``node:`` prefix."""
    if value.type != "call_expression":
        return None
    callee = value.child_by_field_name("function")
    arguments = _arguments(value)
    if callee is None or state.text(callee) != "require" or not arguments:
        return None
    module = state.text(arguments[0]).strip("'\"`").removeprefix("node:")
    return module if module in _MODULES else None


def _import(node: Any, state: _State) -> None:
    """``import * as cp from "child_process"``, ``import { exec as run } from "child_process"``:
    the names a known module's import binds."""
    source = node.child_by_field_name("source")
    module = state.text(source).strip("'\"").removeprefix("node:") if source is not None else ""
    if module not in _MODULES:
        return
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier" or part.type == "namespace_import":
                bound = part if part.type == "identifier" else part.named_children[0]
                if state.text(bound) != module:
                    state.aliases[state.text(bound)] = module
            elif part.type == "named_imports":
                for specifier in part.named_children:
                    imported = specifier.child_by_field_name("name")
                    bound = specifier.child_by_field_name("alias") or imported
                    if imported is not None and bound is not None:
                        state.aliases[state.text(bound)] = f"{module}.{state.text(imported)}"


def _resolved(name: str, state: _State) -> str:
    """``name`` with its first part replaced by what an alias binds it to (``cp.exec`` →
    ``child_process.exec``)."""
    head, dot, rest = name.partition(".")
    target = state.aliases.get(head)
    return name if target is None else target + dot + rest


def _arguments(node: Any) -> list[Any]:
    arguments = node.child_by_field_name("arguments")
    return list(arguments.named_children) if arguments is not None else []


def _decoded(text: str, labels: frozenset[str], node: Any, state: _State) -> _Value:
    meaning = sensitive.meaningful(text)
    if meaning:
        state.fact(DECODED_STRING, node, f"decodes to {meaning}: {text[:120]}")
    return _Value(text[:MAX_TEXT], labels | {DECODED})


def _call(node: Any, state: _State) -> _Value:
    callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
    written = state.text(callee) if callee is not None else ""
    name = _resolved(written, state)
    last = name.rsplit(".", 1)[-1]
    nodes = _arguments(node)
    args = [_eval(a, state) for a in nodes[:64]]
    first = args[0] if args else _UNKNOWN
    receiver = (
        _eval(callee.child_by_field_name("object"), state)
        if callee is not None and callee.type == "member_expression"
        else _UNKNOWN
    )
    if callee is not None and callee.type in _CALLED_RESULTS:
        _eval(callee, state)  # Function(code)(), new Function(code)(): the inner call is read
    invoked = _unwrapped(callee)
    if invoked is not None and invoked.type in _FUNCTIONS:
        _callback(invoked, _UNKNOWN, state)  # (async () => { … })(): the body runs now
    merged = _merge([*args, receiver])  # r.text(), data.toString(): the receiver's labels go on
    promised = last in _PROMISE_CALLBACKS and callee is not None
    promised = promised and callee.type == "member_expression"
    for callback in nodes:
        if callback.type not in _FUNCTIONS:
            continue
        if promised:
            merged = _merge([merged, _callback(callback, receiver, state)])
        else:  # ws.on("open", () => …), setTimeout(() => …): a handler runs when called back
            _callback(callback, _UNKNOWN, state)
    if last in _FILLERS and callee is not None and callee.type == "member_expression":
        _fill(callee.child_by_field_name("object"), args, state)
    if name == "String.fromCharCode" and args and all(a.number is not None for a in args):
        text = "".join(
            chr(a.number) for a in args if a.number is not None and 0 <= a.number < 0x110000
        )
        return _decoded(text, merged.labels, node, state)
    if name in ("String.fromCharCode.apply", "String.fromCharCode.call") and len(nodes) >= 2:
        codes = _char_codes(nodes[1] if name.endswith("apply") else None, args[1:], state)
        if codes is not None:
            return _decoded(codes, merged.labels, node, state)
    if last == "atob" and first.text is not None:
        return _b64(first.text, first.labels, node, state)
    if name == "Buffer.from" and len(args) >= 2 and (args[1].text or "").lower() == "base64":
        return (
            _b64(first.text or "", first.labels, node, state)
            if first.text
            else _Value(None, first.labels | {DECODED})
        )
    if last == "join" and callee is not None and callee.type == "member_expression":
        receiver = callee.child_by_field_name("object")
        if receiver is not None and receiver.type == "call_expression":
            inner = receiver.child_by_field_name("function")
            if inner is not None and state.text(inner).endswith(".reverse"):
                base = _reversed_source(inner, state)
                if base is not None:
                    return _decoded(base[::-1], frozenset(), node, state)
            mapped = _mapped_char_codes(receiver, state)
            if mapped is not None:
                return _decoded(mapped, frozenset(), node, state)
        if name in ("path.join", "path.resolve", "path.posix.join"):
            return _placed(args, merged)
        return _joined_literals(receiver, args, merged, state)
    if name in ("path.join", "path.resolve"):
        return _placed(args, merged)
    if name in ("os.homedir", "homedir"):
        return _Value("~", frozenset({HOME}))
    if (last in _DELETERS and name.rpartition(".")[0] in _FILE_MODULES) or name in _RIMRAF:
        lost = destruction.valuable(first.text, first.labels)
        if lost is not None:
            state.fact(DESTROYS_DATA, node, f"{name} deletes {lost}: {(first.text or '?')[:100]}")
        return merged
    if name == "JSON.stringify" and nodes and state.text(nodes[0]) in _WHOLE_ENV:
        return _Value(None, frozenset({SECRET}))
    if name == "Deno.env.toObject":
        return _Value(None, frozenset({SECRET}))
    if name == "Deno.env.get" and sensitive.SECRET_NAME.search(first.text or ""):
        return _Value(None, frozenset({ENV_SECRET}))
    if name.startswith(("chrome.", "browser.")) and name.partition(".")[2] in _BROWSER_STORES:
        return _Value(None, merged.labels | {SECRET})  # counted locally, it is no fact
    if last in _FILE_READS or name == "Bun.file":  # Bun.file(path).text()
        path = first.text or ""
        if sensitive.is_sensitive_path(path) or first.labels & {SECRET, STORE_PATH}:
            state.fact(SECRET_READ, node, f"{name} {path[:120]}")
            return _Value(None, merged.labels | {SECRET})
        return merged
    if (
        last in ("eval", "Function", "exec", "execSync", "spawn", "spawnSync", "execFile")
        and (
            last in ("eval", "Function") or "child_process" in name or name in ("exec", "execSync")
        )
    ) or (name.startswith("vm.") and last in _VM_RUNNERS):
        if FETCHED in merged.labels:
            state.fact(FETCH_EXEC, node, f"{name} runs text fetched from the network", merged.hosts)
        elif DECODED in merged.labels:
            state.fact(DECODED_EXEC, node, f"{name} runs text produced by a decoder")
        if last in ("exec", "execSync") and first.text:
            _run_command(first.text, name, node, state)
        return merged
    if last in ("write", "end", "send") and _REQUEST in receiver.labels:  # req.write(body)
        state.fact(NETWORK_SEND, node, f"a request's {last}()", receiver.hosts)
        if merged.labels & {SECRET, ENV_SECRET} and args:
            store = SECRET in merged.labels
            state.fact(
                SECRET_FLOW, node, f"a secret reaches a request's {last}()", receiver.hosts, store
            )
        return _Value(None, frozenset({_REQUEST}), hosts=receiver.hosts)
    if _opens_socket(name, last, first):
        host = sensitive.host_of(first.text or "") if first.text else None
        return _Value(None, frozenset({SOCKET}), hosts=(host,) if host else first.hosts)
    if last in ("send", "emit", "write") and SOCKET in receiver.labels:
        state.fact(NETWORK_SEND, node, f"a WebSocket's {last}()", receiver.hosts)
        carried = _merge(args).labels
        if carried & {SECRET, ENV_SECRET}:
            store = SECRET in carried
            detail = f"a secret reaches a WebSocket's {last}()"
            state.fact(SECRET_FLOW, node, detail, receiver.hosts, store)
        return _UNKNOWN
    if last == "request" and name.startswith(("http", "require('http", 'require("http')):
        return _node_request(nodes, args, state)
    if last == "WebSocket" and node.type == "new_expression":
        return _socket(first)
    if name in (
        "fetch",
        "axios",
        "axios.post",
        "axios.put",
        "axios.patch",
        "axios.request",
        "http.request",
        "https.request",
        "navigator.sendBeacon",
        "got.post",
        "ky.post",
    ):
        return _request(name, nodes, args, node, state)
    known = callee is not None and callee.type == "identifier" and written in state.functions
    if known and written not in state.calling and len(state.calling) < MAX_CALL_DEPTH:
        return _merge([merged, _invoke(written, args, node, state)])
    return merged


MAX_CALL_DEPTH = 4


def _declare(root: Any, state: _State) -> None:
    """The named functions of the script's top level, known before any is called (hoisted):
    ``function f(…)``, ``export function f``, ``const f = (…) => …``."""
    for node in root.named_children:
        if node.type == "export_statement":
            node = node.child_by_field_name("declaration") or node
        if node.type in ("function_declaration", "generator_function_declaration"):
            name = node.child_by_field_name("name")
            if name is not None:
                state.functions[state.text(name)] = node
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                name = declarator.child_by_field_name("name")
                value = declarator.child_by_field_name("value")
                if name is not None and value is not None and value.type in _FUNCTIONS:
                    state.functions[state.text(name)] = value


_SOCKET_OPENERS = frozenset(
    {"WebSocket", "ws", "ws.WebSocket", "WebSocketStream", "socket.io-client",
     "socket.io-client.io", "socket.io-client.connect", "io", "io.connect"}
)  # fmt: skip
"""What opens a WebSocket: the browser's, Node's and Deno's ``WebSocket``, the ``ws`` module
(``new WebSocket(url)`` with ``const WebSocket = require("ws")``), socket.io's client."""


def _opens_socket(name: str, last: str, first: _Value) -> bool:
    """``new WebSocket("wss://…")``, ``io("https://…")``: a connection data is sent over. A bare
    ``io(…)`` is socket.io's only with an address."""
    if name not in _SOCKET_OPENERS and last != "WebSocket":
        return False
    if name in ("io", "io.connect"):
        return (first.text or "").startswith(("ws://", "wss://", "http://", "https://"))
    return True


_FILLERS = frozenset({"push", "unshift", "add", "set", "append", "concat"})
"""Methods that put their arguments into the array, set or map they are called on."""


def _fill(target: Any, args: list[_Value], state: _State) -> None:
    """``out.push(p)``: the container named ``out`` holds what it was given."""
    if target is None or target.type != "identifier" or not args:
        return
    name = state.text(target)
    given = _merge(args)
    if given.labels - state.env.get(name, _UNKNOWN).labels:
        held = state.env.get(name, _UNKNOWN)
        state.env[name] = _Value(None, held.labels | given.labels, hosts=held.hosts + given.hosts)


def _invoke(name: str, args: list[_Value], call: Any, state: _State) -> _Value:
    """A call of one of the script's named functions: its body walked with the parameters
    bound to the arguments, so a secret passed in reaches the sink inside; the value is what
    it returns."""
    function = state.functions[name]
    names = _parameters(function, state)
    saved = {n: state.env.get(n) for n in names}
    for index, parameter in enumerate(names):
        state.env[parameter] = args[index] if index < len(args) else _UNKNOWN
    outer_anchor, outer_calling = state.anchor, state.calling
    byte = function.start_byte
    if state.anchor is None and state.base + (state.offsets[byte] if state.offsets else byte) < 0:
        state.anchor = call
    state.calling = (*state.calling, name)
    body = function.child_by_field_name("body")
    value = _UNKNOWN
    if body is not None and body.type == "statement_block":
        _walk(body, state)
        value = _merge([_eval(returned, state) for returned in _returns(body)])
    elif body is not None:
        value = _eval(body, state)
    state.anchor, state.calling = outer_anchor, outer_calling
    _fill_arguments(names, args, call, state)
    for parameter, before in saved.items():
        if before is None:
            state.env.pop(parameter, None)
        else:
            state.env[parameter] = before
    return value


def _fill_arguments(names: list[str], args: list[_Value], call: Any, state: _State) -> None:
    """A container passed to a function that fills it (``walk(root, files)`` pushing into its
    ``out``) holds, after the call, what the function put in: arrays and objects are passed by
    reference."""
    nodes = _arguments(call)
    for index, parameter in enumerate(names):
        if not parameter or index >= len(nodes) or nodes[index].type != "identifier":
            continue
        grown = state.env.get(parameter, _UNKNOWN).labels - args[index].labels
        if grown:
            _fill(nodes[index], [_Value(None, grown)], state)


def _parameters(function: Any, state: _State) -> list[str]:
    single = function.child_by_field_name("parameter")
    if single is not None:
        return [state.text(single)] if single.type == "identifier" else []
    parameters = function.child_by_field_name("parameters")
    names = []
    for node in parameters.named_children if parameters is not None else []:
        node = node.child_by_field_name("pattern") or node.child_by_field_name("left") or node
        names.append(state.text(node) if node.type == "identifier" else "")
    return names


def _returns(body: Any) -> list[Any]:
    """The values of a function body's ``return`` statements, not those of functions nested
    in it."""
    found: list[Any] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            found += node.named_children[:1]
        elif node is body or node.type not in _FUNCTIONS | {"function_declaration"}:
            stack.extend(node.children)
    return found


_CALLED_RESULTS = frozenset({"call_expression", "new_expression", "parenthesized_expression"})
_PROMISE_CALLBACKS = frozenset(
    {"then", "catch", "finally", "map", "flatMap", "forEach", "filter", "reduce", "find", "some"}
)
"""Methods that call back with what their receiver holds — a promise's value, an array's
items (``names.map(n => process.env[n])``) — and whose value is what the callback returns."""
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})
_VM_RUNNERS = frozenset(
    {"runInNewContext", "runInThisContext", "runInContext", "compileFunction", "Script"}
)


def _unwrapped(node: Any) -> Any:
    """The expression inside parentheses (``(async () => {…})`` is the arrow function)."""
    while node is not None and node.type == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        node = inner[0] if inner else None
    return node


def _callback(function: Any, given: _Value, state: _State) -> _Value:
    """A promise's callback (``.then(r => r.text())``) run with what the promise resolves to
    as its first parameter: its expression body's value, or its block walked for facts."""
    parameter = function.child_by_field_name("parameter")
    if parameter is None:
        parameters = function.child_by_field_name("parameters")
        named = parameters.named_children if parameters is not None else []
        parameter = named[0] if named else None
        if parameter is not None and parameter.type != "identifier":
            parameter = parameter.child_by_field_name("pattern") or parameter
    if parameter is not None and parameter.type == "identifier":
        state.env[state.text(parameter)] = given
    body = function.child_by_field_name("body")
    if body is None:
        return _UNKNOWN
    if body.type == "statement_block":
        _walk(body, state)
        return _UNKNOWN
    return _eval(body, state)


def _joined_literals(array: Any, args: list[_Value], merged: _Value, state: _State) -> _Value:
    """``["https://api", "host", "dev/v1"].join(".")``: an address written in pieces and joined
    at run time is the address, where the request it goes to can be read."""
    if array is None or array.type != "array" or (args and args[0].text is None):
        return merged
    pieces = [_eval(item, state) for item in array.named_children[:64]]
    if not pieces or any(p.text is None for p in pieces):
        return merged
    separator = (args[0].text or "") if args else ","
    return _Value(separator.join(p.text or "" for p in pieces)[:MAX_TEXT], merged.labels)


def _placed(args: list[_Value], merged: _Value) -> _Value:
    """A joined path: its text when every part is known; computed from the home folder, it
    keeps ``place:home`` only while deleting it would lose the user's data (``~/.cache/x`` is
    a cache, ``~/Documents`` is not)."""
    if any(a.text is None for a in args):
        return merged
    text = "/".join(a.text or "" for a in args)
    if HOME in merged.labels and not destruction.valuable(text):
        return _Value(text, merged.labels - {HOME})
    return _Value(text, merged.labels)


def _reversed_source(reverse_callee: Any, state: _State) -> str | None:
    """The string of ``"…".split("").reverse()``: the receiver of ``split``."""
    split_call = reverse_callee.child_by_field_name("object")
    if split_call is None or split_call.type != "call_expression":
        return None
    split = split_call.child_by_field_name("function")
    if split is None or not state.text(split).endswith(".split"):
        return None
    value = _eval(split.child_by_field_name("object"), state)
    return value.text


def _b64(text: str, labels: frozenset[str], node: Any, state: _State) -> _Value:
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return _Value(None, labels | {DECODED})
    return _decoded(data.decode("utf-8", "replace"), labels, node, state)


_REQUEST = "request"
"""A request object of Node's ``http``/``https`` modules or a WebSocket: what its ``write``,
``end`` or ``send`` get is sent."""


def _node_request(nodes: list[Any], args: list[_Value], state: _State) -> _Value:
    """``https.request(url or options)``: a request object, its host from the URL or from the
    options' ``hostname``/``host``."""
    url = args[0] if args else _UNKNOWN
    host = sensitive.host_of(url.text or "") if url.text else None
    if host is None and nodes and nodes[0].type == "object":
        for pair in nodes[0].named_children:
            if pair.type == "pair" and state.text(pair.child_by_field_name("key")).strip("'\"") in (
                "hostname",
                "host",
            ):
                named = _eval(pair.child_by_field_name("value"), state).text
                host = named.lower() if named else None
    return _Value(None, frozenset({_REQUEST, FETCHED}), hosts=(host,) if host else ())


def _socket(url: _Value) -> _Value:
    """``new WebSocket(url)`` (the browser's, Deno's, the ``ws`` package's): a connection whose
    ``send`` carries what it is given to the URL's host, as a request's ``write`` does."""
    host = sensitive.host_of(url.text or "") if url.text else None
    return _Value(None, frozenset({_REQUEST, FETCHED}), hosts=(host,) if host else url.hosts)


def _request(name: str, nodes: list[Any], args: list[_Value], node: Any, state: _State) -> _Value:
    url = args[0] if args else _UNKNOWN
    host = sensitive.host_of(url.text or "") if url.text else None
    hosts = (host,) if host else url.hosts
    payload: list[_Value] = []
    sending = name not in ("fetch", "axios")
    if name == "fetch" and len(nodes) >= 2 and nodes[1].type == "object":
        for pair in nodes[1].named_children:
            if pair.type == "shorthand_property_identifier":  # { method, body }
                key, value = state.text(pair), _eval(pair, state)
            elif pair.type == "pair":
                key = state.text(pair.child_by_field_name("key")).strip("'\"")
                value = _eval(pair.child_by_field_name("value"), state)
            else:
                continue
            if key == "body":
                payload.append(value)
                sending = True
            elif key == "method" and (value.text or "").upper() in ("POST", "PUT", "PATCH"):
                sending = True
    elif sending:
        payload.extend(args[1:])
    if url.labels & {SECRET, ENV_SECRET}:
        payload.append(url)
        sending = True  # a secret in the address (``?token=${…}``) leaves with the request
    if not sending:
        return _Value(None, frozenset({FETCHED}), hosts=hosts)
    state.fact(NETWORK_SEND, node, name, hosts)
    carried = _merge(payload).labels
    if SECRET in carried or ENV_SECRET in carried:
        state.fact(SECRET_FLOW, node, f"a secret reaches {name}", hosts, SECRET in carried)
    return _Value(None, frozenset({FETCHED}), hosts=hosts)


def _char_codes(array: Any, args: list[_Value], state: _State) -> str | None:
    """The text an array literal of character codes spells (``fromCharCode.apply(null, […])``),
    or the codes passed one by one (``.call(null, 104, 116)``)."""
    if array is not None:
        if array.type != "array":
            return None
        args = [_eval(c, state) for c in array.named_children[:4096]]
    if not args or any(a.number is None or not 0 <= a.number < 0x110000 for a in args):
        return None
    return "".join(chr(a.number or 0) for a in args)


def _mapped_char_codes(call: Any, state: _State) -> str | None:
    """``[104, 116].map((c) => String.fromCharCode(c))`` (then ``.join("")``): its text."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "member_expression":
        return None
    if not state.text(function).endswith(".map"):
        return None
    mapper = _arguments(call)
    if not mapper or "fromCharCode" not in state.text(mapper[0]):
        return None
    return _char_codes(function.child_by_field_name("object"), [], state)
