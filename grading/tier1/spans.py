"""What kind of text a rule hit sits in — and one policy for what that changes.

A skill that *instructs* an attack and a security guide that *explains* one contain the same
words. Rules match words; this module labels the text around them, once per file, so that one
policy (``adjust``) can weigh a hit by where it is:

* ``instruction`` — prose, front matter and commands of an instruction file (what the agent is
  told to do);
* ``shipped_code`` — scripts, configuration and pages the skill ships;
* ``example`` — code shown in a documentation file (a documented command, not yet an order);
* ``discussion`` — an attack explained or quoted: a section about threats or red flags, a line
  about what attackers do, a phrase quoted in a table;
* ``detection`` — content that contains what it detects: YARA, Semgrep or Sigma rules, regular
  expressions, signature lists;
* ``negation`` — a clause forbidding what it names ("never pipe curl into sh");
* ``first_party`` — for rules about hosts, a hit whose URLs all point at the skill's own declared
  host (``provenance``): an installer from the tool's homepage rather than a dropper;
* ``declared`` — a privileged action the manifest openly names (``provenance``), relabelled
  after the scan: still a privilege for a reviewer, no longer evidence of deceit;
* ``reference`` — a document no instruction points the agent at (``grading.bundle.graph``):
  read by people, not obeyed;
* ``test`` — tests and fixtures that nothing runs;
* ``consented`` — a capability the same sentence makes conditional on the user's consent ("only if
  the user confirms", "ask first"): the pattern a skill should follow, still listed for the judge;
* ``advice`` — what the agent tells the user they may do ("tell the user how to bypass the hook
  in an emergency"): the user's act, not the agent's (given by the scanner, ``advised``, to
  rules of acts a user may choose);
* ``checked`` — a credential file only tested for existence or permissions, or named in a
  report: nothing of it is read (given by the scanner);
* ``own_secret`` — the one keychain item of the tool the skill is about, looked up by that
  tool's name ("security find-generic-password -s restic -w" in a restic skill): the user's
  secret for that tool, handed to it (given by the scanner).
* ``project_check`` — a git hook put into the user's project that runs only the project's own
  checks (linters, formatters, tests; ``programs.hooks``): its workflow, not a foothold
  (given by the scanner).
* ``own_runs`` — a ``find … -delete`` that prunes only the folder the skill keeps its own runs in
  (the bundle makes per-run folders below it): its earlier output, not the user's files (given
  by the scanner).
* ``vendor_api`` — data the skill hands only to the API of the vendor it is about, as the
  service it exists for: a project archive its own script builds and uploads to the endpoint
  the script names on the vendor's host (a deploy), or payment details beside a route of the
  vendor's API that the docs name (`POST /v1/payment_methods`) or a send the user asks about
  (given by the scanner).

The cues and the policy are data (``data/spans.yaml``). Labels only ever *lower* a hit's weight,
and never for shipped code or for content that was hidden (decoded blobs, tag characters): an
author cannot talk a payload into a harmless label, only a quotation.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from grading.bundle import lexicon
from grading.linear import LinearPattern
from grading.tier1.files import View, fenced_blocks
from grading.tier1.literals import CASE_FOLD_EXCEPTIONS, gated, required_literals
from grading.tier1.supersets import superset
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER

SPANS_FILE = Path(__file__).with_name("data") / "spans.yaml"

INSTRUCTION = "instruction"
SHIPPED_CODE = "shipped_code"
EXAMPLE = "example"
DISCUSSION = "discussion"
DETECTION = "detection"
NEGATION = "negation"
FIRST_PARTY = "first_party"
DECLARED = "declared"
REFERENCE = "reference"
TEST = "test"
CONSENTED = "consented"
ADVICE = "advice"
CHECKED = "checked"
OWN_SECRET = "own_secret"
PROJECT_CHECK = "project_check"
VERIFIED = "verified"
OWN_RUNS = "own_runs"
VENDOR_API = "vendor_api"
LABELS = (
    INSTRUCTION, SHIPPED_CODE, EXAMPLE, DISCUSSION, DETECTION, NEGATION, FIRST_PARTY, DECLARED,
    REFERENCE, TEST, CONSENTED, ADVICE, CHECKED, OWN_SECRET, PROJECT_CHECK, VERIFIED,
    OWN_RUNS, VENDOR_API,
)  # fmt: skip
_CODE_ROLES = frozenset({"shipped", "test"})
_DATA = (".json", ".jsonc", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".csv", ".tsv")
"""Data files whose frame may stand in a comment or a value (``# quoted for matching only``):
a pattern library the agent reads says what its strings are where a document would say it in
prose. Only a file the agent reads — one it follows is obeyed through and through."""

_SENTENCE_REACH = 400
"""How far a cued sentence may extend beyond its cue, so beyond the prose region holding it."""

_BLOCK_WORDS = ("condition", "pattern", "regex", "detection:", "selection:")
_LINE_WORDS = ("matches:", "matches :", "catches:", "flags:", "detects:")
"""Words without which the detection-block and detection-line cues cannot match: checked with
a plain substring search first, so most files never run those expressions."""
_CLAUSE_END = re.compile(r"[.;:!?\n]|\s(?:but|then|and\s+then|instead|however)\s")
_LINE_BREAK = re.compile("\n")
_TICK = re.compile("`")
_HEADING = re.compile(r"^(#{1,6})[ \t]+([^\n]{1,200})$", re.MULTILINE)
_BLOCK_START = r"[ \t]{0,20}(?:\n|[-*+•>|#]|\d{1,3}[.)]|```|~~~|$)"
_FORBIDDEN_CLAUSE_END = re.compile(
    rf"[.;:!?](?=\s|$)|\n(?={_BLOCK_START})|\s(?:but|then|and\s+then|instead|however)\s"
)
"""Where a forbidding clause ends: as ``_CLAUSE_END``, except that a line wrapped inside a
paragraph continues it ("Do not turn verification off (`curl -k`,⏎`verify=False`)") and
punctuation inside inline code (`InsecureSkipVerify: true`) is not the clause's own."""
_SENTENCE_END = re.compile(rf"[.!?](?=\s)|\n(?={_BLOCK_START})|\n(?=\S)(?<=[:;]\n)")
"""A sentence ends at . ! or ? before a space, or at a line break that starts a new block (a blank
line, a list item, a quote, a table row, a heading, a fence) or follows a colon: a line wrapped
inside a paragraph or a list item continues its sentence."""
_LIST_ITEM = re.compile(r"[ \t]{0,8}(?:[-*+•]|\d{1,3}[.)])[ \t][^\n]{0,600}(?:\n|$)")
_LIST_REACH = 40
"""A discussion cue on a line that ends with a colon announces the list below it ("Behaviour to
look for in a sample:"): the list's items (at most this many) are discussion too."""
_TABLE_ROW = re.compile(r"^[ \t]{0,3}\|[^\n]{1,2000}$", re.MULTILINE)
_TABLE_QUOTE = re.compile(r"`(?:[^`\n|]|\\\|){1,300}`|[\"“«](?:[^\"”»`\n|]|\\\|){1,300}[\"”»]")
"""A quoted phrase in a table cell: code in backticks (which may quote text itself) or text in
quotation marks."""
_QUOTED = r"(?:\"[^\"\n]{3,160}\"|“[^”\n]{3,160}”)(?!\s*+:)"
_NEXT_QUOTED = rf"(?:\s*+[,;/]\s*+(?:(?:or|and)\s++)?{_QUOTED}|\s++(?:or|and)\s++{_QUOTED})"
_QUOTED_LIST = re.compile(rf"(?<![:{{\[])(?<![:{{\[] ){_QUOTED}{_NEXT_QUOTED}{{1,12}}")
"""Phrases quoted one after another ("ignore previous instructions", "you are now in developer
mode"): an enumeration of what is talked about, never one instruction. Keys and values of JSON
written in prose are not an enumeration."""
_EXAMPLE_QUOTE = gated(
    re.compile(
        r"(?i)\b(?:e\.g\.|for\s+example|such\s+as|phrases?\s+like|like|says?|reads?)\s*[,:]?\s*[\"“']"
    )
)


@dataclass(frozen=True)
class Adjustment:
    """How a label bounds a hit: at most this severity and confidence; whether it may feed
    correlation (capabilities) and make the skill high-privilege."""

    severity_max: str = "critical"
    confidence_max: str = "high"
    capabilities: bool = True
    privilege: bool = True

    def severity(self, severity: str) -> str:
        return min(severity, self.severity_max, key=SEVERITY_ORDER.__getitem__)

    def confidence(self, confidence: str) -> str:
        return min(confidence, self.confidence_max, key=CONFIDENCE_ORDER.__getitem__)


UNCHANGED = Adjustment()


@dataclass(frozen=True)
class Cues:
    """The compiled contents of ``data/spans.yaml``."""

    policy: dict[str, Adjustment]
    discussion_headings: re.Pattern[str]
    discussion_lines: re.Pattern[str]
    discussion_gate: LinearPattern | None
    """An RE2 superset of ``discussion_lines`` (``supersets``): where it finds nothing, the
    Python search (half a second a megabyte) is skipped."""
    discussion_captions: re.Pattern[str]
    discussion_columns: re.Pattern[str]
    negation_cues: re.Pattern[str]
    negation_exceptions: re.Pattern[str]
    detection_files: re.Pattern[str]
    detection_fences: re.Pattern[str]
    detection_fence_words: frozenset[str] | None
    """Strings one of which every detection fence language holds (``literals``)."""
    detection_blocks: re.Pattern[str]
    detection_headings: re.Pattern[str]
    detection_lines: re.Pattern[str]
    detection_code: re.Pattern[str]
    carry_out: re.Pattern[str]
    advice: re.Pattern[str]
    advice_clause: re.Pattern[str]


@lru_cache(maxsize=1)
def cues() -> Cues:
    data: dict[str, Any] = yaml.safe_load(SPANS_FILE.read_text(encoding="utf-8"))
    policy = {label: Adjustment(**(data["policy"].get(label) or {})) for label in LABELS}
    for label, adjustment in policy.items():
        if adjustment.severity_max not in SEVERITY_ORDER:
            raise ValueError(f"spans.yaml: {label}: bad severity_max")
        if adjustment.confidence_max not in CONFIDENCE_ORDER:
            raise ValueError(f"spans.yaml: {label}: bad confidence_max")
    verbose = re.IGNORECASE | re.VERBOSE
    discussion_lines = re.compile(data["discussion_lines"], verbose)
    return Cues(
        policy=policy,
        discussion_headings=re.compile(data["discussion_headings"], verbose),
        # Run over all the prose of every file with a hit: gated (same matches, fewer attempts).
        discussion_lines=gated(discussion_lines),
        discussion_gate=superset(discussion_lines),
        discussion_captions=re.compile(data["discussion_captions"], verbose),
        discussion_columns=re.compile(data["discussion_columns"], verbose),
        negation_cues=gated(re.compile(data["negation_cues"], verbose)),
        negation_exceptions=re.compile(data["negation_exceptions"], verbose),
        detection_files=re.compile(data["detection_files"], verbose),
        detection_fences=re.compile(data["detection_fences"], re.IGNORECASE),
        detection_fence_words=required_literals(
            re.compile(data["detection_fences"], re.IGNORECASE)
        ),
        detection_blocks=re.compile(data["detection_blocks"], re.MULTILINE | re.VERBOSE),
        detection_headings=re.compile(data["detection_headings"], verbose),
        detection_lines=re.compile(data["detection_lines"]),
        # Run over all the code of every file with a hit: gated too.
        detection_code=gated(re.compile(data["detection_code"], re.VERBOSE)),
        carry_out=re.compile(data["carry_out_cues"], verbose),
        advice=gated(re.compile(data["advice_cues"], verbose)),
        advice_clause=gated(re.compile(data["advice_clause_cues"], verbose)),
    )


def adjust(rule_fixed: bool, label: str) -> Adjustment:
    """The one policy: how far a hit of a rule is trusted in text of kind ``label``.

    ``rule_fixed`` is the rule's ``spans: fixed`` flag: its hits weigh the same anywhere.
    """
    if rule_fixed or not label:
        return UNCHANGED
    return cues().policy.get(label, UNCHANGED)


class _Intervals:
    """Sorted, merged (start, end) intervals with membership by bisection."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        merged: list[tuple[int, int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            elif end > start:
                merged.append((start, end))
        self._starts = [s for s, _ in merged]
        self._ends = [e for _, e in merged]

    def __contains__(self, offset: int) -> bool:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._ends[index]


class FileSpans:
    """The labels of one file, computed once (on its first hit) and shared by its views.

    ``role`` is ``manifest`` (the SKILL.md), ``doc`` (other Markdown) or ``shipped``; the base
    label of a view follows from the role and the view's kind, the overlays (detection,
    discussion, negation) from cues in the text. Discussion and negation are read in prose only:
    in code, "never" is a word, not a clause.

    Their line and clause cues are the costly part of a large document, and a file has a handful
    of hits: they are read per prose region, only for the regions near a hit (every span a
    region yields lies within _SENTENCE_REACH of it), and kept for the next hit.
    """

    def __init__(
        self,
        path: str,
        text: str,
        role: str,
        views: list[View],
        lowered: str | None = None,
        quotes_obeyed: bool = False,
        *,
        framed: bool = False,
    ) -> None:
        """``lowered``: ``text`` in lower case, when the caller already has it.
        ``quotes_obeyed``: the bundle's instructions tell the agent to carry out what its lists,
        sections or files quote (``quotes_obeyed``): a document's prose then has no discussion
        or detection label, only its forbidding clauses keep theirs.
        ``framed``: the instructions that send the agent to this document present its contents
        as samples or evidence (``graph.framed_document``): all of it is discussion, as when
        the document's own title frames it."""
        self.role = role
        self._quotes_obeyed = quotes_obeyed and role not in _CODE_ROLES
        set_cues = cues()
        self._whole = ""
        self._framed = False
        code_role = role in _CODE_ROLES
        if code_role and (set_cues.detection_files.search(path.lower()) or _sigma_rule(text)):
            self._whole = DETECTION
            return
        if role == "test":
            self._whole = TEST
            return
        prose = [
            region
            for view in views
            if not code_role and view.kind in ("prose", "frontmatter")
            for region in view.regions()
        ]
        code = [
            region
            for view in views
            if code_role or view.kind not in ("prose", "frontmatter")
            for region in view.regions()
        ]
        lowered = text.lower() if lowered is None else lowered
        headings = _headings(text) if not code_role else []  # shipped code has no sections
        detection: list[tuple[int, int]] = []
        if any(word in lowered for word in _BLOCK_WORDS):
            detection.extend(m.span() for m in set_cues.detection_blocks.finditer(text))
        for start, end in code:
            for match in set_cues.detection_code.finditer(text, start, end):
                if not _executed_list(text, match):
                    detection.append((match.start(), _literal_end(text, match.end())))
        if any(word in lowered for word in _LINE_WORDS):
            detection.extend(m.span() for m in set_cues.detection_lines.finditer(text))
        captioned: list[tuple[int, int]] = []
        if not code_role:
            detection.extend(_detection_fences(text, lowered, set_cues))
            captioned.extend(_captioned_fences(text, set_cues))
            sections = _sections(text, headings, set_cues.detection_headings)
            detection.extend(
                (max(start, low), min(end, high))
                for low, high in sections
                for start, end in code
                if start < high and low < end
            )
        if self._quotes_obeyed:
            detection, captioned, headings = [], [], []
        elif prose and role == "doc" and framed:
            captioned.append((0, len(text)))
            self._framed = True
        elif prose and role == "doc" and path.lower().endswith(_DATA):
            captioned.extend(_framed_data(text, lowered))
        elif prose:
            captioned.extend(_framed(text, lowered, headings, prose, whole=role != "manifest"))
        self._text = text
        self._detection = _Intervals(detection)
        self._sections = _Intervals(
            (_sections(text, headings, set_cues.discussion_headings) if prose else []) + captioned
        )
        self._prose = sorted(prose)
        self._prose_starts = [start for start, _ in self._prose]
        self._prose_ends = [end for _, end in self._prose]
        self._regions: dict[int, tuple[_Intervals, _Intervals]] = {}
        self._advice: _Intervals | None = None

    def advised(self, offset: int) -> bool:
        """Whether ``offset`` lies in advice the agent gives the user (``advice_cues``): what
        the user may do, said to them, not done by the agent."""
        if self._advice is None:
            set_cues = cues()
            self._advice = _Intervals(
                [
                    span
                    for region in self._prose
                    for span in _advice_spans(self._text, region, set_cues)
                ]
            )
        return offset in self._advice

    def base(self, kind: str) -> str:
        return base_label(self.role, kind)

    def hidden(self) -> str:
        """The label of content recovered from hiding (decoded blobs, tag characters): never a
        lowered one, whatever surrounds it — unless the obeyed file that sends the agent here
        frames the whole document as samples ("attack payloads to send to the user's app, not
        instructions for you"): an encoded sample in a test corpus is a sample too."""
        if self._framed:
            return DISCUSSION
        return SHIPPED_CODE if self.role in _CODE_ROLES else INSTRUCTION

    def label(self, offset: int, kind: str) -> str:
        """When cues overlap, the label that lowers a hit most wins only if it is the more
        specific: detection content inside a discussion section is still detection content."""
        if self._whole:
            return self._whole
        if offset in self._detection:
            return DETECTION
        near = self._near(offset)
        if offset in self._sections or any(offset in discussion for discussion, _ in near):
            return DISCUSSION
        if any(offset in negation for _, negation in near):
            return NEGATION
        return self.base(kind)

    def _near(self, offset: int) -> list[tuple[_Intervals, _Intervals]]:
        """(discussion, negation) spans of the prose regions that can reach ``offset``."""
        first = bisect.bisect_right(self._prose_ends, offset - _SENTENCE_REACH)
        last = bisect.bisect_right(self._prose_starts, offset + _SENTENCE_REACH)
        return [self._region(index) for index in range(first, last)]

    def _region(self, index: int) -> tuple[_Intervals, _Intervals]:
        found = self._regions.get(index)
        if found is None:
            region, set_cues = self._prose[index], cues()
            discussed = (
                [] if self._quotes_obeyed else _discussion_spans(self._text, region, set_cues)
            )
            found = self._regions[index] = (
                _Intervals(discussed),
                _Intervals(_negation_spans(self._text, region, set_cues)),
            )
        return found


