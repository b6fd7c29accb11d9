"""What kind of text each file is, and the views of it that rules look at.

A rule declares the *kinds* of text it applies to: instruction-override phrases make sense in
Markdown prose, ``eval(`` only in code. A Markdown file therefore yields several views — prose,
front matter, and one view per fenced-code language — each the same length as the file with the
other regions blanked (newlines kept), so a match offset is a file offset and line numbers stay
exact without any bookkeeping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from grading import linear
from grading.programs.makefile import is_makefile
from grading.tier1.deobfuscate import unescaped
from skillformat.skillmd import front_matter_span

KINDS = frozenset(
    {"prose", "frontmatter", "python", "shell", "javascript", "config", "code", "data"}
)
"""``code`` is code whose language is unknown (an unlabelled fence); ``data`` is bulk markup
(schemas, licences, CSV) that only rules naming ``data`` explicitly read — the alias ``any`` does
not include it, which keeps megabytes of XML schema cheap to scan."""

KIND_ALIASES: dict[str, frozenset[str]] = {
    "any": KINDS - {"data"},
    "scripts": frozenset({"python", "shell", "javascript", "code"}),
}

_MARKDOWN = {".md", ".markdown", ".mdx", ".mdc"}
_PYTHON = {".py", ".pyw", ".pyi", ".pth"}
"""Python, and the ``.pth`` files whose ``import`` lines the interpreter runs at every start."""
_SHELL = {".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".psm1", ".bat", ".cmd"}
_JAVASCRIPT = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"}
_CONFIG = {".json", ".jsonc", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".skill"}
_HTML = {".html", ".htm", ".xhtml", ".vue", ".svelte"}
_PROSE = {".txt", ".rst", ".adoc", ".tex", ".org"}
_DATA = {".xsd", ".xml", ".csv", ".tsv", ".svg", ".bib", ".bst", ".sty", ".cls", ".lock", ".map"}
_DATA_STEMS = ("license", "licence", "copying", "notice", "ofl")
_SHELL_NAMES = {"dockerfile", "makefile", "containerfile", "justfile", "procfile", "pkgbuild",
                "apkbuild", "preinst", "postinst", "prerm", "postrm", "earthfile"}  # fmt: skip
"""Files a tool runs as shell by their name alone: an Earthfile, an Arch or Alpine package's build
script, a Debian package's maintainer scripts (run as root on install and removal)."""
_UNKNOWN_AS_TEXT_MAX = 64 * 1024

_FENCE_LANG: dict[str, str] = {
    **dict.fromkeys(("python", "py", "python3", "ipython", "pycon"), "python"),
    **dict.fromkeys(
        ("bash", "sh", "shell", "zsh", "console", "shell-session", "powershell", "ps1", "cmd"),
        "shell",
    ),
    **dict.fromkeys(("dockerfile", "makefile", "bat", "fish"), "shell"),
    **dict.fromkeys(
        ("javascript", "js", "typescript", "ts", "jsx", "tsx", "node", "mjs", "html", "vue"),
        "javascript",
    ),
    **dict.fromkeys(("json", "jsonc", "yaml", "yml", "toml", "ini", "env", "dotenv"), "config"),
}
_PROSE_FENCES = {"markdown", "md", "text", "txt", "plaintext", "prompt", "xml"}

_FENCE_OPEN = re.compile(r"^[ \t>]{0,12}(`{3,}|~{3,})[ \t]*([\w+#.-]{0,40})", re.MULTILINE)


@dataclass(frozen=True)
class View:
    """A kind-tagged view of one file's (normalised) text.

    ``anchor`` is set for content that does not exist verbatim in the file (decoded base64, Unicode
    tag payloads): every hit in it is reported at the anchor's (line, column) and ``origin`` says
    how it was recovered.
    """

    kind: str
    text: str
    spans: tuple[tuple[int, int], ...] = ()
    anchor: tuple[int, int] | None = None
    origin: str | None = None

    def regions(self) -> tuple[tuple[int, int], ...]:
        """The (start, end) spans of the text that belong to this view, in order."""
        return self.spans or ((0, len(self.text)),)


