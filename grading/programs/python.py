"""Python analysed with ``ast``: folded strings, decoders, and data flow from sources to sinks.

An abstract interpreter walks the module once per pass (functions first, twice, so that calls
see what the functions they call do). Every expression evaluates to a ``Value``: its text when
it is a constant or can be folded from constants (concatenation, f-strings with constant parts,
``"".join``, ``chr``, ``bytes``, ``os.path.join``, ``Path`` arithmetic, ``expanduser``), and the
*labels* of what it carries:

* ``secret`` — read from a credential, key, browser, wallet or agent store (``sensitive``), the
  whole environment, the clipboard, a keyring;
* ``env-secret`` — one secret-looking environment variable (fine as its own service's
  credential, a leak when it is sent as data);
* ``fetched`` — a network response;
* ``decoded`` — produced by a decoder: base64/hex/codecs, XOR, character codes, reversal;
* ``place:home`` / ``place:outside`` — a path computed from the home folder or from above the
  skill's own folder (``Path(__file__).parents[2]``): a delete of it is read by ``destruction``.

Labels flow through assignments, containers, attribute and item access, calls of unknown
functions (their arguments' labels), loops (the loop variable carries the iterable's labels),
``with`` targets, and calls of the module's own functions (their summaries: which labels they
return, which parameters reach their return value or a sink). Sinks turn labels into facts.

Bounded: at most MAX_NODES nodes are evaluated per pass and folded strings are capped, so a
crafted script costs linear time.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import re
import shlex
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from grading.programs import destruction, sensitive
from grading.programs.destruction import HOME, OUTSIDE, OUTSIDE_PREFIX
from grading.programs.facts import (
    BULK_CHANGE,
    CREDENTIAL_GUESS,
    DECODED_EXEC,
    DECODED_STRING,
    DESTROYS_DATA,
    EXEC_DYNAMIC,
    FETCH_EXEC,
    NETWORK_SEND,
    SECRET_FLOW,
    SECRET_READ,
    Fact,
    per_block,
)

SECRET = "secret"
ENV_SECRET = "env-secret"
FETCHED = "fetched"
DECODED = "decoded"
CREDENTIAL = "credential:"
"""``credential:MOODLE``: a secret from the environment variable of a service (``MOODLE_TOKEN``);
``credential:`` alone when it names none (typed at a prompt, a computed name)."""
ADDRESS = "address:"
"""``address:MOODLE``: the address of a service the user configures (``MOODLE_URL``)."""
_ADDRESS_NAME = re.compile(
    r"(?i)_(?:URL|URI|HOST|HOSTNAME|ENDPOINT|SERVER|DOMAIN|ORIGIN|INSTANCE)$"
)
_GENERIC_PREFIXES = frozenset(
    {"API", "APP", "BASE", "DEFAULT", "MY", "REMOTE", "REPORT", "SERVER", "SERVICE", "SYNC",
     "TARGET", "UPLOAD", "WEBHOOK", "CALLBACK", "EXPORT", "LOG", "TELEMETRY", "METRICS"}
)  # fmt: skip
"""First words of a variable name that say what an address is for, not whose service it is."""
MUTATING = "mutating"
"""A request method that changes what it reaches (``DELETE``, ``PUT``, ``PATCH``), or an address
whose path names a change (``/keys/{}/revoke``, ``/users/{}/disable``)."""
_MUTATING_METHODS = frozenset({"DELETE", "PUT", "PATCH"})
_MUTATING_PATH = re.compile(
    r"(?i)/(?:revoke|delete|destroy|remove|disable|deactivate|suspend|block|ban|wipe|terminate|"
    r"reset|purge|expire|invalidate)\w{0,12}(?:$|[/?{])"
)
_PASSWORD_FIELD = re.compile(r"(?i)^(?:pass(?:word|wd|phrase)?|pwd|user_?pass(?:word)?)$")
BODY = "request-body"
"""A prepared request (``urllib.request.Request(url, data)``) with a body: opening it sends."""
_BODY: frozenset[str] = frozenset({BODY})
CLIENT = "http-client"
"""An HTTP client object (``httpx.AsyncClient()``, ``requests.Session()``): its methods send."""
_CLIENTS = frozenset(
    {"Session", "Client", "AsyncClient", "ClientSession", "HTTPSConnection", "HTTPConnection",
     "PoolManager"}
)  # fmt: skip
MAX_NODES = 200_000
MAX_TEXT = 4096
MAX_ITEMS = 4096
MAX_UNROLLED = 16
"""A loop over a known list of at most this many items is walked once per item."""
MAX_SOURCE = 512 * 1024
"""Larger scripts are left to the pattern rules."""

_Labels = frozenset[str]
_NONE: _Labels = frozenset()


@dataclass(frozen=True)
class Value:
    text: str | None = None
    labels: _Labels = _NONE
    number: int | None = None
    items: tuple[Value, ...] | None = None
    hosts: tuple[str, ...] = ()
    refers: str | None = None
    """The dotted name of the module or function this value is, when it was looked up by a
    computed name (``importlib.import_module("o" + "s")``, ``getattr(m, "env" + "iron")``)."""

    def with_labels(self, labels: _Labels) -> Value:
        return Value(
            self.text, self.labels | labels, self.number, self.items, self.hosts, self.refers
        )


UNKNOWN = Value()


def _join(values: list[Value], separator: str = "") -> Value:
    labels = frozenset().union(*(v.labels for v in values)) if values else _NONE
    hosts = tuple(h for v in values for h in v.hosts)
    if all(v.text is not None for v in values):
        text = separator.join(v.text or "" for v in values)[:MAX_TEXT]
        return Value(text, labels, hosts=hosts)
    return Value(None, labels, hosts=hosts)


def _merge(values: list[Value]) -> Value:
    labels = frozenset().union(*(v.labels for v in values)) if values else _NONE
    return Value(None, labels, hosts=tuple(h for v in values for h in v.hosts))


def _dotted(node: ast.AST) -> str:
    """``os.path.join`` for an attribute chain; ``.read`` when it starts at an expression."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return "." + ".".join(reversed(parts)) if parts else ""


_DECODERS = frozenset(
    {"b64decode", "b32decode", "b16decode", "b85decode", "a85decode", "urlsafe_b64decode",
     "decodebytes", "decodestring", "unhexlify", "a2b_base64", "a2b_hex", "fromhex"}
)  # fmt: skip
_FETCHERS = frozenset({"urlopen", "get", "request", "urlretrieve", "fetch", "stream"})
_HTTP_MODULES = ("requests", "httpx", "urllib", "session", "client", "aiohttp", "http")
_SENDERS = frozenset({"post", "put", "patch", "request", "urlopen", "send", "sendall", "sendto",
                      "sendmail", "send_message", "storbinary", "storlines", "upload_file",
                      "upload_fileobj", "put_object", "gethostbyname", "getaddrinfo", "resolve",
                      "query", "connect_ex"})  # fmt: skip
_SOCKET_SENDS = frozenset(
    {"sendall", "sendto", "send", "sendmail", "send_message", "gethostbyname", "getaddrinfo"}
)
"""Methods of sockets, mail and DNS clients (a bare function named ``send`` is someone's own)."""
_EXECUTORS = frozenset({"exec", "eval", "compile", "execfile", "system", "popen", "run", "call",
                        "check_call", "check_output", "Popen", "getoutput", "getstatusoutput",
                        "run_path", "run_module", "loads"})  # fmt: skip
_SECRET_CALLS = frozenset({"paste", "grab", "get_password", "get_credential", "screenshot",
                           "getpass"})  # fmt: skip
_READERS = frozenset({"open", "read_text", "read_bytes", "walk", "glob", "iglob", "rglob",
                      "listdir", "scandir", "iterdir", "copytree", "copy", "copy2", "copyfile",
                      "make_archive", "add", "write", "Path", "PurePath", "fdopen"})  # fmt: skip


