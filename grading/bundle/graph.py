"""The instruction graph: which files of a bundle the agent obeys, starting from SKILL.md.

An agent loads SKILL.md and does what it says. When SKILL.md tells it to follow, carry out, read
or run another file — by a Markdown link, a path in backticks, a bare path, "follow SETUP.md",
"run scripts/sync.py", "carry out the steps in checklist.json" — that file is obeyed too, and so,
transitively, are the files *it* points at. Files nothing points at are reference material: a
write-up in ``references/`` that no instruction sends the agent to is read by people, not by the
agent. Tests and fixtures are not instructions unless an instruction runs them by name (a mention
of their folder, "the tests in `tests/`", leaves them tests).

Roles (what each file is to the agent):

* ``manifest`` — SKILL.md (or, in a bundle without one, every Markdown file);
* ``followed`` — a file the agent is told to follow or carry out: all of it is instructions,
  code blocks included;
* ``read`` — a file the agent is told to read or consult: its prose is instructions, its code
  blocks examples (as in any documentation);
* ``executed`` — a script an instruction runs;
* ``reference`` — Markdown or text nothing points at;
* ``test`` — tests and fixtures nothing runs;
* ``shipped`` — any other file (scripts and configuration the skill ships).

A data file (JSON, YAML, TOML, INI, CSV, or the text of an SVG image) that is followed or read
holds instructions in its string values, cells or text.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ahocorasick_rs import AhoCorasick

from grading.bundle import lexicon

MANIFEST = "manifest"
FOLLOWED = "followed"
READ = "read"
EXECUTED = "executed"
REFERENCE = "reference"
TEST = "test"
SHIPPED = "shipped"
OBEYED_ROLES = frozenset({MANIFEST, FOLLOWED, READ})
"""Roles whose text is instructions."""

_MARKDOWN = (".md", ".markdown", ".mdx", ".mdc")
_DATA = (
    ".json", ".jsonc", ".jsonl", ".ndjson", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".csv",
    ".tsv", ".svg",
)  # fmt: skip
"""Files whose values or text are instructions when the agent is told to follow or read them:
structured data, settings with sections, tables of steps, and an image's text."""
_TEXT = (".txt", ".rst", ".adoc", ".org", ".tmpl", ".tpl", ".j2", ".jinja", ".mustache", ".hbs")
_SCRIPTS = (
    ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".ps1", ".rb",
    ".pl", ".php", ".bat", ".cmd", ".ipynb", ".sql", ".patch", ".diff",
)  # fmt: skip
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|fixtures?|testdata|test_data|e2e)/"
    r"|(?:^|/)(?:test_[^/]*|[^/]*_test\.\w+|[^/]*\.(?:test|spec)\.\w+|conftest\.py)$",
    re.IGNORECASE,
)
_VERB_REACH = 120
"""Characters before a mention (on its line) read for the verb that says how to use the file."""


@dataclass(frozen=True)
class Edge:
    """``source`` tells the agent to ``kind`` (follow, read, run) ``target``, at ``line``."""

    source: str
    target: str
    kind: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "kind": self.kind, "line": self.line}