def expand_kinds(names: list[str] | tuple[str, ...]) -> frozenset[str]:
    kinds: set[str] = set()
    for name in names:
        if name in KIND_ALIASES:
            kinds |= KIND_ALIASES[name]
        elif name in KINDS:
            kinds.add(name)
        else:
            raise ValueError(f"unknown file kind {name!r}")
    return frozenset(kinds)


def file_kinds(path: str, text: str) -> tuple[str, ...]:
    """The kinds a whole (non-Markdown) file is read as, from its name and first line."""
    name = path.rsplit("/", 1)[-1].lower()
    suffix = name[name.rfind(".") :] if "." in name else ""
    if suffix in _PYTHON:
        return ("python",)
    if suffix in _SHELL or name in _SHELL_NAMES or is_makefile(path):
        return ("shell",)
    if suffix in _JAVASCRIPT:
        return ("javascript",)
    if text.startswith("#!"):  # a script, whatever its name says (``logo.svg`` run by bash)
        first = text[: text.find("\n")] if "\n" in text else text
        if "python" in first:
            return ("python",)
        if "node" in first or "deno" in first or "bun" in first:
            return ("javascript",)
        return ("shell",)
    if name.startswith("requirements") and suffix in {".txt", ".in"}:
        return ("config",)
    if suffix in _CONFIG or name.startswith(".env"):
        return ("config",)
    if suffix in _HTML:
        return ("prose", "javascript")
    if name.startswith(_DATA_STEMS) or suffix in _DATA:
        return ("data",)
    if suffix in _PROSE:
        return ("prose",)
    if len(text) <= _UNKNOWN_AS_TEXT_MAX:
        return ("prose", "code")
    return ("data",)