@dataclass
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    params: tuple[str, ...]
    returns: _Labels = _NONE
    """Labels the function returns on its own (its sources)."""
    passes: frozenset[int] = frozenset()
    """Parameters whose labels reach the return value."""
    sinks: frozenset[int] = frozenset()
    """Parameters whose value reaches a network sink inside the function."""
    returns_text: str | None = None


@dataclass
class _State:
    functions: dict[str, _Function]
    facts: list[Fact] = field(default_factory=list)
    nodes: int = 0
    current: _Function | None = None
    offsets: _Offsets | None = None
    seen: dict[tuple[str, int], int] = field(default_factory=dict)
    """Each fact's place in ``facts``, by its kind and offset."""
    globals: dict[str, Value] = field(default_factory=dict)
    """The module's names as the walk of its body assigns them (functions read them too)."""
    depth: int = 0
    git: list[tuple[list[str], ast.AST]] = field(default_factory=list)
    """The git commands the program runs (their words after ``git``), for ``destruction``."""
    attributes: dict[str, _Labels] = field(default_factory=dict)
    """Labels stored in an attribute of any object (``self.blob = secret`` in one method, read
    in another; a class attribute), by attribute name: objects are not told apart."""
    yielded: list[Value] | None = None
    """What the function being walked yields: a generator hands its values to the caller that
    iterates it (``for``, ``list``, ``next``, ``join``) as a ``return`` would."""
    loops: int = 0
    """How many loops enclose the statement being walked (an inlined call's too)."""
    modules: frozenset[str] = frozenset()
    """The names ``import`` binds to modules: ``requests.post(…)`` calls the library even where
    the program defines a ``post`` of its own (a same-named function must not hide the send)."""


class _Offsets:
    """AST positions (line, UTF-8 column) as character offsets of the analysed text."""

    def __init__(self, text: str, base: int) -> None:
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.base = base

    def of(self, node: ast.AST | _Position) -> int:
        line = getattr(node, "lineno", 1) - 1
        column = getattr(node, "col_offset", 0)
        if not 0 <= line < len(self.lines):
            return self.base
        text = self.lines[line]
        if not text.isascii():
            column = len(text.encode("utf-8")[:column].decode("utf-8", "ignore"))
        return self.base + self.starts[line] + column


_SINK_WORDS = (
    ".post(",
    ".put(",
    ".patch(",
    "urlopen",
    ".request(",
    "sendall",
    ".send(",
    "sendto",
    "socket",
    "smtp",
    "exec(",
    "eval(",
    "system(",
    "popen",
    "Popen",
    "gethostbyname",
    "getaddrinfo",
    "storbinary",
    "upload",
    "check_output",
    "subprocess",
    "loads(",
)
_SOURCE_WORDS = (
    "environ",
    "getenv",
    "expanduser",
    "home()",
    "paste",
    "keyring",
    "ImageGrab",
    ".ssh",
    ".aws",
    ".kube",
    ".gnupg",
    "Cookies",
    "Login Data",
    "wallet",
    "mnemonic",
    "seed",
    "recovery_phrase",
    ".claude",
    "history",
    "urlopen",
    "requests.get",
    "httpx.get",
    "fetch",
    "Path.home",
)
_DECODER_WORDS = ("b64decode", "b32decode", "b85decode", "fromhex", "unhexlify", "chr(", "^",
                  "[::-1]", "reversed(", "rot13", "rot_13", "a2b_")  # fmt: skip
_DESTROYER_WORDS = ("rmtree", ".unlink(", "os.remove(", "rmdir(", "removedirs(", "DROP ", "drop ",
                    "pg_drop", "--orphan", "reflog")  # fmt: skip
_INDIRECTION_WORDS = ("import_module", "__import__(", "getattr(__builtins__", "getattr(builtins")
"""Modules and built-ins looked up by a string: what they call is only known by folding it."""
_PROVISIONER_WORDS = ("Command(",)
"""A provisioning tool's command resource, whose shell line runs on deployment."""
_ASSEMBLY_WORDS = ('"".join(', "''.join(", '" ".join(', "' '.join(")
"""A string assembled from a list of pieces: the source's words (``".s", "sh/"``) are only
whole once the join is folded."""


_BULK_WORDS = (
    "password", "DELETE", "PUT", "PATCH", ".delete(", ".put(", ".patch(", "/revoke", "/disable",
    "/delete", "/suspend", "/deactivate", "/block", "/reset",
)  # fmt: skip
"""Words of a mutating request or a login, which a loop makes a bulk change or a guess per item."""


def worth_analysing(text: str) -> bool:
    """Whether the script can hold a fact: a decoder, or a sink or executor with a source or a
    fetch to feed it (or with a string assembled from pieces, which may be either), or a
    sensitive path to read (substring tests: most scripts have none of these together and are
    left to the pattern rules)."""
    if any(
        word in text
        for words in (_DECODER_WORDS, _DESTROYER_WORDS, _INDIRECTION_WORDS, _PROVISIONER_WORDS)
        for word in words
    ):
        return True
    if "for " in text and any(word in text for word in _BULK_WORDS):
        return any(word in text for word in (*_SINK_WORDS, ".delete("))  # a change per item
    sources = any(word in text for word in _SOURCE_WORDS + _ASSEMBLY_WORDS)
    return sources and (
        any(word in text for word in _SINK_WORDS)
        or "open(" in text
        or "read_text" in text
        or "walk(" in text
    )


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes ``ast.walk`` yields, in its (breadth-first) order, without its generator per
    node: walking a large script's tree was a tenth of Tier 1's time on the slowest skills."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                todo.append(value)
            elif isinstance(value, list):
                todo.extend(item for item in value if isinstance(item, ast.AST))
        yield node


_parsed: dict[str, ast.Module | None] = {}


def _parse(text: str) -> ast.Module | None:
    """The syntax tree of ``text`` (None when it does not parse), kept for the last text: the
    message masking and the analysis of one script share one parse."""
    if text in _parsed:
        return _parsed[text]
    tree: ast.Module | None
    try:
        tree = ast.parse(text) if len(text) <= MAX_SOURCE else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    _parsed.clear()
    _parsed[text] = tree
    return tree


def analyse(text: str, base: int = 0) -> list[Fact]:
    """The facts of the Python program ``text`` (offsets shifted by ``base``); none when it does
    not parse (a fragment in a code block, another language)."""
    if not worth_analysing(text):
        return []
    tree = _parse(text)
    if tree is None:
        return []
    functions: dict[str, _Function] = {}
    modules: set[str] = set()
    for node in _walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            params = tuple(a.arg for a in node.args.posonlyargs + node.args.args)
            functions.setdefault(node.name, _Function(node, params))
        elif isinstance(node, ast.Import):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
    state = _State(functions, offsets=_Offsets(text, base), modules=frozenset(modules))
    try:
        for statement in tree.body:  # module constants, which the functions read
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                _statement(statement, state.globals, state, None)
        for function in functions.values():  # summaries first, then with callees known
            _summarise(function, state)
        state.facts.clear()
        state.seen.clear()
        for function in functions.values():
            _summarise(function, state)
        _block(tree.body, state.globals, state)
    except RecursionError:
        pass
    lost = destruction.destroys_history([words for words, _ in state.git])
    if lost is not None:
        _fact(state, DESTROYS_DATA, state.git[0][1], f"git: {lost}")
    return state.facts


