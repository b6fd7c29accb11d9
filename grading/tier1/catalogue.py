"""The rule catalogue: YAML files in ``rules/``, validated and compiled once per process.

Each rule carries its own documentation (description, remediation) and its own specification
(true-positive and true-negative examples, run by the test suite), so adding a rule is a data
change reviewed like code. Two kinds of rule exist:

* pattern rules — regular expressions matched against the views (see ``files``) of the kinds the
  rule names, after a cheap keyword pre-filter;
* engine rules (``engine: true``) — raised by engine code that cannot be a regex (front-matter
  checks, decoded payloads, cross-file correlation); the catalogue still owns their wording,
  severity and examples.

Fields of a pattern rule besides the documentation: ``kinds`` (which views it reads, see
``files``), ``keywords`` (one occurs in every match; token-matched unless ``keyword_match:
substring``), ``window`` (how far before/after a keyword a match may reach), ``patterns``,
``exclude`` (line-level exceptions), ``markdown: false`` (read shipped code files only, not
code examples fenced in Markdown documentation), ``capabilities`` (fed to correlation),
``privilege`` (makes the skill high-privilege), ``paths`` (the rule reads only files whose
path matches one of these expressions, and needs no keywords), ``in_file`` (the rule reads only
files whose text holds one of these expressions somewhere: what a hit means can depend on the
whole file, such as a script's entry point), ``context`` (strings of which one
must also occur in a keyword window — a cheap second gate for rules whose keywords are common
words), ``first_party: true`` (a hit
whose URLs are the skill's own declared host is labelled ``first_party``, see
``provenance``), ``authority: true`` (a claim that some artefact is authoritative, or an
order to copy it verbatim into the output: dropped when the artefact is the skill's own text,
see ``authority``), ``dual_use: true`` (a
capability with legitimate uses: the policy sends it to review rather than rejection or
auto-approval, see ``grading/policy.yaml``),
``spans: fixed`` (the hit weighs the same in any kind of text, see
``spans``), ``signals`` (the independent kinds of evidence a hit is, ``taxonomy.SIGNALS``;
by default the one its category carries — a rule that already joins a source to a sink names
both), ``conclusive: true`` (a hit in acted-on text has no benign reading: it alone fails the
skill, see ``grading.evidence``) and, for raw-character rules (``target: original``), a
``trigger`` character class of non-ASCII characters.

Patterns run on RE2 (``grading.linear``), whose matching time is linear in the text whatever the
pattern: the loader refuses a pattern RE2 cannot run (look-arounds, back-references), so a rule
that could backtrack never ships. What a look-around used to say is said by ``unless``:
expressions searched in the match (and ``unless_reach`` characters after it) that veto it —
"curl | sh" written as a placeholder, a pinned commit after a git URL, a private IP address.
A pattern must also parse as Python's ``re`` (the prefilter reads its literals from that parse).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from grading import linear, strictyaml
from grading.taxonomy import CATEGORIES, CATEGORY_SIGNALS, PRIVILEGES, SIGNALS
from grading.tier1.files import expand_kinds
from grading.tier1.index import KeywordRules, StringSearch, key_token
from grading.tier1.limits import MAX_FILE_CHARS
from grading.tier1.literals import Literals, leading_literals, required_literals
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER

RULES_DIR = Path(__file__).with_name("rules")
DATA_DIR = Path(__file__).with_name("data")
MIN_LEADING_SEARCHED = 5
"""A pattern's leading literals are added to the search (see ``Rule.leading``) when each has at
least this many characters. Shorter ones are used only if the search has them anyway (as
keywords or required literals): "name" or "type" would double the hits it reports."""
DEFAULT_WINDOW = (160, 400)
"""How far (characters before, after) from a keyword occurrence a match may extend; a rule
whose patterns reach further (multi-line ones) declares its own ``window``."""

_EXAMPLE_FRONTMATTER = (
    "---\nname: example-skill\ndescription: An example skill for rule tests.\n---\n"
)
_EXAMPLE_PATHS = {
    "python": "scripts/example.py",
    "shell": "scripts/example.sh",
    "javascript": "scripts/example.js",
    "data": "assets/example.xml",
}


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    severity: str
    confidence: str
    description: str
    remediation: str
    kinds: frozenset[str]
    keywords: tuple[str, ...]
    keyword_set: frozenset[str]
    substring_keywords: bool
    window: tuple[int, int]
    patterns: tuple[linear.LinearPattern, ...]
    literals: tuple[Literals | None, ...]
    """For each pattern, strings of which every match contains one (``literals``); None: none
    proven, the pattern always runs."""
    leading: tuple[Literals | None, ...]
    """For each pattern, strings one of which every match starts with (``literals``): where the
    search looks for them all, the pattern is tried only where one occurs. None: none proven,
    the pattern scans its windows."""
    any_literals: Literals | None
    """The patterns' literals together: a text holding none of them matches no pattern (None
    when some pattern has none)."""
    exclude: tuple[linear.LinearPattern, ...]
    unless: tuple[linear.LinearPattern, ...]
    """Expressions that veto a match when found in it or ``unless_reach`` characters after it
    (what a look-around would say; RE2 has none)."""
    unless_reach: int
    distinct: tuple[int, ...]
    """Capture groups whose texts must differ (what a back-reference said: two secrets of
    different services, not one service's pair)."""
    on_original: bool
    trigger: str
    non_ascii_only: bool
    engine: bool
    in_markdown: bool
    capabilities: tuple[str, ...]
    requires: tuple[tuple[str, ...], ...]
    """Capabilities a correlation needs: every entry, each satisfied by any of its names."""
    privilege: str | None
    spans_fixed: bool
    first_party: bool
    authority: bool
    """The hit calls an artefact authoritative or has it copied verbatim into the output: it
    does not count when that artefact is the skill's own text (``authority.names_own_text``)."""
    dual_use: bool
    """A capability with legitimate uses (an installer, a scheduled job, a stored credential, an
    action without confirmation): on its own it sends the skill to a person (``policy``), never
    to rejection and never to auto-approval."""
    signals: tuple[str, ...]
    """The independent kinds of evidence a hit is (``taxonomy.SIGNALS``): one for most rules,
    two for a rule that already joins them (a secret read *and* sent)."""
    conclusive: bool
    """A hit in acted-on text has no benign reading (a reverse shell, smuggled instructions):
    the one kind of single finding that may block a skill."""
    paths: re.Pattern[str] | None
    """Path rules read only the files whose path matches (and need no keywords)."""
    in_file: tuple[linear.LinearPattern, ...]
    """The rule reads only a file whose text one of these expressions matches (none: any file)."""
    context: tuple[str, ...]
    """Strings of which one must also occur in a keyword window for the patterns to run there."""
    min_entropy: float
    """For secret rules: the Shannon entropy (bits per character) a matched literal needs."""
    positives: tuple[dict[str, str | bytes], ...]
    negatives: tuple[dict[str, str | bytes], ...]


@dataclass(frozen=True)
class Catalogue:
    rules: tuple[Rule, ...]
    by_id: dict[str, Rule]
    raw_rules: tuple[Rule, ...]
    raw_trigger: re.Pattern[str]
    """Any character some raw-character rule is about: where there is none, they cannot match."""
    search: StringSearch
    """Finds every keyword and pattern literal of the rules in a text at once (see ``index``)."""
    _by_kinds: dict[frozenset[str], KeywordRules[Rule]] = field(default_factory=dict)

    def rule(self, rule_id: str) -> Rule:
        return self.by_id[rule_id]

    def rules_for(self, kinds: frozenset[str]) -> KeywordRules[Rule]:
        """Pattern rules reading any of ``kinds``, in catalogue order, indexed by keyword
        (memoised per kind set)."""
        found = self._by_kinds.get(kinds)
        if found is None:
            found = KeywordRules(
                (r for r in self.rules if not r.engine and not r.on_original and r.kinds & kinds),
                self.search.known,
            )
            self._by_kinds[kinds] = found
        return found


class CatalogueError(ValueError):
    """A rule file is malformed; raised at load time so a bad rule never ships silently."""


EXTRA_RULES_ENV = "SKILLGATE_TIER1_EXTRA_RULES"


def rule_files() -> list[Path]:
    """The shipped rule files, then a site's own from the folder ``SKILLGATE_TIER1_EXTRA_RULES``
    names (if any): an operator adds rules without a release, and the catalogue version says
    so."""
    files = sorted(RULES_DIR.glob("*.yaml"))
    extra = os.environ.get(EXTRA_RULES_ENV, "").strip()
    if extra:
        files += sorted(Path(extra).glob("*.yaml"))
    return files


@lru_cache(maxsize=1)
def catalogue_version() -> str:
    """``tier1-<12 hex>``: a content hash of every rule file and every data file the engine reads.

    It changes whenever a rule, a threshold table or a word list changes, so a stored Tier 1
    result can be recognised as produced by an older catalogue (and re-scanned).
    """
    digest = hashlib.sha256()
    for path in [*rule_files(), *sorted(DATA_DIR.glob("*"))]:
        if path.is_file():
            digest.update(f"{path.parent.name}/{path.name}".encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return f"tier1-{digest.hexdigest()[:12]}"


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    return build_catalogue(rule_files())


def build_catalogue(paths: list[Path]) -> Catalogue:
    rules: list[Rule] = []
    for path in paths:
        try:
            document = strictyaml.load(path.read_text(encoding="utf-8")) or {}
        except strictyaml.DuplicateKeyError as exc:
            raise CatalogueError(f"{path.name}: {exc}") from exc
        for raw in document.get("rules", []):
            rules.append(_parse_rule(raw, path.name))
    by_id: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in by_id:
            raise CatalogueError(f"duplicate rule id {rule.id!r}")
        by_id[rule.id] = rule
    raw_rules = tuple(r for r in rules if r.on_original and not r.engine)
    raw_trigger = re.compile(
        "(?:" + ("|".join(r.trigger for r in raw_rules) or "(?!)") + "){1,4000}"
    )
    if raw_trigger.search("".join(map(chr, range(128)))):
        # Raw-character rules run only where non-ASCII characters are (``scanner``).
        raise CatalogueError("a raw-character rule's trigger may not include ASCII characters")
    search = StringSearch(
        [keyword for rule in rules for keyword in rule.keywords]
        + [literal for rule in rules for strings in rule.literals if strings for literal in strings]
        + [
            literal
            for rule in rules
            for strings in rule.leading
            if strings and min(map(len, strings)) >= MIN_LEADING_SEARCHED
            for literal in strings
        ]
    )
    return Catalogue(tuple(rules), by_id, raw_rules, raw_trigger, search)


def _parse_rule(raw: dict[str, Any], source: str) -> Rule:
    rule_id = raw.get("id")
    where = f"{source}: rule {rule_id!r}"
    for key in ("id", "category", "severity", "confidence", "description", "remediation"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise CatalogueError(f"{where}: {key!r} is required")
    if raw["category"] not in CATEGORIES:
        raise CatalogueError(f"{where}: unknown category {raw['category']!r}")
    if raw["severity"] not in SEVERITY_ORDER or raw["confidence"] not in CONFIDENCE_ORDER:
        raise CatalogueError(f"{where}: bad severity or confidence")
    if raw.get("privilege") is not None and raw["privilege"] not in PRIVILEGES:
        raise CatalogueError(f"{where}: unknown privilege {raw['privilege']!r}")
    engine = bool(raw.get("engine", False))
    kinds = expand_kinds(raw.get("kinds", ["any"]))
    sources = [str(p) for p in raw.get("patterns", [])]
    patterns = tuple(_compile(p, where) for p in sources)
    parsed = tuple(_python(p, where) for p in sources)
    literals = tuple(required_literals(p) for p in parsed)
    keywords = tuple(k.lower() for k in raw.get("keywords", []))
    non_ascii_only = bool(raw.get("non_ascii_only", False))
    on_original = raw.get("target", "normalised") == "original"
    trigger = raw.get("trigger", "")
    if on_original and not (trigger.startswith("[") and trigger.endswith("]")):
        raise CatalogueError(f"{where}: a raw-character rule needs a trigger character class")
    if not engine and not patterns:
        raise CatalogueError(f"{where}: a pattern rule needs patterns")
    if not engine and not keywords and not non_ascii_only and not raw.get("paths"):
        raise CatalogueError(f"{where}: a pattern rule needs keywords or paths for the pre-filter")
    substring_keywords = raw.get("keyword_match", "token") == "substring"
    if not substring_keywords and any(not key_token(k) for k in keywords):
        raise CatalogueError(f"{where}: every keyword needs a letter or digit")
    examples = raw.get("examples") or {}
    first_kind = (raw.get("kinds") or ["prose"])[0]
    positives = tuple(_example(e, first_kind, where) for e in examples.get("positive", []))
    negatives = tuple(_example(e, first_kind, where) for e in examples.get("negative", []))
    if not positives or not negatives:
        raise CatalogueError(f"{where}: needs a positive and a negative example")
    return Rule(
        id=raw["id"],
        category=raw["category"],
        severity=raw["severity"],
        confidence=raw["confidence"],
        description=" ".join(raw["description"].split()),
        remediation=" ".join(raw["remediation"].split()),
        kinds=kinds,
        keywords=keywords,
        keyword_set=frozenset(keywords),
        substring_keywords=substring_keywords,
        window=_window(raw.get("window", DEFAULT_WINDOW), where),
        patterns=patterns,
        literals=literals,
        leading=tuple(leading_literals(p) for p in parsed),
        any_literals=_together(literals),
        exclude=tuple(_compile(p, where) for p in raw.get("exclude", [])),
        unless=tuple(_compile(p, where) for p in raw.get("unless", [])),
        unless_reach=_reach(raw.get("unless_reach", 0), where),
        distinct=tuple(int(g) for g in raw.get("distinct", [])),
        on_original=on_original,
        trigger=trigger,
        non_ascii_only=non_ascii_only,
        engine=engine,
        in_markdown=bool(raw.get("markdown", True)),
        capabilities=tuple(raw.get("capabilities", [])),
        requires=tuple(
            tuple(item) if isinstance(item, list) else (item,) for item in raw.get("requires", [])
        ),
        privilege=raw.get("privilege"),
        spans_fixed=_spans_fixed(raw.get("spans", "labelled"), where),
        first_party=bool(raw.get("first_party", False)),
        authority=bool(raw.get("authority", False)),
        dual_use=bool(raw.get("dual_use", False)),
        signals=_signals(raw, where),
        conclusive=bool(raw.get("conclusive", False)),
        paths=_paths(raw.get("paths"), where),
        in_file=tuple(_compile(p, where) for p in raw.get("in_file", [])),
        context=tuple(str(c).lower() for c in raw.get("context", [])),
        min_entropy=float(raw.get("min_entropy", 0.0)),
        positives=positives,
        negatives=negatives,
    )


def _together(literals: tuple[Literals | None, ...]) -> Literals | None:
    """Every pattern's literals in one set; None when some pattern has none."""
    together: set[str] = set()
    for strings in literals:
        if strings is None:
            return None
        together |= strings
    return frozenset(together)


def _signals(raw: dict[str, Any], where: str) -> tuple[str, ...]:
    """``signals``: the rule's own, else the one its category carries (none for hygiene)."""
    named = raw.get("signals")
    if named is None:
        default = CATEGORY_SIGNALS.get(raw["category"])
        return (default,) if default else ()
    if not isinstance(named, list) or not named or any(s not in SIGNALS for s in named):
        raise CatalogueError(f"{where}: signals must be a list of {', '.join(sorted(SIGNALS))}")
    return tuple(dict.fromkeys(named))


def _paths(raw: Any, where: str) -> re.Pattern[str] | None:
    """``paths``: regular expressions over the file path (case-insensitive), any may match."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) for p in raw):
        raise CatalogueError(f"{where}: paths must be a list of regular expressions")
    for source in raw:
        _python(source, where)
    return re.compile("|".join(f"(?:{p})" for p in raw), re.IGNORECASE)


def _spans_fixed(raw: Any, where: str) -> bool:
    """``spans: fixed`` — the rule's hits weigh the same whatever text surrounds them."""
    if raw not in ("labelled", "fixed"):
        raise CatalogueError(f"{where}: spans must be 'labelled' or 'fixed'")
    return bool(raw == "fixed")


def _window(raw: Any, where: str) -> tuple[int, int]:
    if not (
        isinstance(raw, list | tuple)
        and len(raw) == 2
        and all(isinstance(n, int) and n >= 0 for n in raw)
    ):
        raise CatalogueError(f"{where}: window must be [before, after], both at least 0")
    return raw[0], raw[1]


def _compile(source: str, where: str) -> linear.LinearPattern:
    """``source`` on RE2; a pattern RE2 cannot run in linear time is refused."""
    _python(source, where)
    try:
        return linear.compile(source)
    except linear.LinearError as exc:
        raise CatalogueError(
            f"{where}: pattern {source!r} cannot run in linear time (RE2 refuses it: {exc};"
            " say a look-around with `unless`)"
        ) from exc


def _python(source: str, where: str) -> re.Pattern[str]:
    """``source`` as Python's ``re`` reads it: the prefilter reads literals from that parse."""
    try:
        return re.compile(source)
    except re.error as exc:
        raise CatalogueError(f"{where}: pattern {source!r} does not compile: {exc}") from exc


def _reach(raw: Any, where: str) -> int:
    if not isinstance(raw, int) or not 0 <= raw <= MAX_UNLESS_REACH:
        raise CatalogueError(f"{where}: unless_reach must be 0 to {MAX_UNLESS_REACH}")
    return raw


MAX_UNLESS_REACH = 1000


def _expand(content: str) -> str | bytes:
    if content == _BINARY_MARKER:
        return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
    if content == _OVERSIZED_MARKER:
        return "a" * (MAX_FILE_CHARS + 1)
    return content


_BINARY_MARKER, _OVERSIZED_MARKER = "!binary", "!oversized"


def _example(raw: Any, default_kind: str, where: str) -> dict[str, str | bytes]:
    """An example as a complete mini bundle, so the test runs it through the real scanner.

    In a ``files`` example the values ``!binary`` and ``!oversized`` stand for a PNG header and
    for a text one character over the per-file scan limit.
    """
    if isinstance(raw, dict) and "files" in raw:
        return {path: _expand(content) for path, content in raw["files"].items()}
    if isinstance(raw, str):
        text, kind = raw, default_kind
    elif isinstance(raw, dict) and "text" in raw:
        text, kind = raw["text"], raw.get("kind", default_kind)
    else:
        raise CatalogueError(f"{where}: malformed example {raw!r}")
    kind = "prose" if kind == "any" else "python" if kind == "scripts" else kind
    if kind == "prose":
        return {"SKILL.md": f"{_EXAMPLE_FRONTMATTER}\n{text}\n"}
    if kind == "frontmatter":
        return {"SKILL.md": f"---\n{text}\n---\n\n# Example\n"}
    if kind == "code":
        return {"SKILL.md": f"{_EXAMPLE_FRONTMATTER}\n```\n{text}\n```\n"}
    if kind == "config":
        path = (
            "config/example.json" if text.lstrip().startswith(("{", "[")) else "config/example.yaml"
        )
        return {"SKILL.md": _EXAMPLE_FRONTMATTER, path: text}
    return {"SKILL.md": _EXAMPLE_FRONTMATTER, _EXAMPLE_PATHS[kind]: text}