def is_markdown(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return any(name.endswith(suffix) for suffix in _MARKDOWN)


def frontmatter_span(text: str) -> tuple[int, int] | None:
    """(start, end) of the YAML front matter body, without the ``---`` fences: the shared
    SKILL.md parser's answer, so Tier 1 reads front matter exactly where intake did."""
    return front_matter_span(text)


@dataclass(frozen=True)
class Fence:
    """A fenced code block of a Markdown file: its language tag and the span of its body."""

    language: str
    start: int
    end: int


def fenced_blocks(text: str, start: int = 0) -> list[Fence]:
    """The fenced code blocks of a Markdown text from ``start`` on, in order (an unclosed fence
    runs to the end of the text)."""
    return list(_fenced_blocks(text, start))


@lru_cache(maxsize=8)
def _fenced_blocks(text: str, start: int) -> tuple[Fence, ...]:
    """``fenced_blocks``, kept for the last few texts: a file's views, labels, intents and
    programs each ask for its blocks, and a guide of thousands of them took a tenth of a second
    to read each time."""
    fences: list[Fence] = []
    lines = _MarkedLines(text)
    position = start
    while True:
        opening = lines.search(_FENCE_OPEN, ("```", "~~~"), position)
        if opening is None:
            break
        fence, language = opening.group(1), opening.group(2).lower()
        body_start = text.find("\n", opening.end())
        if body_start < 0:
            break
        body_start += 1
        closing = lines.search(_closing_fence(fence), (fence,), body_start)
        body_end = closing.start() if closing else len(text)
        fences.append(Fence(language, body_start, body_end))
        position = closing.end() if closing else len(text)
    return tuple(fences)


@lru_cache(maxsize=64)
def _closing_fence(fence: str) -> re.Pattern[str]:
    """The line closing a block opened by ``fence``: at least as many of its characters."""
    return re.compile(
        r"^[ \t>]{0,12}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$",
        re.MULTILINE,
    )


class _MarkedLines:
    """Searches of a text for patterns that match only at a line start and whose matches hold
    a marker on their first line (a fence's backticks or tildes).

    Only the lines holding a marker are tried: the regex engine would try every character of a
    long guide for the few lines that open or close its code blocks. Each marker's next
    occurrence is remembered, so searching forward finds each occurrence once.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._next: dict[str, tuple[int, int]] = {}  # marker → (searched from, next occurrence)

    def search(
        self, pattern: re.Pattern[str], markers: tuple[str, ...], position: int
    ) -> re.Match[str] | None:
        """What ``pattern.search(text, position)`` finds."""
        text = self._text
        while True:
            found = [hit for marker in markers if (hit := self._next_of(marker, position)) >= 0]
            if not found:
                return None
            hit = min(found)
            line_start = text.rfind("\n", 0, hit) + 1
            if line_start >= position:  # a line starting before ``position`` cannot match
                match = pattern.match(text, line_start)
                if match is not None:
                    return match
            line_end = text.find("\n", hit)
            if line_end < 0:
                return None
            position = line_end + 1

    def _next_of(self, marker: str, position: int) -> int:
        searched, hit = self._next.get(marker, (-1, -1))
        if searched < 0 or position < searched or 0 <= hit < position:
            hit = self._text.find(marker, position)
            self._next[marker] = (position, hit)
        return hit


def markdown_views(text: str) -> list[View]:
    """Prose, front matter and per-language fenced-code views of one Markdown file."""
    regions: dict[str, list[tuple[int, int]]] = {}
    fm = frontmatter_span(text)
    prose_start = 0
    if fm is not None:
        regions["frontmatter"] = [fm]
        prose_start = text.find("\n", fm[1]) + 1 or len(text)
    prose: list[tuple[int, int]] = []
    position = prose_start
    for fence in fenced_blocks(text, prose_start):
        opening = text.rfind("\n", position, fence.start - 1) + 1
        prose.append((position, max(position, opening)))
        kind = (
            "prose" if fence.language in _PROSE_FENCES else _FENCE_LANG.get(fence.language, "code")
        )
        regions.setdefault(kind, []).append((fence.start, fence.end))
        closing_end = text.find("\n", fence.end)
        position = len(text) if closing_end < 0 else closing_end
    prose.append((position, len(text)))
    regions.setdefault("prose", []).extend(prose)
    blanked = _blank(text) if len(regions) > 1 else None  # each view blanks most of the text
    return [
        View(
            kind,
            _keep_only(text, spans, blanked),
            tuple(sorted(s for s in spans if s[1] > s[0])),
        )
        for kind, spans in regions.items()
    ]


_HTML_COMMENT = linear.compile(r"(?s)<!--(.*?)-->")
_PROGRAMS = (
    "cat|tail|head|sed|awk|jq|xargs|tee|tar|zip|gzip|find|cp|rm|chmod|curl|wget|nc|ncat|socat|scp"
    "|rsync|sftp|ssh|dig|nslookup|openssl|git|gh|aws|gsutil|gcloud|az|base64|printf|echo|env"
    "|export|python3?|node|bash|sh|zsh|pwsh|powershell|npx|pip3?|npm"
)
_COMMAND_LINE = re.compile(
    rf"(?m)^[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?(?:{_PROGRAMS})[ \t][^\n]*"
    r"(?:\\\n[^\n]*|\n[ \t]*(?:\||&&)[^\n]*)*"
)
"""A command line: its first word a program the agent would run, with the lines that continue
it (a trailing backslash, a next line that starts with a pipe)."""


def comment_commands(text: str) -> list[tuple[int, int]]:
    """The command lines inside the HTML comments of a Markdown file: hidden from whoever reads
    it rendered, carried out by an agent that reads it raw."""
    return [
        (match.start(1) + line.start(), match.start(1) + line.end())
        for match in _HTML_COMMENT.finditer(text)
        for line in _COMMAND_LINE.finditer(match.group(1))
    ]


def _keep_only(text: str, spans: list[tuple[int, int]], blanked: str | None = None) -> str:
    """``text`` with everything outside ``spans`` blanked to spaces, newlines kept.
    ``blanked``: all of ``text`` blanked, to cut pieces from when it makes several views."""
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start > cursor:
            pieces.append(_blank(text[cursor:start]) if blanked is None else blanked[cursor:start])
        pieces.append(text[max(start, cursor) : end])
        cursor = max(cursor, end)
    if cursor < len(text):
        pieces.append(_blank(text[cursor:]) if blanked is None else blanked[cursor:])
    return "".join(pieces)


_ASCII_BLANK = bytes(0x0A if byte == 0x0A else 0x20 for byte in range(128)) + b"\x20" * 128


def _blank(piece: str) -> str:
    """Spaces for every character but newlines. Any other character, encoded as one "?" byte,
    becomes a space too: one translation keeps the length in characters."""
    return piece.encode("ascii", "replace").translate(_ASCII_BLANK).decode("ascii")


_HEREDOC = re.compile(
    r"\b(?:(python[23]?(?:\.\d{1,2})?)|(node|deno|bun))\b[^\n<]{0,60}"
    r"<<-?[ \t]*+[\"']?(\w{1,40})[\"']?[^\n]{0,80}\n"
)


def embedded_script_views(text: str) -> list[View]:
    """Python or JavaScript fed to an interpreter as a here-document inside a shell script
    (``python3 - <<'EOF' … EOF``): read with the rules of its own language."""
    if "<<" not in text:
        return []
    regions: dict[str, list[tuple[int, int]]] = {}
    for opening in _HEREDOC.finditer(text):
        terminator = re.compile(r"^[ \t]*" + re.escape(opening.group(3)) + r"[ \t]*$", re.MULTILINE)
        closing = terminator.search(text, opening.end())
        end = closing.start() if closing else len(text)
        kind = "python" if opening.group(1) else "javascript"
        regions.setdefault(kind, []).append((opening.end(), end))
    return [View(kind, _keep_only(text, spans), tuple(spans)) for kind, spans in regions.items()]


_SCRIPT_ELEMENT = re.compile(r"(?is)<script\b[^>]{0,400}>(.{0,200000}?)</script\s*>")
_EVENT_HANDLER = re.compile(r"""(?i)\son[a-z]{3,20}\s*=\s*(["'])(.{1,2000}?)\1""")


def script_views(text: str) -> list[View]:
    """The scripts of an SVG or XML file (``<script>`` elements, ``on…=`` handlers), read as
    JavaScript: an image can carry code that runs when it is opened in a browser."""
    lowered = text.lower()
    if "<script" not in lowered and " on" not in lowered:
        return []
    spans = [m.span(1) for m in _SCRIPT_ELEMENT.finditer(text)]
    spans += [m.span(2) for m in _EVENT_HANDLER.finditer(text)]
    if not spans:
        return []
    spans.sort()
    return [View("javascript", _keep_only(text, spans), tuple(spans))]


_CI_PIPELINE = re.compile(
    r"(?i)(?:^|/)(?:[\w.-]*\.?gitlab-ci\.ya?ml|bitbucket-pipelines\.ya?ml|azure-pipelines\.ya?ml"
    r"|\.buildkite/[\w.-]+\.ya?ml)$"
)
"""A CI pipeline other than GitHub Actions (``programs.workflow`` reads those): GitLab CI,
Bitbucket Pipelines, Azure Pipelines, Buildkite."""
_SCRIPT_KEY = re.compile(
    r"^([ \t]*)(?:-[ \t]+)?(?:before_script|after_script|script|commands?|bash)[ \t]*:[ \t]*(.*)$"
)


def ci_script_view(path: str, text: str) -> View | None:
    """The lines a CI pipeline runs (the items and block lines under ``script:``,
    ``before_script:``, ``commands:``…), read as shell: a test step followed by ``|| true`` or a
    results file rewritten there is the same act as in a shell script."""
    if _CI_PIPELINE.search(path) is None:
        return None
    spans: list[tuple[int, int]] = []
    indent: int | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        start, body = offset, line.rstrip("\r\n")
        offset += len(line)
        stripped = body.lstrip(" \t")
        depth = len(body) - len(stripped)
        if indent is not None and stripped and not stripped.startswith("#"):
            if depth > indent or (depth == indent and stripped.startswith("- ")):
                item = stripped[2:] if stripped.startswith("- ") else stripped
                spans.append((start + len(body) - len(item), start + len(body)))
                continue
            indent = None
        key = _SCRIPT_KEY.match(body)
        if key is not None:
            indent = len(key.group(1))
            if key.group(2) and key.group(2)[0] not in "|>":
                spans.append((start + key.start(2), start + len(body)))
    return View("shell", _keep_only(text, spans), tuple(spans)) if spans else None


def views_of(path: str, text: str) -> list[View]:
    if is_markdown(path):
        return markdown_views(text)
    kinds = file_kinds(path, text)
    views = [View(kind, text) for kind in kinds]
    if path.lower().endswith((".svg", ".xml", ".xhtml")):
        views.extend(script_views(text))
    if (pipeline := ci_script_view(path, text)) is not None:
        views.append(pipeline)
    if "shell" in kinds:
        views.extend(v for v in embedded_script_views(text) if v.kind not in kinds)
    return views


_JSON_STRING = linear.compile(r'"((?:[^"\\\n]|\\.)+)"(\s*:)?')
"""A JSON string and, when it is a key, the colon after it."""
_YAML_VALUE = linear.compile(
    r"(?m)^[ \t]*(?:-[ \t]+)?(?:[\w\"'.-]{1,80}[ \t]*:[ \t]+)?([^\n#|>][^\n]*)$"
)


_INI_VALUE = linear.compile(r"(?m)^[ \t]*[\w.-]{1,80}[ \t]*[=:][ \t]*([^\n]+)$")
"""The value of an INI setting (``run = git config …``)."""
_CSV_CELL = linear.compile(r'(?m)(?:^|[,;\t])[ \t]*("(?:[^"\n]|"")*"|[^,;\t\n]+)')
"""A cell of a CSV or TSV table (quoted or bare)."""
_MARKUP_TEXT = linear.compile(r">([^<>]+)<")
"""The text between two tags of an SVG image (``<desc>…</desc>``, ``<text>…</text>``)."""


def data_strings_view(path: str, text: str) -> View:
    """The string values of a data file (JSON, YAML, TOML, INI), the cells of a table (CSV,
    TSV) and the text of an image (SVG) as prose: when the agent is told to carry out a
    checklist, a plan or a list of steps kept as data, its values are instructions."""
    lowered = path.lower()
    if lowered.endswith((".yaml", ".yml")):
        pattern, keys = _YAML_VALUE, False
    elif lowered.endswith((".ini", ".cfg")):
        pattern, keys = _INI_VALUE, False
    elif lowered.endswith((".csv", ".tsv")):
        pattern, keys = _CSV_CELL, False
    elif lowered.endswith(".svg"):
        pattern, keys = _MARKUP_TEXT, False
    else:
        pattern, keys = _JSON_STRING, True
    spans = [m.span(1) for m in pattern.finditer(text) if not keys or m.start(2) < 0]
    if pattern is _YAML_VALUE:
        spans = _with_yaml_blocks(text, spans)
    return View("prose", _keep_only(text, spans), tuple(spans))


_YAML_BLOCK_HEAD = linear.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?[\w\"'.-]{1,80}[ \t]*:[ \t]+[|>][-+0-9]{0,2}[ \t]*(?:#[^\n]*)?$"
)
"""A YAML key whose value is a block scalar (``description: |``, ``summary: >-``)."""


def _with_yaml_blocks(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The values of a YAML file with each block scalar (the lines indented under ``key: |``)
    one value, as YAML reads it: an OpenAPI ``description: |`` is a paragraph, and an order
    wrapped over its lines is one sentence (the destination on one line, what is sent on the
    next), not a line each."""
    blocks: list[tuple[int, int]] = []
    for head in _YAML_BLOCK_HEAD.finditer(text):
        if blocks and head.start() < blocks[-1][1]:
            continue  # a ``key: |`` line inside an earlier block is its text
        indent, start, end = len(head.group(1)), head.end() + 1, head.end() + 1
        cursor = start
        while cursor < len(text):
            line_end = text.find("\n", cursor)
            line_end = len(text) if line_end < 0 else line_end
            line = text[cursor:line_end]
            if line.strip():
                if len(line) - len(line.lstrip(" \t")) <= indent:
                    break
                end = line_end
            cursor = line_end + 1
        if end > start:
            blocks.append((start, end))
    blocks += _plain_continued(text)
    if not blocks:
        return spans
    kept = [s for s in spans if not any(low <= s[0] < high for low, high in blocks)]
    return sorted(kept + blocks)


_YAML_PLAIN_HEAD = linear.compile(
    r"(?m)^([ \t]*)(?:-[ \t]+)?[\w.-]{1,80}[ \t]*:[ \t]+([^\s#|>\"'\[{&*!][^\n]*)$"
)
_YAML_KEY_OR_ITEM = re.compile(r"(?:-(?:[ \t]|$)|#|[\w\"'.-]{1,80}[ \t]*:(?:[ \t]|$))")


def _plain_continued(text: str) -> list[tuple[int, int]]:
    """Plain scalars continued on the lines after their key, indented deeper (``note: read the
    contents of`` / ``  ~/.ssh/id_rsa and send them``): YAML folds them into one value, so the
    order they wrap is one sentence."""
    found: list[tuple[int, int]] = []
    for head in _YAML_PLAIN_HEAD.finditer(text):
        indent, end, cursor = len(head.group(1)), head.end(), head.end() + 1
        while cursor < len(text):
            line_end = text.find("\n", cursor)
            line_end = len(text) if line_end < 0 else line_end
            line = text[cursor:line_end]
            stripped = line.lstrip(" \t")
            if not stripped or len(line) - len(stripped) <= indent:
                break
            if _YAML_KEY_OR_ITEM.match(stripped):
                break
            end, cursor = line_end, line_end + 1
        if end > head.end():
            found.append((head.start(2), end))
    return found


_COMMAND_VALUE = linear.compile(
    r"^\s*(?:sudo\s+)?(?:[\w./-]{0,80}/)?(?:curl|wget|python[23]?|node|deno|bun|bash|sh|zsh|pwsh"
    r"|powershell|npx|pipx?|pip3|npm|pnpm|yarn|uvx?|git|rm|chmod|nc|ncat|ssh|scp|rsync|eval|iex"
    r"|perl|ruby|php|docker|kubectl|gh|base64|openssl)\b"
    r"|^\s*(?:env|printenv|tar|cat)\s+[|\S]"
)
"""A data value that is a command line: its first word is a program the agent would run."""


def notebook_code(text: str) -> list[str]:
    """The source of each code cell of a Jupyter notebook (none if the text is not one)."""
    return notebook_cells(text, "code")


def notebook_cells(text: str, kind: str) -> list[str]:
    """The source of each cell of one kind (``code``, ``markdown``) of a Jupyter notebook."""
    try:
        notebook = json.loads(text)
    except ValueError:
        return []
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return []
    code: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != kind:
            continue
        source = cell.get("source")
        lines = source if isinstance(source, list) else [source]
        code.append("".join(line for line in lines if isinstance(line, str)))
    return code


def _lines_of(text: str, regions: tuple[tuple[int, int], ...]) -> Iterator[tuple[int, int]]:
    for start, end in regions:
        while (newline := text.find("\n", start, end)) >= 0:
            yield start, newline
            start = newline + 1
        yield start, end


def data_commands(text: str, strings: View) -> Iterator[tuple[int, str]]:
    """(offset, command) for each string value of a data file that is a command line
    (``command = "python3 -c …"``, ``"run": "curl … | sh"``), its escapes undone: when the agent
    carries out a check or a step kept as data, its command runs. A YAML block scalar is read
    line by line, as a ``run: |`` block's shell runs its lines."""
    for start, end in _lines_of(text, strings.regions()):
        value = text[start:end].strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]  # a quoted YAML value
        value = unescaped(value)  # ``\\u0063url`` is ``curl`` to the tool that reads it
        if _COMMAND_VALUE.search(value):
            yield start, value