def _summarise(function: _Function, state: _State) -> None:
    env = dict(state.globals)
    env.update(
        {name: Value(None, frozenset({f"param:{i}"})) for i, name in enumerate(function.params)}
    )
    outer, state.current = state.current, function
    returned: list[Value] = []
    outer_yielded, state.yielded = state.yielded, returned
    _block(function.node.body, env, state, returned)
    state.current, state.yielded = outer, outer_yielded
    labels = frozenset().union(*(v.labels for v in returned)) if returned else _NONE
    function.returns = frozenset(label for label in labels if not label.startswith("param:"))
    function.passes = frozenset(
        int(label.split(":")[1]) for label in labels if label.startswith("param:")
    )
    texts = {v.text for v in returned if v.text is not None}
    function.returns_text = texts.pop() if len(texts) == 1 else None


def _block(
    body: list[ast.stmt], env: dict[str, Value], state: _State, returned: list[Value] | None = None
) -> None:
    for statement in body:
        _statement(statement, env, state, returned)


def _assign(target: ast.expr, value: Value, env: dict[str, Value], state: _State) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            _assign(element, _merge([value]), env, state)
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        env[f"{target.value.id}.{target.attr}"] = value
        _store(target.attr, value, state)
    elif isinstance(target, ast.Subscript):
        outer = target.value
        while isinstance(outer, ast.Subscript):  # sample["files"][path] = …: sample holds it
            outer = outer.value
        container = _dotted(outer)
        if container and not container.startswith("."):
            key = target.slice.value if isinstance(target.slice, ast.Constant) else None
            value = _seeded(key if isinstance(key, str) else None, value)
            current = env.get(container, UNKNOWN)
            env[container] = current.with_labels(value.labels)


def _store(attribute: str, value: Value, state: _State) -> None:
    if value.labels:
        state.attributes[attribute] = state.attributes.get(attribute, _NONE) | value.labels


_FILLERS = frozenset({"append", "extend", "add", "update", "insert", "appendleft", "write",
                      "writelines", "writestr", "set_content", "set_payload", "attach",
                      "add_attachment", "add_header"})  # fmt: skip
"""Methods that put their arguments into the object they are called on (a list, a file, a
zip archive, a mail message)."""


def _fill(node: ast.expr, value: Value, env: dict[str, Value]) -> None:
    """``items.append(x)``: the container now carries what ``x`` carries (a list of secrets
    gathered in a loop is sent later as one body)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _FILLERS
        and isinstance(node.func.value, ast.Name)
        and value.labels
    ):
        name = node.func.value.id
        env[name] = env.get(name, UNKNOWN).with_labels(value.labels)


def _statement(
    node: ast.stmt, env: dict[str, Value], state: _State, returned: list[Value] | None
) -> None:
    state.nodes += 1
    if state.nodes > MAX_NODES:
        return
    if isinstance(node, ast.Assign):
        value = _eval(node.value, env, state)
        for target in node.targets:
            _assign(target, value, env, state)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        _assign(node.target, _eval(node.value, env, state), env, state)
    elif isinstance(node, ast.AugAssign):
        value = _eval(node.value, env, state)
        if isinstance(node.target, ast.Name):
            current = env.get(node.target.id, UNKNOWN)
            if isinstance(node.op, ast.Add):
                env[node.target.id] = _join([current, value])
            else:
                env[node.target.id] = _merge([current, value])
    elif isinstance(node, ast.Expr):
        value = _eval(node.value, env, state)
        _fill(node.value, value, env)
    elif isinstance(node, ast.Return) and node.value is not None:
        value = _eval(node.value, env, state)
        if returned is not None:
            returned.append(value)
    elif isinstance(node, ast.For | ast.AsyncFor):
        iterable = _eval(node.iter, env, state)
        known = iterable.items if iterable.items and len(iterable.items) <= MAX_UNROLLED else None
        for item in known or (Value(None, iterable.labels, hosts=iterable.hosts),) * 2:
            # each known item in turn; otherwise twice (a value built in one iteration is used
            # in the next)
            _assign(node.target, item.with_labels(iterable.labels), env, state)
            state.loops += 1
            _block(node.body, env, state, returned)
            state.loops -= 1
        _block(node.orelse, env, state, returned)
    elif isinstance(node, ast.While):
        _eval(node.test, env, state)
        state.loops += 1
        for _ in range(2):
            _block(node.body, env, state, returned)
        state.loops -= 1
    elif isinstance(node, ast.If):
        _eval(node.test, env, state)
        _block(node.body, env, state, returned)
        _block(node.orelse, env, state, returned)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for managed in node.items:
            value = _eval(managed.context_expr, env, state)
            if managed.optional_vars is not None:
                _assign(managed.optional_vars, value, env, state)
        _block(node.body, env, state, returned)
    elif isinstance(node, ast.Try):
        _block(node.body, env, state, returned)
        for handler in node.handlers:
            _block(handler.body, env, state, returned)
        _block(node.orelse, env, state, returned)
        _block(node.finalbody, env, state, returned)
    elif isinstance(node, ast.ClassDef):
        for statement in node.body:
            if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                _statement(statement, env, state, returned)
            if isinstance(statement, ast.Assign | ast.AnnAssign):  # read as Class.name, self.name
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in env:
                        _store(target.id, env[target.id], state)


def _eval(node: ast.expr | None, env: dict[str, Value], state: _State) -> Value:
    state.nodes += 1
    if node is None or state.nodes > MAX_NODES:
        return UNKNOWN
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return Value(node.value[:MAX_TEXT], _mutating(node.value))
        if isinstance(node.value, bytes):
            return Value(node.value[:MAX_TEXT].decode("latin-1"))
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return Value(None, number=node.value)
        return UNKNOWN
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, ast.JoinedStr):
        parts = [_eval(v, env, state) for v in node.values]
        return _join(
            [p if p.text is not None else Value("{}", p.labels, hosts=p.hosts) for p in parts]
        )
    if isinstance(node, ast.FormattedValue):
        return _eval(node.value, env, state)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _eval(node.operand, env, state)
        return Value(None, number=-operand.number) if operand.number is not None else operand
    if isinstance(node, ast.BinOp):
        return _binop(node, env, state)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [_eval(e, env, state) for e in node.elts[:MAX_ITEMS]]
        merged = _merge(items)
        return Value(None, merged.labels, items=tuple(items), hosts=merged.hosts)
    if isinstance(node, ast.Dict):
        keys = [_eval(k, env, state) if k is not None else UNKNOWN for k in node.keys[:MAX_ITEMS]]
        values = [
            _seeded(key.text, _eval(v, env, state))
            for key, v in zip(keys, node.values, strict=False)
        ]
        return _merge(values + keys)
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node)
        if dotted in env:
            return env[dotted]
        resolved = _resolved(dotted, env)
        if resolved != dotted:
            return _referring(resolved)
        if node.attr == "parent" and _parent_depth(node) >= 3:
            return Value(OUTSIDE_PREFIX, frozenset({OUTSIDE}))
        if dotted in ("os.environ", "os.environ.items", "os.environ.values"):
            return Value(None, frozenset({SECRET}))
        base = _eval(node.value, env, state)
        stored = state.attributes.get(node.attr, _NONE)
        return base.with_labels(stored) if stored else base
    if isinstance(node, ast.Subscript):
        return _subscript(node, env, state)
    if isinstance(node, ast.Call):
        return _call(node, env, state)
    if isinstance(node, ast.GeneratorExp | ast.ListComp | ast.SetComp):
        return _comprehension(node, env, state)
    if isinstance(node, ast.DictComp):
        iterable = _eval(node.generators[0].iter, env, state)
        inner = dict(env)
        _assign(node.generators[0].target, Value(None, iterable.labels), inner, state)
        return _merge([_eval(node.key, inner, state), _eval(node.value, inner, state), iterable])
    if isinstance(node, ast.Await):
        return _eval(node.value, env, state)
    if isinstance(node, ast.NamedExpr):  # (d := dict(os.environ))
        value = _eval(node.value, env, state)
        _assign(node.target, value, env, state)
        return value
    if isinstance(node, ast.Lambda):  # a lambda's value is what its body computes
        return Value(None, _eval(node.body, dict(env), state).labels)
    if isinstance(node, ast.Yield | ast.YieldFrom):
        if state.yielded is not None and node.value is not None:
            state.yielded.append(_eval(node.value, env, state))
        return UNKNOWN  # what the caller sends back in
    if isinstance(node, ast.IfExp):
        return _merge([_eval(node.body, env, state), _eval(node.orelse, env, state)])
    if isinstance(node, ast.BoolOp):
        return _merge([_eval(v, env, state) for v in node.values])
    if isinstance(node, ast.Starred):
        return _eval(node.value, env, state)
    return UNKNOWN


def _mutating(text: str) -> _Labels:
    """``MUTATING`` for a method or an address path that changes what a request reaches."""
    if text in _MUTATING_METHODS or ("/" in text and _MUTATING_PATH.search(text)):
        return frozenset({MUTATING})
    return _NONE


def _seeded(field: str | None, value: Value) -> Value:
    """A value computed at run time and put in a seed-phrase field (``{"mnemonic": args.phrase}``)
    is the user's wallet seed, a secret store of its own; a constant there (a test wallet's
    well-known words) is nobody's."""
    if field is None or value.text is not None or not sensitive.SEED_FIELD.search(field):
        return value
    return value.with_labels(frozenset({SECRET}))