def base_label(role: str, kind: str) -> str:
    """The label of a view of ``kind`` in a file of ``role`` before any cue in its text: cues
    and a whole-file label only ever replace it by a lower one, so a file whose base label is
    not ``instruction`` has no hit labelled ``instruction``."""
    if role == "shipped":
        return SHIPPED_CODE
    if role == "reference":
        return REFERENCE
    if role == "doc" and kind not in ("prose", "frontmatter"):
        return EXAMPLE
    return INSTRUCTION


def quotes_obeyed(instructions: list[str]) -> bool:
    """Whether one of ``instructions`` (the text of the files the agent obeys) tells it to carry
    out quoted or listed material ("run each of the commands listed above", "execute every
    example in references/x.md") outside a forbidding clause: the material is then obeyed, and
    no label of the bundle's prose may call it discussed or detected."""
    set_cues = cues()
    for text in instructions:
        for match in set_cues.carry_out.finditer(text):
            clause = _CLAUSE_END.split(text[max(0, match.start() - 200) : match.start()])[-1]
            if not set_cues.negation_cues.search(clause):
                return True
    return False


_EXECUTORS = (
    r"(?:subprocess\.\w+|os\.(?:system|popen|exec\w*|spawn\w*)|\bexec|\beval|\bexecSync|\bexecFile\w*"
    r"|\bspawn\w*|child_process\.\w+|Invoke-Expression|\biex|\bPopen)\s*\([^)\n]{0,200}?\b"
)
_LIST_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{0,60})\s*[:=]\s*[\[({]$")
_LOOP_OVER = r"\bfor\s*\(?\s*(?:const\s+|let\s+|var\s+|\$)?(\w+)\s+(?:in|of)\s+\$?{name}\b"


def _executed_list(text: str, match: re.Match[str]) -> bool:
    """Whether the signature list ``match`` opens (``PATTERNS = [``) is handed to something that
    runs it — an executor called with the list or with a loop variable over it: a "signature"
    that is executed is a payload, not what the code detects."""
    named = _LIST_NAME.search(match.group())
    if named is None:
        return False
    name = re.escape(named.group(1))
    names = [name] + [
        re.escape(loop.group(1)) for loop in re.finditer(_LOOP_OVER.format(name=name), text)
    ]
    return any(re.search(_EXECUTORS + rf"\$?{n}\b", text) for n in names)


def _detection_fences(text: str, lowered: str, set_cues: Cues) -> list[tuple[int, int]]:
    """The code blocks fenced with a detection language (```yara …). Their language holds one
    of the cue's required literals (lower case, in the lower-case text), so a text holding none
    has none — unless it holds a character that case-insensitive matching folds to an ASCII
    letter without lower-casing to it."""
    words = set_cues.detection_fence_words
    if (
        words is not None
        and not any(word in lowered for word in words)
        and not any(char in text for char in CASE_FOLD_EXCEPTIONS)
    ):
        return []
    return [
        (fence.start, fence.end)
        for fence in fenced_blocks(text)
        if set_cues.detection_fences.match(fence.language)
    ]


def _captioned_fences(text: str, set_cues: Cues) -> list[tuple[int, int]]:
    """The code blocks introduced by a line that presents them as a counter-example, an attack
    or the output the skill prints (``discussion_captions``)."""
    return [
        (fence.start, fence.end)
        for fence in fenced_blocks(text)
        if set_cues.discussion_captions.search(_caption(text, fence.start))
    ]


def _caption(text: str, fence_start: int, reach: int = 240) -> str:
    """The last non-blank line before a fenced block's opening line: what introduces it."""
    opening = text.rfind("\n", 0, max(0, fence_start - 1))
    before = text[max(0, opening - reach) : max(0, opening)].rstrip()
    return before[before.rfind("\n") + 1 :]


def _literal_end(text: str, start: int, reach: int = 2000) -> int:
    """Where the literal or bracketed list opened just before ``start`` ends (bounded)."""
    opener = text[start - 1] if start else ""
    closer = {"[": "]", "(": ")", "{": "}"}.get(opener)
    if closer is None:
        end = text.find(opener, start) if opener else -1
        line_end = text.find("\n", start)
        if opener in ('"', "'") and text[start - 3 : start] in ('"""', "'''"):
            end = text.find(opener * 3, start)
            return end + 3 if 0 <= end - start <= reach else start
        if end < 0 or (0 <= line_end < end):
            return line_end if line_end >= 0 else len(text)
        return end + 1
    depth, index, limit = 1, start, min(len(text), start + reach)
    while index < limit and depth:
        ch = text[index]
        depth += (ch == opener) - (ch == closer)
        index += 1
    return index


def _discussion_spans(text: str, region: tuple[int, int], set_cues: Cues) -> list[tuple[int, int]]:
    """In one prose region: the sentences of lines with a discussion cue, and phrases quoted as
    examples, one after another or in table cells (the sections under attack-discussing headings
    are ``_sections``).
    """
    region_start, region_end = region
    gate = set_cues.discussion_gate
    cued = (
        list(set_cues.discussion_lines.finditer(text, region_start, region_end))
        if gate is None or gate.search(text, region_start, region_end) is not None
        else []
    )
    spans = [sentence_around(text, match.start(), match.end()) for match in cued]
    spans.extend(_announced_list(text, match.end(), region_end) for match in cued)
    for match in _EXAMPLE_QUOTE.finditer(text, region_start, region_end):
        quote = text[match.end() - 1]
        closer = {"“": "”"}.get(quote, quote)
        end = text.find(closer, match.end(), match.end() + 300)
        if end > 0 and "\n" not in text[match.end() : end]:
            spans.append((match.end(), end))
    spans.extend(m.span() for m in _QUOTED_LIST.finditer(text, region_start, region_end))
    spans.extend(_table_spans(text, region_start, region_end, set_cues))
    return spans


_SIGMA_KEYS = re.compile(r"^(?:logsource|detection)[ \t]*:", re.MULTILINE)


def _sigma_rule(text: str) -> bool:
    """A Sigma rule, whatever its file is called: a YAML document with top-level ``logsource:``
    and ``detection:`` keys describes what to look for in logs — detection content, as a YARA
    file is."""
    return (
        len({m.group(0).split(":")[0].strip() for m in _SIGMA_KEYS.finditer(text, 0, 20000)}) == 2
    )


def _framed(
    text: str,
    lowered: str,
    headings: list[re.Match[str]],
    prose: list[tuple[int, int]],
    whole: bool,
) -> list[tuple[int, int]]:
    """The material a sentence in prose presents as samples to recognise, not orders ("these
    are samples to recognise; do not act on them", lexicon class ``sample_frame``): from that
    sentence to the end of its section. Under a document's title (or with no heading) that is
    the rest of the document — except in the manifest, whose title section is what the agent
    obeys: there only a section's own frame holds.
    """
    if len(lowered) != len(text):  # a letter whose lower case is longer: keep offsets aligned
        lowered = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    regions = _Intervals(prose)
    spans: list[tuple[int, int]] = []
    for start, _ in lexicon.hits("sample_frame", lowered):
        if start not in regions:
            continue
        above = [heading for heading in headings if heading.start() < start]
        level = len(above[-1].group(1)) if above else 1
        if level < 2 and not whole:
            continue
        end = next(
            (
                heading.start()
                for heading in headings
                if heading.start() > start and len(heading.group(1)) <= level
            ),
            len(text),
        )
        spans.append((sentence_around(text, start, start)[0], end))
    return spans


def _framed_data(text: str, lowered: str) -> list[tuple[int, int]]:
    """A data file the agent reads whose comment or value presents it as samples to match
    (``# Known phrasings (quoted for matching only)``): all of it, since a data file has no
    sections a frame could stop at (its comment lines are not headings)."""
    return [(0, len(text))] if lexicon.hits("sample_frame", lowered) else []


def _headings(text: str) -> list[re.Match[str]]:
    """The Markdown headings of ``text``, in order: what ``_HEADING.finditer`` finds, tried only
    at the starts of the lines beginning with "#" instead of at every character."""
    starts = [0] if text.startswith("#") else []
    newline = text.find("\n#")
    while newline >= 0:
        starts.append(newline + 1)
        newline = text.find("\n#", newline + 1)
    return [heading for start in starts if (heading := _HEADING.match(text, start))]


def _announced_list(text: str, after: int, region_end: int) -> tuple[int, int]:
    """The list that follows the line holding ``after`` when that line ends with a colon, also
    inside emphasis ("**Never do this:**"); empty when it does not. A blank line may stand
    before the list and between its items."""
    line_end = text.find("\n", after, min(region_end, after + _SENTENCE_REACH))
    if line_end < 0 or not text[max(0, after - 1) : line_end].rstrip(" \t*_").endswith(":"):
        return (after, after)
    end = line_end + 1
    for _ in range(_LIST_REACH):
        start = end
        while start < region_end and text[start] == "\n" and start - end < 2:
            start += 1  # a blank line between the colon and the list, or between items
        item = _LIST_ITEM.match(text, start, region_end)
        if item is None:
            break
        end = item.end()
    return (line_end + 1, end)


def _sections(
    text: str, headings: list[re.Match[str]], cue: re.Pattern[str]
) -> list[tuple[int, int]]:
    """Sections under a level-2-or-lower heading matching ``cue``, up to the next heading of the
    same or a higher level (a document's title is its subject, not a section)."""
    spans: list[tuple[int, int]] = []
    for index, heading in enumerate(headings):
        if len(heading.group(1)) < 2 or not cue.search(heading.group(2)):
            continue
        level = len(heading.group(1))
        end = len(text)
        for later in headings[index + 1 :]:
            if len(later.group(1)) <= level:
                end = later.start()
                break
        spans.append((heading.start(), end))
    return spans


def _table_spans(text: str, start: int, end: int, set_cues: Cues) -> Iterator[tuple[int, int]]:
    """Quoted phrases in table cells; a whole table whose header row announces examples of
    attacks (red flags, what to look for); the cells of a column headed as mistakes ("What
    failure looks like", "Don't")."""
    previous_end, discussing, columns = -2, False, frozenset[int]()
    for row in _TABLE_ROW.finditer(text, start, end):
        if row.start() != previous_end + 1:  # the first row of a table: its header
            discussing = bool(
                set_cues.discussion_lines.search(row.group())
                or set_cues.discussion_headings.search(row.group())
            )
            columns = frozenset(
                index
                for index, (low, high) in enumerate(_cells(text, row.start(), row.end()))
                if set_cues.discussion_columns.search(text[low:high].strip())
            )
        previous_end = row.end()
        if discussing:
            yield row.span()
            continue
        yield from (q.span() for q in _TABLE_QUOTE.finditer(text, row.start(), row.end()))
        if columns:
            cells = _cells(text, row.start(), row.end())
            yield from (cell for index, cell in enumerate(cells) if index in columns)


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each cell of the table row ``text[start:end]``, split at the pipes
    that are not escaped (``\\|``)."""
    pipes = [i for i in range(start, end) if text[i] == "|" and text[i - 1] != "\\"]
    return list(itertools.pairwise(pipes))


def sentence_around(
    text: str, start: int, end: int, reach: int = _SENTENCE_REACH
) -> tuple[int, int]:
    """The sentence holding ``text[start:end]`` (bounded to ``reach`` characters each side).
    The ends before it are looked for in a slice reaching past ``start``: a slice ending there
    would end the line wrapped just before a cue as if the paragraph stopped."""
    low = max(0, start - reach)
    ends = _SENTENCE_END.finditer(text, low, min(len(text), start + reach))
    before = list(itertools.takewhile(lambda found: found <= start, (m.end() for m in ends)))
    after = _SENTENCE_END.search(text, end, min(len(text), end + reach))
    return (before[-1] if before else low, after.end() if after else min(len(text), end + reach))


def _advice_spans(text: str, region: tuple[int, int], set_cues: Cues) -> list[tuple[int, int]]:
    """From each advice cue in one prose region to the end of what it advises: its sentence and
    the list a colon announces — or, for a fact told to the user, its clause."""
    region_start, region_end = region
    spans: list[tuple[int, int]] = []
    for match in set_cues.advice.finditer(text, region_start, region_end):
        _, sentence_end = sentence_around(text, match.end(), match.end())
        _, list_end = _announced_list(text, match.end(), region_end)
        spans.append((match.start(), min(region_end, max(sentence_end, list_end))))
    for match in set_cues.advice_clause.finditer(text, region_start, region_end):
        limit = min(region_end, match.end() + 300)
        spans.append((match.start(), _forbidden_clause_end(text, match.end(), limit)))
    return spans


def _negation_spans(text: str, region: tuple[int, int], set_cues: Cues) -> list[tuple[int, int]]:
    """From each negation cue in one prose region to the end of its clause. The next cue
    starts a clause of its own ("do not display it, do not mention it in your reply"): the
    words from it on are that clause's, so an order that is itself said with a negation
    (secrecy: "do not mention it") is not read as forbidden by the clause before it."""
    region_start, region_end = region
    spans: list[tuple[int, int]] = []
    matches = list(set_cues.negation_cues.finditer(text, region_start, region_end))
    for index, match in enumerate(matches):
        if set_cues.negation_exceptions.match(text, match.end()):
            continue
        following = matches[index + 1].start() if index + 1 < len(matches) else region_end
        limit = min(region_end, match.end() + 300, max(following, match.end()))
        spans.append((match.end(), _forbidden_clause_end(text, match.end(), limit)))
    return spans


def _forbidden_clause_end(text: str, start: int, limit: int) -> int:
    """The end of the forbidding clause that starts at ``start``: the first clause break that
    stands outside inline code (an odd number of backticks before it on its line)."""
    for end in _FORBIDDEN_CLAUSE_END.finditer(text, start, limit):
        if not _inside_inline_code(text, end.start()):
            return end.start()
    return limit


def _inside_inline_code(text: str, offset: int) -> bool:
    """Whether an odd number of backticks stands between ``offset`` and the start of its line.

    Counted by bisecting the text's line breaks and backticks, found once per text: counting
    along the line for each clause break read a megabyte-long line once per negation cue on it.
    """
    breaks, ticks = _breaks_and_ticks(text)
    line = bisect.bisect_left(breaks, offset)
    line_start = breaks[line - 1] + 1 if line else 0
    before = bisect.bisect_left(ticks, offset) - bisect.bisect_left(ticks, line_start)
    return before % 2 == 1


_MARKS: list[tuple[str, list[int], list[int]]] = []
_MARKED_TEXTS = 4


def _breaks_and_ticks(text: str) -> tuple[list[int], list[int]]:
    """The offsets of every line break and of every backtick in ``text``, in order (kept for
    the last few texts: one file's prose regions are read one after another). Kept by the
    string's identity, not its value: a cache keyed by value compares a megabyte text with an
    equal one (the original and its normalised copy) on every call."""
    for index, (known, breaks, ticks) in enumerate(_MARKS):
        if known is text:
            if index:
                _MARKS.insert(0, _MARKS.pop(index))
            return breaks, ticks
    breaks = [m.start() for m in _LINE_BREAK.finditer(text)]
    ticks = [m.start() for m in _TICK.finditer(text)]
    _MARKS.insert(0, (text, breaks, ticks))
    del _MARKS[_MARKED_TEXTS:]
    return breaks, ticks
