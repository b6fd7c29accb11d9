"""What a sentence that calls something "the canonical / authoritative source", or has it copied
verbatim into the output, points at.

Deferring to an artefact is a risk when someone other than the skill's author controls it: a
file outside the bundle, a note that may or may not be there ("if … exists, it is the
canonical answer"). When the artefact is the skill's own text — a file shipped in the bundle,
named unconditionally, or the very document the sentence is in ("this document is the
authoritative reference", "use this as the canonical limitations reference") — the agent defers
to what Skillgate already reads as the skill's instructions: nothing new is handed over. The
same holds for a template the skill ships and has copied verbatim ("read
`skeletons/skeleton-findings.md`, copy it verbatim, fill in the placeholders"; a shipped folder
of them counts as shipped). A sentence that denies the authority ("use the examples for
patterns, not as the canonical source"; "do not copy examples verbatim") hands over nothing
either.

Two more readings hand nothing over. A schema, a tool list or the header files of the interface
the agent works against, made the authority for names and types ("use the discovered schema as
the authoritative source for field names", "the SDK header files are the authoritative source"),
send the agent to check its identifiers against the system itself rather than an example: the
opposite of deferring to a note. And a sentence is read whole across a soft line wrap, so a
shipped script named on the line before ("trust `02-check-status.ps1`'s flag … it is the
canonical source") is found, as is the file a subject like "the script" points back to in its
paragraph; a file named by its bare name is the shipped file of that name.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

from grading import linear

_SENTENCE_END = linear.compile(r"[.!?](?:\s|$)|\n[ \t]*(?:\n|[-*+>#|]|\d{1,3}[.)]\s|```|$)")
"""A sentence ends at its stop, or where its paragraph or list item does: a blank line, the next
item, heading, quote or table row. A single line break inside a paragraph is a soft wrap."""
_CONDITION = linear.compile(
    r"(?i)\b(?:if|when|whenever|once|where|in\s+case)\b[^\n]{0,200}?\b(?:exists?|is\s+present"
    r"|are\s+present|is\s+available|are\s+available|is\s+found|are\s+found|appears?)\b"
)
"""An artefact made authoritative only if it turns up: whoever puts it there steers the agent."""
_PATH = linear.compile(
    r"\]\((?P<link>[^)\s#]{1,200})(?:#[^)\s]*)?\)|`(?P<tick>[^`\s]{1,200})`"
    r"|(?P<bare>(?:~|\.{1,2})?/?[\w.-]{1,60}(?:/[\w.-]{1,60}){0,8}"
    r"\.(?:md|json|jsonl|ya?ml|csv|tsv|txt|toml|xml|html?|py|sh|js|ts))\b"
)
_FILE_LIKE = linear.compile(r"(?:^|/)[\w.-]+\.[A-Za-z0-9]{1,8}$|/")
_SELF = linear.compile(
    r"(?i)\bth(?:is|ese)\s+(?:document|file|page|guide|reference|matrix|table|section|checklist"
    r"|skill|doc)s?\s*$"
)
"""The subject of the claim is the text the sentence stands in."""
_BARE_THIS = linear.compile(r"(?i)(?:^|[\s*_])(?:this|use\s+this|use\s+this\s+file)\s*$")
"""A bare "this is …" / "use this as …": the text it stands in, when nothing before it in the
paragraph names a file, a URL or code the word could point at instead."""
_POINTABLE = linear.compile(r"\]\(|://|`[^`\s]*[/.][^`\s]*`|(?:^|[\s(])[\w.~-]*/[\w.-]")
_PARAGRAPH_REACH = 600
"""How far before the sentence a bare "this" is looked back on for something it points at."""
_INTERFACE = linear.compile(
    r"(?i)\b(?:schemas?|header\s+files?|type\s+definitions?|(?:method|function)\s+signatures?"
    r"|tools/list|(?:field|column|method|parameter|property|table|tool)s?\s+(?:names?|lists?|types?)"
    r"|columns?\s+and\s+(?:their\s+)?types?)\b"
)
"""What an interface says of itself: the names and types the agent must use with it."""
_DIRECTIVE = linear.compile(
    r"(?i)\b(?:instructions?|polic(?:y|ies)|rules?|answers?|steps?|procedures?|runbooks?"
    r"|guidance|orders?|decisions?|verdicts?|what\s+to\s+do)\b"
)
"""What a claim over an interface must not also cover: how the agent acts or what it answers."""
_CLAIM = linear.compile(r"(?i)\b(?:authoritative|canonical)\b")
_ANAPHOR = linear.compile(
    r"(?i)^\W{0,4}(?:it|the\s+(?:script|file|tool|program|checker|validator|report))\b"
)
"""A claim whose subject points back ("the script … is the canonical source") is about the last
file its paragraph named before it."""
_DENIED = linear.compile(r"(?i)\bnot\s*$")
_DESTINATION = linear.compile(r"(?i)\b(?:into|onto|to)\s+(?:the\s+)?(?:file\s+)?[\[`]?$")
"""A path named as where the copy goes ("copy it verbatim into `3-findings.md`") is the output,
not the artefact whose text decides it."""


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    low = max(0, start - 300)
    cuts = [m.end() for m in _SENTENCE_END.finditer(text, low, start)]
    after = _SENTENCE_END.search(text, end, end + 300)
    return (cuts[-1] if cuts else low), (after.start() if after else min(len(text), end + 300))


def _resolve(reference: str, here: str, bundle: Collection[str]) -> bool | None:
    """True for a file of the bundle, False for a file elsewhere, None for no file at all."""
    if not _FILE_LIKE.search(reference) or "://" in reference:
        return None
    if reference.startswith(("/", "~")):
        return False
    if "/" not in reference:
        return any(posixpath.basename(name) == reference for name in bundle)
    for base in (posixpath.dirname(here), ""):
        path = posixpath.normpath(posixpath.join(base, reference))
        if path in bundle or (reference.endswith("/") and _holds(path, bundle)):
            return True
    return False


def _interface(sentence: str, claim: str) -> bool:
    """A claim of authority over the names and types of an interface, and over nothing the
    agent does or answers (see the module docstring)."""
    return (
        _CLAIM.search(claim) is not None
        and _INTERFACE.search(sentence) is not None
        and _DIRECTIVE.search(sentence) is None
    )


def _holds(folder: str, bundle: Collection[str]) -> bool:
    """Whether the bundle ships a file under ``folder`` (a link to a folder of templates)."""
    prefix = folder.rstrip("/") + "/"
    return any(name.startswith(prefix) for name in bundle)


def names_own_text(text: str, start: int, end: int, here: str, bundle: Collection[str]) -> bool:
    """Whether the claim matched at ``start:end`` of the file ``here`` makes only the skill's
    own text authoritative (or denies the authority): see the module docstring."""
    low, high = _sentence(text, start, end)
    before = text[low:start]
    if _DENIED.search(before):
        return True
    sentence = text[low:high]
    if _CONDITION.search(sentence):
        return False
    if _interface(sentence, text[start:end]):
        return True
    places = _places(sentence, here, bundle)
    if places:
        return all(places)
    if _SELF.search(before[-60:]):
        return True
    reach = max(0, low - _PARAGRAPH_REACH)
    paragraph = text[max(reach, text.rfind("\n\n", reach, low) + 1) : start]
    if _ANAPHOR.match(before):
        earlier = _places(text[max(reach, text.rfind("\n\n", reach, low) + 1) : low], here, bundle)
        return bool(earlier) and earlier[-1]
    return _BARE_THIS.search(before[-30:]) is not None and not _POINTABLE.search(paragraph)


def _places(sentence: str, here: str, bundle: Collection[str]) -> list[bool]:
    """Whether each file the sentence names (not as a copy's destination) is the bundle's."""
    named = (
        m.group("link") or m.group("tick") or m.group("bare")
        for m in _PATH.finditer(sentence)
        if not _DESTINATION.search(sentence[max(0, m.start() - 40) : m.start()])
    )
    found = [_resolve(reference, here, bundle) for reference in named]
    return [f for f in found if f is not None]