def _binop(node: ast.BinOp, env: dict[str, Value], state: _State) -> Value:
    left, right = _eval(node.left, env, state), _eval(node.right, env, state)
    if isinstance(node.op, ast.Add):
        return _join([left, right])
    if isinstance(node.op, ast.Div):  # Path("~") / ".ssh"
        return _placed(_join([left, right], "/"))
    if isinstance(node.op, ast.BitXor) and left.number is not None and right.number is not None:
        return Value(
            None, left.labels | right.labels | {DECODED}, number=left.number ^ right.number
        )
    if isinstance(node.op, ast.Mod) and left.text is not None:
        values = list(right.items) if right.items is not None else [right]
        template = Value(left.text.replace("%s", "{}"), left.labels, hosts=left.hosts)
        return _formatted(template, values)
    return _merge([left, right])


def _subscript(node: ast.Subscript, env: dict[str, Value], state: _State) -> Value:
    base = _eval(node.value, env, state)
    dotted = _dotted(node.value)
    if dotted == "os.environ":
        key = _eval(node.slice, env, state)
        return _env_value(key.text)
    if (
        isinstance(node.value, ast.Attribute)
        and node.value.attr == "parents"
        and _from_own_file(node.value.value)
        and (_eval(node.slice, env, state).number or 0) >= 2
    ):
        return Value(OUTSIDE_PREFIX, frozenset({OUTSIDE}))
    if isinstance(node.slice, ast.Slice) and base.text is not None:
        step = _eval(node.slice.step, env, state).number if node.slice.step else None
        if step == -1 and node.slice.lower is None and node.slice.upper is None:
            return _decoded(base.text[::-1], base.labels, node, state)
    return Value(None, base.labels, hosts=base.hosts)


def _env_value(name: str | None, default: Value = UNKNOWN) -> Value:
    if name is None:
        return Value(None, frozenset({ENV_SECRET, CREDENTIAL}))
    if name.upper() in ("HOME", "USERPROFILE"):
        return Value("~", frozenset({HOME}))
    if name.upper() in ("APPDATA", "LOCALAPPDATA"):
        return Value("~/AppData")
    if sensitive.SECRET_NAME.search(name):
        return Value(None, frozenset({ENV_SECRET, CREDENTIAL + _service(name)}))
    if _ADDRESS_NAME.search(name) and default.text is None:
        return Value(None, frozenset({ADDRESS + _service(name)}))
    return UNKNOWN


def _service(name: str) -> str:
    """Whose service a variable belongs to, by its first word (``MOODLE`` of ``MOODLE_URL``);
    none for a word that says only what the value is for (``WEBHOOK_URL``)."""
    first = name.upper().split("_", 1)[0]
    return "" if len(first) < 3 or first in _GENERIC_PREFIXES else first


def _comprehension(
    node: ast.GeneratorExp | ast.ListComp | ast.SetComp, env: dict[str, Value], state: _State
) -> Value:
    generator = node.generators[0]
    iterable = _eval(generator.iter, env, state)
    inner = dict(env)
    elements: list[Value] = []
    sequence: list[Value] | None = None
    if iterable.items is not None:
        sequence = list(iterable.items)
    elif iterable.text is not None:
        sequence = [Value(None, iterable.labels, number=ord(c)) for c in iterable.text]
    if sequence is not None and len(node.generators) == 1 and len(sequence) <= MAX_ITEMS:
        for item in sequence:
            _assign(generator.target, item, inner, state)
            elements.append(_eval(node.elt, inner, state))
        merged = _merge([*elements, iterable])
        return Value(None, merged.labels, items=tuple(elements), hosts=merged.hosts)
    if sequence is not None and len(sequence) <= MAX_UNROLLED:
        for item in sequence:  # [f for g in GLOBS for f in glob(g)]: each g's own text
            _assign(generator.target, item, inner, state)
            elements.append(_nested(node.generators[1:], node.elt, inner, state))
        return _merge([*elements, iterable])
    _assign(generator.target, Value(None, iterable.labels, hosts=iterable.hosts), inner, state)
    return _merge([_nested(node.generators[1:], node.elt, inner, state), iterable])


def _nested(
    generators: list[ast.comprehension], elt: ast.expr, inner: dict[str, Value], state: _State
) -> Value:
    """The element of a comprehension's inner loops (``for f in glob(g)`` after ``for g in
    GLOBS``), each loop's name bound to what its iterable yields: a path the outer loop names
    reaches the element through the inner call, as it would in nested ``for`` statements."""
    iterables = []
    for generator in generators:
        iterable = _eval(generator.iter, inner, state)
        iterables.append(iterable)
        _assign(generator.target, Value(None, iterable.labels, hosts=iterable.hosts), inner, state)
    return _merge([_eval(elt, inner, state), *iterables])


def _text_of_items(value: Value) -> str | None:
    """The text a sequence of characters or code points spells (for ``"".join``, ``bytes``)."""
    if value.text is not None:
        return value.text
    if value.items is None:
        return None
    out: list[str] = []
    for item in value.items:
        if item.text is not None:
            out.append(item.text)
        elif item.number is not None and 0 <= item.number < 0x110000:
            out.append(chr(item.number))
        else:
            return None
    return "".join(out)[:MAX_TEXT]


def _call(node: ast.Call, env: dict[str, Value], state: _State) -> Value:
    value = _call_value(node, env, state)
    if DECODED in value.labels and value.text:
        meaning = sensitive.meaningful(value.text)
        if meaning:
            _fact(state, DECODED_STRING, node, f"decodes to {meaning}: {value.text[:120]}")
    return value