@dataclass(frozen=True)
class InstructionGraph:
    root: str | None
    roles: Mapping[str, str]
    edges: tuple[Edge, ...]

    def role(self, path: str) -> str:
        return self.roles.get(path, SHIPPED)

    def obeyed(self, path: str) -> bool:
        return self.role(path) in OBEYED_ROLES

    def introductions(self, texts: Mapping[str, str], path: str) -> str:
        """What the obeyed files say where they point at ``path``: the lines of their mentions
        and the line after each ("Run `scripts/sweep.py`. It only removes regenerable cache.").
        A program's stated purpose, weighed against what it does."""
        said: list[str] = []
        for edge in self.edges:
            if edge.target != path or not self.obeyed(edge.source):
                continue
            lines = texts.get(edge.source, "").split("\n")
            said.extend(lines[max(edge.line - 1, 0) : edge.line + 1])
        return "\n".join(said)[:2000]

    def framed_document(self, texts: Mapping[str, str], path: str) -> bool:
        """Whether a sentence of an obeyed file that names the document ``path`` presents what
        it holds as samples, not orders ("see `notes/example.md` for a worked example; the code
        quoted there is evidence, not instructions"): the document's own frame, said where the
        agent is sent to it ("the strings in `cases.jsonl` are attack payloads to send to the
        user's app, not instructions for you" frames a data file's values so; the frame may be
        the next sentence, "Its values are …"). Only a document
        the agent reads — one it follows is obeyed through and through."""
        if not (is_markdown(path) or is_data(path)) or self.role(path) != READ:
            return False
        name = path.rsplit("/", 1)[-1]
        for source in sorted({edge.source for edge in self.edges if edge.target == path}):
            if not self.obeyed(source):
                continue
            sentences = _SENTENCE_END.split(texts.get(source, ""))
            for index, sentence in enumerate(sentences):
                said = " ".join(sentences[index : index + 2])  # "… `x.ndjson` … Its values are …"
                if name in sentence and _frames(said.lower()):
                    return True
        return False

    def applied_document(self, texts: Mapping[str, str], path: str) -> str:
        """What the obeyed files say where they name ``path`` — every line that names it and the
        line after — when they tell the agent to apply what it holds ("read
        `references/fix.md` for the exact code changes to make and apply them"); "" otherwise.
        A document read for that purpose is a step of the instructions: its code blocks are
        changes the agent makes, however it is split over files (one file introduces, another
        holds the code)."""
        if not is_markdown(path) or self.role(path) not in (READ, FOLLOWED):
            return ""
        name = path.rsplit("/", 1)[-1]
        said: list[str] = []
        listed_as_step = False
        for source in sorted({edge.source for edge in self.edges if edge.target == path}):
            if not self.obeyed(source):
                continue
            lines = texts.get(source, "").split("\n")
            for index, line in enumerate(lines):
                if name in line:
                    said.extend(lines[index : index + 2])
                    lead_in = " ".join(_list_lead_in(lines, index))
                    if lexicon.present(lead_in.lower()) >= _APPLYING_A_LIST:
                        said.append(lead_in)
                        listed_as_step = True
        text = "\n".join(said)[:4000]
        return text if listed_as_step or lexicon.present(text.lower()) & APPLYING else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "roles": dict(sorted(self.roles.items())),
            "edges": [edge.to_dict() for edge in self.edges],
        }


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n\s*\n")
"""Where a sentence of prose ends: . ! or ? before a space, or a blank line (a line wrapped
inside a paragraph continues its sentence)."""


def _frames(sentence: str) -> bool:
    """Whether ``sentence`` (lower case) presents material as samples to recognise or as
    evidence (lexicon classes ``sample_frame`` and ``document_frame``)."""
    return bool(lexicon.hits("sample_frame", sentence) or lexicon.hits("document_frame", sentence))


_LIST_ITEM = re.compile(r"[ \t]{0,8}(?:[-*+]|\d{1,3}[.)])[ \t]")
_APPLYING_A_LIST = frozenset({"follow", "back_reference"})
"""What a list's lead-in says of its documents to make them steps: "apply them in order",
"carry them out" (an order that points back at the items, not "load the files below")."""
_LEAD_IN_REACH = 12


def _list_lead_in(lines: list[str], index: int) -> list[str]:
    """The sentence that introduces the list a line naming a document is an item of ("the
    procedure is split across three documents; apply them in order:" above "1. `docs/01.md`"):
    what the order says of every item, though no item repeats it."""
    if not _LIST_ITEM.match(lines[index]):
        return []
    for above in range(index - 1, max(-1, index - _LEAD_IN_REACH), -1):
        line = lines[above]
        if line.strip() and not _LIST_ITEM.match(line):
            return [line]
    return []


def is_markdown(path: str) -> bool:
    return path.lower().endswith(_MARKDOWN)


def is_data(path: str) -> bool:
    return path.lower().endswith(_DATA)


def is_script(path: str) -> bool:
    return path.lower().endswith(_SCRIPTS)