def _call_value(node: ast.Call, env: dict[str, Value], state: _State) -> Value:
    name = _callee(node.func, env, state)
    last = name.rsplit(".", 1)[-1]
    args = [_eval(a, env, state) for a in node.args[:64]]
    keywords = {k.arg: _eval(k.value, env, state) for k in node.keywords[:64]}
    receiver = (
        _eval(node.func.value, env, state) if isinstance(node.func, ast.Attribute) else UNKNOWN
    )
    everything = _merge([*args, *keywords.values(), receiver])
    first = args[0] if args else UNKNOWN

    if name in ("os.environ.copy", "os.environ.items", "os.environ.values", "environ.copy"):
        return Value(None, frozenset({SECRET}))  # before the module's own ``items()``
    own = not name.startswith(".") or isinstance(node.func, ast.Attribute)
    if own and last in state.functions and name.split(".", 1)[0] not in state.modules:
        return _call_own(node, state.functions[last], args, state)

    folded = _fold(name, last, first, args, receiver, node, state)
    if folded is not None:
        return folded
    if last in _CLIENTS and _is_http(name, receiver):
        # ``httpx.Client(base_url=…)``: every call of the client goes to that host
        base = keywords.get("base_url", UNKNOWN).text
        host = sensitive.host_of(base) if base else None
        return Value(None, frozenset({CLIENT}), hosts=(host,) if host else ())
    if last == "Request":
        # a prepared request carries its URL and body; its headers authenticate it. It keeps
        # its URL's host: ``urlopen(req)`` sends there, to the vendor's API or to anyone else
        destination, carried = _payload(last, args, keywords)
        host = sensitive.host_of(destination.text or "") if destination.text else None
        body = _BODY if len(args) > 1 or "data" in keywords else _NONE
        return Value(None, carried.labels | body, hosts=(host,) if host else carried.hosts)

    if last in ("getenv",) or name in ("os.environ.get", "environ.get"):
        return _env_value(
            first.text, args[1] if len(args) > 1 else keywords.get("default", UNKNOWN)
        )
    if (
        name in ("dict", "json.dumps", "str", "repr")
        and args
        and _dotted(node.args[0]) == "os.environ"
    ):
        return Value(None, frozenset({SECRET}))
    if last in _SECRET_CALLS and (
        "pyperclip" in name
        or "clipboard" in name
        or "keyring" in name
        or "ImageGrab" in name
        or "pyautogui" in name
    ):
        _fact(state, SECRET_READ, node, name)
        return Value(None, frozenset({SECRET}))
    if name in ("getpass.getpass", "getpass"):
        # the user typing a password or key for the tool they run: no store is read, and
        # the value is a credential for its own service, as a secret variable is (a leak
        # only when it travels as data, or to another host)
        return Value(None, frozenset({ENV_SECRET, CREDENTIAL}))
    if last in _READERS or last.startswith("read"):
        path = (
            first
            if last not in ("read_text", "read_bytes", "iterdir", "rglob", "glob")
            or not receiver.text
            else receiver
        )
        texts = [t for t in (path.text, receiver.text, first.text) if t]
        if any(sensitive.is_sensitive_path(t) for t in texts):
            _fact(
                state, SECRET_READ, node, next(t for t in texts if sensitive.is_sensitive_path(t))
            )
            return Value(
                path.text if last in ("Path", "PurePath") else None, everything.labels | {SECRET}
            )
    positional = last in _FETCHERS and _sent_positionally(last, args, keywords)
    if positional and _is_http(name, receiver):
        _sink(node, name, last, args, keywords, state, receiver.hosts)
        return Value(None, frozenset({FETCHED}))
    if (
        last in _FETCHERS
        and _is_http(name, receiver)
        and not _sends(last, keywords)
        and not first.labels & {SECRET, ENV_SECRET}  # a prepared request carrying secrets
        and not (last == "urlopen" and len(args) > 1)  # ``urlopen(url, data)`` posts ``data``
        and BODY not in first.labels  # ``urlopen(Request(url, data=…))`` posts it too
    ):
        host = sensitive.host_of(first.text or "") if first.text else None
        # a response carries what the server sent, not the request's credentials
        return Value(None, frozenset({FETCHED}), hosts=(host,) if host else ())
    if last == "delete" and state.loops and _is_http(name, receiver):
        _fact(state, BULK_CHANGE, node, f"{name} deletes a remote item per item of a list")
    if last in _SENDERS and (
        _is_http(name, receiver) or (isinstance(node.func, ast.Attribute) and last in _SOCKET_SENDS)
    ):
        _sink(node, name, last, args, keywords, state, receiver.hosts)
        return Value(None, frozenset({FETCHED}))  # the response, not the request's data
    if (last in _EXECUTORS or name == _COMPUTED_BUILTIN) and _is_exec(name, last):
        _exec(node, name, args, keywords, state)
        _git_command(node, args, state)
    if last == "Command":
        _provisioned(node, name, keywords, state)
    _destroys(node, name, last, first, receiver, state)
    _callbacks(node, everything, state)
    if isinstance(node.func, ast.Name) and node.func.id in env:  # a lambda kept in a name
        return everything.with_labels(env[node.func.id].labels)
    return everything


def _callbacks(node: ast.Call, everything: Value, state: _State) -> None:
    """A function of the module handed to another call with data it will be called with
    (``Thread(target=ship, args=(secrets,))``, ``map(ship, [secrets])``, ``pool.submit(ship,
    secrets)``): when the function sends a parameter and the data carries a secret, it flows."""
    handed = [*node.args, *(k.value for k in node.keywords)]
    for argument in handed:
        function = state.functions.get(argument.id) if isinstance(argument, ast.Name) else None
        if function is not None and function.sinks and everything.labels & {SECRET, ENV_SECRET}:
            _fact(state, SECRET_FLOW, node, f"a secret store reaches {function.node.name}()")


def _fold(
    name: str,
    last: str,
    first: Value,
    args: list[Value],
    receiver: Value,
    node: ast.Call,
    state: _State,
) -> Value | None:
    """Calls that compute a string from constants: decoders, joins, paths; modules and
    functions looked up by such a string."""
    looked_up = _looked_up(name, first, args, node)
    if looked_up is not None:
        return looked_up
    if name == "chr" and first.number is not None and 0 <= first.number < 0x110000:
        return Value(chr(first.number), first.labels | {DECODED})
    if name == "chr" and node.args:  # chr(33 + (ord(c) + 14) % 94): a code computed is a cipher
        return Value(None, first.labels | {DECODED})
    if name == "map" and len(node.args) == 2 and _dotted(node.args[0]) == "chr":
        codes = args[1].items or ()
        if all(c.number is not None and 0 <= c.number < 0x110000 for c in codes):
            labels = args[1].labels | {DECODED}
            return Value(None, labels, items=tuple(Value(chr(c.number or 0)) for c in codes))
    if name == "reversed" and first.text is not None:
        characters = tuple(Value(c) for c in reversed(first.text))
        return Value(None, first.labels | {DECODED}, items=characters)
    if name == "ord" and first.text and len(first.text) == 1:
        return Value(None, first.labels, number=ord(first.text))
    if last == "join" and isinstance(node.func, ast.Attribute):
        if name.startswith("os.path") or name.startswith("posixpath"):
            return _placed(_join(args, "/"))
        if receiver.text is not None and args:
            parts = args[0]
            if parts.items is not None and _text_of_items(parts) is not None:
                return Value(_joined(receiver.text, parts), parts.labels | receiver.labels)
            return Value(None, parts.labels)
    if name in ("bytes", "bytearray", "str") and args:
        text = _text_of_items(first)
        if text is not None:
            return Value(text, first.labels)
    if (
        last in ("decode", "encode", "strip", "lower", "upper", "lstrip", "rstrip")
        and receiver.text is not None
    ):
        if (
            last == "decode"
            and args
            and (args[0].text or "").lower().replace("-", "_") in ("rot13", "rot_13")
        ):
            return _decoded(codecs.decode(receiver.text, "rot13"), receiver.labels, node, state)
        text = receiver.text
        text = text.lower() if last == "lower" else text.upper() if last == "upper" else text
        return Value(text.strip() if "strip" in last else text, receiver.labels)
    if last == "decode" and name.startswith("codecs") and len(args) >= 2 and first.text is not None:
        how = (args[1].text or "").lower()
        if "rot" in how:
            return _decoded(codecs.decode(first.text, "rot13"), first.labels, node, state)
    if last in _DECODERS:
        source = first if first.text is not None else receiver
        if last == "fromhex" and receiver.text is None and first.text is not None:
            source = first
        return _decode_call(last, source, node, state)
    if last in (
        "expanduser",
        "expandvars",
        "abspath",
        "realpath",
        "normpath",
        "resolve",
        "absolute",
    ):
        value = first if first.text is not None else receiver
        if value.text is not None and value.text.startswith("~"):
            return _placed(Value(value.text, value.labels | {HOME}))
        return Value(value.text, value.labels)
    if last == "home" and ("Path" in name or name.endswith("home")):
        return Value("~", frozenset({HOME}))
    if (
        name in ("Path", "pathlib.Path", "PurePath")
        and args
        and all(a.text is not None for a in args)
    ):
        value = _join(args, "/")
        if value.text and sensitive.is_sensitive_path(value.text):
            return Value(value.text, value.labels)
        return value
    if name in ("str.maketrans",):
        return None
    if last == "format" and receiver.text is not None:
        return _formatted(receiver, args)
    return None


_IMPORTERS = frozenset({"importlib.import_module", "import_module", "__import__"})
_BUILTINS = frozenset({"__builtins__", "builtins"})
_COMPUTED_BUILTIN = "builtins.?"
"""A built-in function chosen by a name computed at run time: it may be ``exec``."""


def _looked_up(name: str, first: Value, args: list[Value], node: ast.Call) -> Value | None:
    """A module imported, or an attribute fetched, by a name given as a string: the value the
    name refers to, so that ``getattr(importlib.import_module("o" + "s"), "system")(…)`` is
    read as ``os.system(…)`` — indirection hides a call from a reader of the text, not from the
    program."""
    if name in _IMPORTERS and first.text:
        return _referring(first.text)
    if name != "getattr" or len(args) < 2:
        return None
    owner = first.refers or _dotted(node.args[0])
    if owner in _BUILTINS:
        return _referring(args[1].text or _COMPUTED_BUILTIN)
    if first.refers and args[1].text:
        return _referring(f"{first.refers}.{args[1].text}")
    return None


def _referring(name: str) -> Value:
    """The value of a module or function reached by name (``os.environ`` carries secrets)."""
    if name in ("os.environ", "os.environ.items", "os.environ.values"):
        return Value(None, frozenset({SECRET}), refers=name)
    return Value(refers=name)


def _resolved(dotted: str, env: dict[str, Value]) -> str:
    """``dotted`` with its first name replaced by what that variable refers to, if known."""
    root, _, rest = dotted.partition(".")
    target = env.get(root)
    if target is None or target.refers is None:
        return dotted
    return f"{target.refers}.{rest}" if rest else target.refers


def _callee(func: ast.expr, env: dict[str, Value], state: _State) -> str:
    """The dotted name of what a call calls, through names bound to modules looked up by
    string and through calls that return such a function (``getattr(m, "post")(…)``)."""
    name = _dotted(func)
    if name and not name.startswith("."):
        return _resolved(name, env)
    if isinstance(func, ast.Call):
        return _eval(func, env, state).refers or name
    return name


def _joined(separator: str, parts: Value) -> str:
    pieces: list[str] = []
    for item in parts.items or ():
        if item.text is not None:
            pieces.append(item.text)
        elif item.number is not None and 0 <= item.number < 0x110000:
            pieces.append(chr(item.number))
    return separator.join(pieces)[:MAX_TEXT]


def _decode_call(last: str, source: Value, node: ast.Call, state: _State) -> Value:
    if source.text is None:
        return Value(None, source.labels | {DECODED})
    raw = source.text.encode("latin-1", "ignore")
    try:
        if last in ("unhexlify", "a2b_hex", "fromhex", "b16decode"):
            data = binascii.unhexlify(raw.replace(b" ", b""))
        elif last == "b32decode":
            data = base64.b32decode(raw + b"=" * (-len(raw) % 8))
        elif last in ("b85decode",):
            data = base64.b85decode(raw)
        elif last in ("a85decode",):
            data = base64.a85decode(raw)
        else:
            data = base64.b64decode(
                raw + b"=" * (-len(raw) % 4), altchars=b"-_" if "urlsafe" in last else None
            )
    except (binascii.Error, ValueError):
        return Value(None, source.labels | {DECODED})
    return _decoded(data.decode("utf-8", "replace"), source.labels, node, state)


def _decoded(text: str, labels: _Labels, node: ast.AST, state: _State) -> Value:
    meaning = sensitive.meaningful(text)
    if meaning:
        _fact(state, DECODED_STRING, node, f"decodes to {meaning}: {text[:120]}")
    return Value(text[:MAX_TEXT], labels | {DECODED})


def _is_http(name: str, receiver: Value) -> bool:
    lowered = name.lower()
    return (
        any(part in lowered for part in _HTTP_MODULES)
        or bool(receiver.hosts)
        or CLIENT in receiver.labels
        or (lowered.startswith((".", "self.")) and FETCHED in receiver.labels)
        or lowered.rsplit(".", 1)[-1] in ("urlopen", "urlretrieve")  # whatever the module's alias
    )


def _sends(last: str, keywords: dict[str | None, Value]) -> bool:
    return last != "get" and any(k in keywords for k in ("data", "json", "files", "body"))


_WRITING_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _sent_positionally(last: str, args: list[Value], keywords: dict[str | None, Value]) -> bool:
    """A request that carries data given by position: ``http.client``'s ``conn.request("POST",
    "/p", body)`` (a body, or a writing method), and ``requests.get(url, params)`` or
    ``params=`` filled from a secret store — the query carries it in the address, whatever the
    verb. An ordinary query (``get(url, {"q": term})``) is a fetch, and so is one with a named
    token (``{"api_key": os.getenv("NCBI_API_KEY")}``): many APIs authenticate that way."""
    if last == "request" and args and (args[0].text or "").upper() in _WRITING_METHODS:
        return True
    if last == "request" and len(args) >= 3 and "url" not in keywords:
        return True
    if last == "get":
        given = [*args[1:], *(v for k, v in keywords.items() if k == "params")]
        return any(SECRET in v.labels for v in given)
    return False


def _is_exec(name: str, last: str) -> bool:
    if name == _COMPUTED_BUILTIN:
        return True
    if last in ("exec", "eval", "compile", "execfile"):
        return name in (last, f"builtins.{last}")
    if last == "loads":
        return name.startswith(("marshal", "pickle"))
    return name.startswith(("os.", "subprocess.", "commands.", "runpy.", "pty.")) or name in (
        "system",
        "popen",
        "Popen",
        "check_output",
        "run_path",
    )


def _payload(
    last: str, args: list[Value], keywords: dict[str | None, Value]
) -> tuple[Value, Value]:
    """(destination, payload) of a sending call."""
    if last in ("request",) and len(args) >= 2:
        destination, rest = args[1], args[2:]
    else:
        destination, rest = (args[0] if args else UNKNOWN), args[1:]
    payload = [*rest] + [
        v for k, v in keywords.items() if k not in ("headers", "auth", "timeout", "verify", "cert")
    ]
    if last in ("sendall", "send", "sendto", "gethostbyname", "getaddrinfo", "resolve", "query"):
        payload = list(args) + payload
    if "url" in keywords:
        destination = keywords["url"]
    return destination, _merge([*payload, destination])