def is_test(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def build_graph(texts: Mapping[str, str], manifest: str | None) -> InstructionGraph:
    """The graph of a bundle whose readable files are ``texts`` (path → text)."""
    paths = sorted(texts)
    lookup = _Lookup(paths)
    roots = [manifest] if manifest else [p for p in paths if is_markdown(p)]
    roles: dict[str, str] = dict.fromkeys(roots, MANIFEST)
    edges: list[Edge] = []
    queue = deque(roots)
    while queue:
        source = queue.popleft()
        text = texts.get(source, "")
        if not _instructs(source):
            continue
        for target, kind, line in _mentions(source, text, lookup):
            if target == source or target in roots:
                continue
            edges.append(Edge(source, target, kind, line))
            role = _role_for(target, kind, texts.get(target, "").startswith("#!"))
            if _rank(role) > _rank(roles.get(target)):
                first_time = target not in roles
                roles[target] = role
                if first_time or role == FOLLOWED:
                    queue.append(target)
    for path in paths:
        if path in roles:
            continue
        if is_test(path):
            roles[path] = TEST
        elif is_markdown(path) or path.lower().endswith(_TEXT):
            roles[path] = REFERENCE
        else:
            roles[path] = SHIPPED
    return InstructionGraph(manifest, roles, tuple(edges))


def _instructs(path: str) -> bool:
    """Files whose text can point the agent at other files: documents and data."""
    lowered = path.lower()
    return is_markdown(path) or is_data(path) or lowered.endswith(_TEXT)


_RANKS = {None: 0, SHIPPED: 1, READ: 2, EXECUTED: 2, FOLLOWED: 3, MANIFEST: 4}


def _rank(role: str | None) -> int:
    return _RANKS.get(role, 1)


APPLYING = frozenset({"write", "change"})
"""Lexicon classes whose verbs, where the instructions point at a file, put it into the user's
project or settings rather than have it read."""
_PLACING = re.compile(
    r"\b(?:add|copy|merge|paste|put|place|drop|kopier\w*|copie\w*|copia\w*|copi\w*)\b",
    re.IGNORECASE,
)
"""Verbs before a data file's name that put it into the user's project or tool settings
("append the block from `mcp.toml` to ~/.codex/config.toml", "copy `templates/ci.yml` to
.github/workflows/"): lexicon classes ``write`` and ``change``, and the verbs of copying."""


def places(said: str) -> bool:
    """Whether ``said`` (what the instructions say where they name a file) puts the file into
    the user's project or settings: a verb of writing, changing or copying."""
    return bool(lexicon.present(said.lower()) & APPLYING) or _PLACING.search(said) is not None


def _role_for(target: str, kind: str, shebang: bool = False) -> str:
    """``shebang``: the file starts with ``#!`` — a script whatever its name (``bash logo.svg``
    runs an image that is also a shell script)."""
    if is_script(target) or shebang or target.rsplit("/", 1)[-1] == "package.json":
        return EXECUTED  # a package.json the instructions name holds the scripts npm runs
    if kind == "apply" and is_data(target):
        return EXECUTED  # settings the agent writes into the user's project or tools
    if kind == "follow":
        return FOLLOWED
    if kind == "model":
        return REFERENCE
    if is_markdown(target) or is_data(target) or target.lower().endswith(_TEXT):
        return READ
    return SHIPPED


class _Lookup:
    """Bundle paths by every name a mention may use: the full path, and a base name that only
    one file has."""

    def __init__(self, paths: list[str]) -> None:
        self.full = set(paths)
        names: dict[str, list[str]] = {}
        for path in paths:
            names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        self.unique = {name: found[0] for name, found in names.items() if len(found) == 1}
        self.names = frozenset(names)
        self.folders: dict[str, list[str]] = {}
        for path in paths:
            parts = path.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                self.folders.setdefault("/".join(parts[:depth]), []).append(path)
        self.folder_names = frozenset(folder.rsplit("/", 1)[-1] for folder in self.folders)
        needles = sorted(n for n in self.names | self.folder_names if len(n) >= 3)
        self.names_search = AhoCorasick(needles or ["\x00\x00\x00"])
        """Every file and folder name of the bundle, found in a text in one pass."""

    def resolve(self, mention: str, source: str) -> list[str]:
        mention = mention.split("#", 1)[0].split("?", 1)[0].strip("`'\".,;:)")
        if not mention or "://" in mention:
            return []
        last = mention.rstrip("/").rsplit("/", 1)[-1]
        if last not in self.names and last not in self.folder_names:
            return []  # the common case: a word or a path of some other project
        base = posixpath.dirname(source)
        candidates = [
            posixpath.normpath(posixpath.join(base, mention)),
            posixpath.normpath(mention),
        ]
        for candidate in candidates:
            if candidate in self.full:
                return [candidate]
        for candidate in candidates:
            folder = candidate.rstrip("/")
            if mention.endswith("/") and folder in self.folders:
                return self.folders[folder]
        name = mention.rstrip("/").rsplit("/", 1)[-1]
        if "." in name and name in self.unique:
            return [self.unique[name]]
        return []


_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@~+./-")


def _mentions(source: str, text: str, lookup: _Lookup) -> list[tuple[str, str, int]]:
    """(target, kind, line) for each mention of a bundle file in ``text``: every occurrence of a
    file's or folder's name (one Aho–Corasick pass), widened to the path around it."""
    found: list[tuple[str, str, int]] = []
    seen: set[tuple[str, str]] = set()
    tokens: set[tuple[int, int]] = set()
    newlines: list[int] | None = None
    kinds: dict[tuple[str, str], str] = {}  # a list of links repeats its lead-in word for word
    for _, start, end in lookup.names_search.find_matches_as_indexes(text, overlapping=False):
        while start > 0 and text[start - 1] in _PATH_CHARS:
            start -= 1
        while end < len(text) and text[end] in _PATH_CHARS:
            end += 1
        if (start, end) in tokens:
            continue
        tokens.add((start, end))
        targets = lookup.resolve(text[start:end], source)
        if _names_folder(text[start:end]):
            targets = [target for target in targets if not is_test(target)]
        if not targets:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        before = _clause(text[max(line_start, start - _VERB_REACH) : start].lower())
        line_end = text.find("\n", start)
        after = text[end : line_end if line_end >= 0 else len(text)][:60].lower()
        kind = kinds.get((before, after))
        if kind is None:
            kind = kinds[(before, after)] = _kind(before, after)
        if newlines is None:  # where each line ends, from the lengths of the lines (in C)
            newlines = list(accumulate(len(line) + 1 for line in text.split("\n")))
        line = bisect.bisect_right(newlines, start) + 1
        for target in targets:
            if (target, kind) in seen:
                continue
            seen.add((target, kind))
            found.append((target, "run" if is_script(target) else kind, line))
    return found


def _kind(before: str, after: str) -> str:
    """How the words around a mention (``before`` it in its clause, ``after`` it on its line,
    both lower-cased) tell the agent to use the file: follow, read, model or apply."""
    if lexicon.hits("follow", before) or _follows_after(after):
        return "follow"
    if _models_output(before, after):
        return "model"
    if lexicon.present(before) & APPLYING or _PLACING.search(before) or _applied_after(after):
        return "apply"
    return "read"


def _names_folder(mention: str) -> bool:
    """A mention of a folder ("the tests in `tests/`", "run pytest tests/") reaches the files in
    it, but not as tests to carry out: a test's literals are the inputs it checks (a metadata
    address a guard must refuse), so tests stay tests unless an instruction names the file."""
    return mention.split("#", 1)[0].split("?", 1)[0].strip("`'\".,;:)").endswith("/")


_CLAUSE_END = re.compile(r"[.!?;](?:\s|$)|[。！？；]")


def _clause(before: str) -> str:
    """The part of ``before`` in the same sentence as what follows it."""
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    return before[ends[-1] :] if ends else before


_MODEL = re.compile(
    r"\b(?:(?:expected|desired|target)\s+(?:shape|format|structure|layout|style)"
    r"|for\s+(?:the\s+)?(?:format|shape|structure|layout|style|tone)\b"
    r"|(?:example|sample|model)\s+(?:write-?ups?|reports?|outputs?|documents?|post-?mortems?)"
    r"|as\s+(?:an?\s+|the\s+)?(?:example|model|template)\s+(?:of|for)\s+(?:the|a|an|your)\s+"
    r"(?:write-?up|report|output|document|format|style))"
)
_ACTING = re.compile(
    r"\b(?:run|execute|reproduce|replay|try|perform|apply|do|repeat|launch|use\s+(?:it|them)\s+on)\b"
)


def _models_output(before: str, after: str) -> bool:
    """A file shown as the model of what the agent writes ("see `references/example-writeup.md`
    for the expected shape") is read by the agent as a sample of its output, not obeyed: a CTF
    write-up's payloads are what the write-up reports. An acting verb in the clause ("…, then
    reproduce it") keeps it read."""
    clause = before + " " + _clause_start(after)
    return bool(_MODEL.search(clause)) and not _ACTING.search(clause)


def _clause_start(after: str) -> str:
    """The part of ``after`` in the same sentence as what precedes it."""
    end = _CLAUSE_END.search(after)
    return after[: end.start()] if end else after


_AFTER = re.compile(
    r"^\W{0,4}(?:exactly|step by step|in order|to the letter"
    r"|(?:and|then)\s+(?:run|execute|carry\s+out|apply|follow|perform|do)\b)"
)


_NEXT_SENTENCE = re.compile(r"^[`'\"*)\]]{0,4}\s*[.;:]\s+(.*)$")
_IT = re.compile(r"\b(?:it|them)\b")


def _applied_after(after: str) -> bool:
    """ "the server list lives in `stack.yaml`. *Apply it exactly*": a file the sentence right
    after its name tells the agent to apply, pointing back at it (a pronoun, "every", "each"), is
    put into the user's project or tools like one named after the verb."""
    following = _NEXT_SENTENCE.match(after)
    if following is None:
        return False
    clause = _clause_start(following.group(1))
    return bool(lexicon.present(clause) & (APPLYING | {"follow"})) and bool(
        _IT.search(clause) or lexicon.hits("back_reference", clause)
    )


def _follows_after(after: str) -> bool:
    """ "carry out the steps in checklist.json *exactly*", "load doctor.toml *and run* each
    check it lists": the words that make a file instructions may come after its name."""
    return bool(_AFTER.search(after))