def _sink(
    node: ast.Call,
    name: str,
    last: str,
    args: list[Value],
    keywords: dict[str | None, Value],
    state: _State,
    base: tuple[str, ...] = (),
) -> None:
    """A send: its facts, with the hosts it goes to — its URL's, or the base URL of the client
    it is a call of (``base``) when its URL is a path (``client.post("/v1/items", …)``)."""
    destination, payload = _payload(last, args, keywords)
    host = sensitive.host_of(destination.text or "") if destination.text else None
    hosts = (host,) if host else destination.hosts or base
    _fact(state, NETWORK_SEND, node, name, hosts)
    if state.loops:
        _bulk(node, name, last, payload, state)
    carried = payload.labels
    if carried & {SECRET, ENV_SECRET} == {ENV_SECRET} and (
        _token_request(node, destination, hosts) or _own_service(carried, destination, hosts)
    ):
        return  # the client authenticates to the user's own service
    if SECRET in carried or ENV_SECRET in carried:
        what = "a secret store" if SECRET in carried else "a secret environment variable"
        _fact(state, SECRET_FLOW, node, f"{what} reaches {name}", hosts, SECRET in carried)
    if state.current is not None:
        reached = {int(label.split(":")[1]) for label in carried if label.startswith("param:")}
        if reached:
            state.current.sinks = state.current.sinks | frozenset(reached)


def _bulk(node: ast.Call, name: str, last: str, payload: Value, state: _State) -> None:
    """A send made in a loop: a change per item (``BULK_CHANGE``), or a login per password of
    the list walked (``CREDENTIAL_GUESS``)."""
    if last in ("put", "patch") or MUTATING in payload.labels:
        _fact(state, BULK_CHANGE, node, f"{name} changes a remote service item by item")
    bodies = [k.value for k in node.keywords if k.arg in ("data", "json")] + node.args[1:2]
    if any(_password_field(body) for body in bodies):
        _fact(state, CREDENTIAL_GUESS, node, f"{name} sends a password per item of a list")


def _password_field(body: ast.expr) -> bool:
    """A dictionary written in the call whose password field is computed, not a constant."""
    if not isinstance(body, ast.Dict):
        return False
    return any(
        isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and _PASSWORD_FIELD.match(key.value)
        and not isinstance(value, ast.Constant)
        for key, value in zip(body.keys, body.values, strict=True)
    )


def _token_request(node: ast.Call, destination: Value, hosts: tuple[str, ...]) -> bool:
    """Whether the call is an OAuth token request (a body with ``grant_type``) to an address the
    script does not spell out: a base URL from the user's environment or arguments, not one
    fetched or decoded. The client id and secret in its body are how the user's own service
    (``JAMF_URL``, ``OKTA_ORG_URL``) is signed in to, as a header authenticates elsewhere; to a
    literal address — the author's choice — the secret still flows there."""
    if hosts or destination.labels & {FETCHED, DECODED}:
        return False
    bodies = [k.value for k in node.keywords if k.arg in ("data", "json")] + node.args[1:2]
    return any(_grant_type(body) for body in bodies)


def _own_service(carried: _Labels, destination: Value, hosts: tuple[str, ...]) -> bool:
    """Whether every secret variable the call carries is the credential of the service whose
    address, from the user's environment, the call goes to: ``MOODLE_TOKEN`` in a query to
    ``MOODLE_URL`` (some APIs take their token so) is the user signing in to their own
    instance. An address the script spells out or falls back to, fetched or decoded, or
    another service's secret (``AWS_SECRET_ACCESS_KEY`` to ``MOODLE_URL``) still flows."""
    if hosts or destination.labels & {FETCHED, DECODED}:
        return False
    services = {
        label.removeprefix(ADDRESS) for label in destination.labels if label.startswith(ADDRESS)
    }
    credentials = {
        label.removeprefix(CREDENTIAL) for label in carried if label.startswith(CREDENTIAL)
    }
    return bool(credentials) and credentials <= services - {""}


def _grant_type(body: ast.expr) -> bool:
    """A dictionary written in the call (``{"grant_type": …}``, ``dict(grant_type=…)``) that
    names the OAuth grant."""
    if isinstance(body, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "grant_type" for k in body.keys)
    if isinstance(body, ast.Call) and _dotted(body.func) == "dict":
        return any(k.arg == "grant_type" for k in body.keywords)
    return False


def _exec(
    node: ast.Call, name: str, args: list[Value], keywords: dict[str | None, Value], state: _State
) -> None:
    value = _merge(_executed(name, args, keywords))
    if FETCHED in value.labels:
        _fact(state, FETCH_EXEC, node, f"{name} runs text fetched from the network", value.hosts)
    elif DECODED in value.labels:
        _fact(state, DECODED_EXEC, node, f"{name} runs text produced by a decoder")
    elif args and args[0].text is None and name in ("exec", "eval", "compile"):
        _fact(state, EXEC_DYNAMIC, node, name)
    command = _command_line(args[0]) if args and name not in ("exec", "eval", "compile") else None
    if command:
        from grading.programs import shell  # shell reads ``python -c`` with this module

        for fact in shell.analyse(command):
            _fact(state, fact.kind, node, f"{name}: {fact.detail}", fact.hosts, fact.store)


_LIFECYCLE = ("create", "update", "delete")


def _provisioned(
    node: ast.Call, name: str, keywords: dict[str | None, Value], state: _State
) -> None:
    """A provisioning tool's command resource (Pulumi's ``local.Command(create="…")``): the
    shell line it runs on ``up`` (or ``destroy``), read as shell."""
    from grading.programs import shell  # shell reads ``python -c`` with this module

    for key in _LIFECYCLE:
        command = _command_line(keywords[key]) if key in keywords else None
        for fact in shell.analyse(command) if command else ():
            _fact(state, fact.kind, node, f"{name}({key}=…): {fact.detail}", fact.hosts, fact.store)


def _executed(name: str, args: list[Value], keywords: dict[str | None, Value]) -> list[Value]:
    """What a call runs as code or as a command. A process started from an argument list with
    no shell, whose program is named and is no interpreter or launcher (``sensitive.LAUNCHERS``),
    runs that program: the rest of the list is its data (``["dig", "+short", "A", name]`` with a
    name read from a certificate log resolves it, it does not run it). Anything else runs all
    it is given."""
    items = args[0].items if args and name.startswith("subprocess.") else None
    if not items or items[0].text is None or "shell" in keywords:
        return args + list(keywords.values())
    program = re.split(r"[\\/]", items[0].text.strip().lower())[-1].removesuffix(".exe")
    if program in sensitive.LAUNCHERS or program.rstrip("0123456789.") in sensitive.LAUNCHERS:
        return args + list(keywords.values())
    return [items[0], *(keywords[k] for k in ("executable",) if k in keywords)]


def _command_line(value: Value) -> str | None:
    """The shell command line a process call runs: its string, or its argument list joined
    (``subprocess.run(["curl", "-T", key, url])``), unknown arguments as placeholders."""
    if value.text is not None:
        return value.text
    if value.items is None:
        return None
    return " ".join(
        shlex.quote(item.text) if item.text is not None else "x" for item in value.items
    )


MAX_INLINE_DEPTH = 3
MAX_INLINE_STATEMENTS = 40


def _call_own(node: ast.Call, function: _Function, args: list[Value], state: _State) -> Value:
    inlined = _inline(function, args, state)
    if inlined is not None:
        return inlined
    labels = set(function.returns)
    for index in function.passes:
        if index < len(args):
            labels |= args[index].labels
    for index in function.sinks:
        if index < len(args) and (SECRET in args[index].labels or ENV_SECRET in args[index].labels):
            _fact(state, SECRET_FLOW, node, f"a secret store reaches {function.node.name}()")
    hosts = tuple(h for a in args for h in a.hosts)
    return Value(function.returns_text, frozenset(labels), hosts=hosts)


def _inline(function: _Function, args: list[Value], state: _State) -> Value | None:
    """A small function called with known arguments, evaluated with them: decoders written as
    helpers (``def d(b): return "".join(chr(c ^ K) for c in b)``) fold like built-in ones."""
    known = any(a.text is not None or a.number is not None or a.items is not None for a in args)
    if (
        not known
        or state.depth >= MAX_INLINE_DEPTH
        or len(function.node.body) > MAX_INLINE_STATEMENTS
    ):
        return None
    env = dict(state.globals)
    env.update(dict(zip(function.params, args, strict=False)))
    returned: list[Value] = []
    outer_yielded, state.yielded = state.yielded, returned
    state.depth += 1
    try:
        _block(function.node.body, env, state, returned)
    finally:
        state.depth -= 1
        state.yielded = outer_yielded
    texts = [v for v in returned if v.text is not None]
    if len(texts) == 1:
        return texts[0]
    return None


def _fact(
    state: _State,
    kind: str,
    node: ast.AST,
    detail: str,
    hosts: tuple[str, ...] = (),
    store: bool = False,
) -> None:
    offset = state.offsets.of(node) if state.offsets else 0
    key = (kind, offset)
    hosts = tuple(h for h in hosts if h)
    if key in state.seen:
        _rehost(state, state.seen[key], hosts)
        return
    state.seen[key] = len(state.facts)
    state.facts.append(Fact(kind, offset, detail[:200], hosts, store))


def _rehost(state: _State, index: int, hosts: tuple[str, ...]) -> None:
    """One call site reached again with other hosts (a helper ``_get(url)`` called for the
    vendor's API and for another address): its fact names every host, and none once a call
    reaches it with an address not known, so the first host found does not speak for all."""
    fact = state.facts[index]
    if fact.hosts:
        more = tuple(h for h in hosts if h not in fact.hosts)
        state.facts[index] = replace(fact, hosts=fact.hosts + more if hosts else ())


def blocks(text: str, regions: tuple[tuple[int, int], ...]) -> Iterator[Fact]:
    """The facts of each region of ``text`` read as its own Python program (code blocks)."""
    return per_block(analyse, text, regions)


_MESSAGE_CALLS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fail", "exit",
     "abort", "die", "UsageError", "ArgumentTypeError"}
)  # fmt: skip


def message_spans(text: str, *, test: bool = False) -> list[tuple[int, int]]:
    """Character spans of the string literals a script only *says*: error messages it raises,
    asserts, logs or exits with, and what it prints when an import fails. They describe what the
    code refuses or reports ("Encrypted archive entry is unsupported"), not what it does, so
    pattern rules do not read them. In a
    test (``test``), every string an ``assert`` checks is test data too ("the metadata address
    is refused")."""
    if not any(
        word in text for word in ("raise", "assert", "log", "warn", "exit", "fail", "Error")
    ):
        return []
    tree = _parse(text)
    if tree is None:
        return []
    offsets = _Offsets(text, 0)
    spans: list[tuple[int, int]] = []

    def strings(node: ast.AST | None) -> None:
        if node is None:
            return
        for inner in _walk(node):
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                end_line = getattr(inner, "end_lineno", None)
                end_column = getattr(inner, "end_col_offset", None)
                if end_line is None or end_column is None:
                    continue
                start = offsets.of(inner)
                end = offsets.of(_Position(end_line, end_column))
                if end > start:
                    spans.append((start, end))

    for node in _walk(tree):
        if isinstance(node, ast.ExceptHandler) and _missing_module(node):
            for inner in _walk(node):
                if isinstance(inner, ast.Call) and _dotted(inner.func) == "print":
                    for argument in inner.args:
                        strings(argument)
        if isinstance(node, ast.Raise):
            strings(node.exc)
        elif isinstance(node, ast.Assert):
            strings(node.msg)
            if test:
                strings(node.test)
        elif isinstance(node, ast.Call):
            last = _dotted(node.func).rsplit(".", 1)[-1]
            if last in _MESSAGE_CALLS or last.endswith(("Error", "Exception", "Warning")):
                for argument in node.args:
                    strings(argument)
    return sorted(set(spans))


def _missing_module(handler: ast.ExceptHandler) -> bool:
    """A handler of a failed import: what it prints is a hint to the user ("Install with: pip
    install …"), a message like an error's, not a command the script runs."""
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught else []
    return any(_dotted(name) in ("ImportError", "ModuleNotFoundError") for name in names)


@dataclass(frozen=True)
class _Position:
    lineno: int
    col_offset: int


_DELETERS = frozenset({"rmtree", "remove", "unlink", "rmdir", "removedirs", "remove_tree"})
_SQL_RUNNERS = frozenset({"execute", "executemany", "executescript", "exec_driver_sql", "text",
                          "raw", "run_sql", "query", "sql"})  # fmt: skip


def _placed(value: Value) -> Value:
    """A path computed from the home folder keeps its ``place:home`` label only while deleting
    it would lose the user's data: ``~/.cache/tool`` is a cache, ``~/Projects`` is not."""
    if HOME in value.labels and value.text is not None and not destruction.valuable(value.text):
        return Value(value.text, value.labels - {HOME}, value.number, value.items, value.hosts)
    return value


def _from_own_file(node: ast.expr) -> bool:
    """``Path(__file__)`` or ``Path(__file__).resolve()``: the script's own location."""
    while isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve", "absolute"):
            node = node.func.value
        elif node.args:
            node = node.args[0]
        else:
            return False
    return isinstance(node, ast.Name) and node.id == "__file__"


def _parent_depth(node: ast.expr) -> int:
    """How many ``.parent`` steps lead up from ``__file__`` (``Path(__file__).parent.parent``)."""
    depth = 0
    while isinstance(node, ast.Attribute) and node.attr == "parent":
        depth += 1
        node = node.value
    return depth if _from_own_file(node) else 0


def _destroys(
    node: ast.Call, name: str, last: str, first: Value, receiver: Value, state: _State
) -> None:
    """A delete whose target is the user's data, SQL that drops schemas or databases."""
    if last in _DELETERS and (
        name.startswith(("shutil.", "os.", "distutils.")) or name in ("rmtree", "remove_tree")
    ):
        target = first
    elif last in ("unlink", "rmdir") and isinstance(node.func, ast.Attribute):
        target = receiver
    elif last in _SQL_RUNNERS and first.text and destruction.SQL_DESTRUCTION.search(first.text):
        _fact(state, DESTROYS_DATA, node, f"{name} runs {first.text[:100]}")
        return
    else:
        return
    lost = destruction.valuable(target.text, target.labels)
    if lost is not None:
        _fact(state, DESTROYS_DATA, node, f"{name} deletes {lost}: {(target.text or '?')[:100]}")


def _git_command(node: ast.Call, args: list[Value], state: _State) -> None:
    """``subprocess.run(["git", "push", "-f", …])``: the words of a git command, when known."""
    command = args[0] if args else UNKNOWN
    if command.items is not None:
        words = [item.text for item in command.items]
    elif command.text is not None:
        words = list(command.text.split())
    else:
        return
    if words and words[0] == "git" and all(w is not None for w in words):
        state.git.append(([w for w in words[1:] if w is not None], node))


_FIELD = re.compile(r"\{(\d*)\}")


def _formatted(template: Value, args: list[Value]) -> Value:
    """``"{}://{}".format(a, b)`` and ``"%s/%s" % (a, b)`` with the arguments' known texts put
    in their places (positional fields only; an unknown argument stays ``{}``)."""
    labels = template.labels | _merge(args).labels
    hosts = template.hosts + _merge(args).hosts
    position = iter(range(len(args)))

    def place(match: re.Match[str]) -> str:
        index = int(match.group(1)) if match.group(1) else next(position, len(args))
        value = args[index] if index < len(args) else UNKNOWN
        return value.text if value.text is not None else "{}"

    text = _FIELD.sub(place, template.text or "")[:MAX_TEXT]
    host = sensitive.host_of(text)
    return Value(text, labels, hosts=hosts + ((host,) if host else ()))
