"""Data a skill hands only to the API of the vendor it is about, as the service it exists for
(span label ``vendor_api``).

Two readings, both bound to the skill's own host (``provenance.is_first_party``: a name its
name and description both give), so that the same words aimed at anyone else's host keep
their weight:

* **A deploy.** A script that packs a project into an archive it builds itself (``tar -czf
  "$ARCHIVE" -C "$PROJECT_DIR" .``, ``zip -r "$PKG" .``) and uploads that archive to the
  endpoint the script names (``UPLOAD_URL="https://deploy.vendor.com/…"``; ``curl -F
  "file=@$ARCHIVE" "$UPLOAD_URL"``) does what a deploy skill is for: the user's project goes to
  the host that builds it. An archive of the home or of a credential folder, a file the script
  did not pack, a variable the environment supplies, or another party's host is not this.
* **A route named, a question asked.** In a vendor's guide, "account and routing numbers … use
  the Accounts API (`POST /v3/accounts`)" names an endpoint of the vendor's own API, and "when
  the user asks about sending raw card numbers, explain …" names what the user asks: neither
  tells the agent to send anything. Any other sending verb in the rest of the sentence gives
  the send back.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from grading.bundle import lexicon

_VARIABLE = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")
_UPLOADED = re.compile(
    r"(?:=@|--data(?:-binary|-raw)?\s+[\"']?@|\s-d\s+[\"']?@|\s-T\s+|--upload-file\s+)"
    r"[\"']?\$\{?([A-Za-z_]\w*)\}?"
)
"""The file a ``curl`` uploads, when a variable names it (``-F "file=@$ARCHIVE"``)."""
_URL = re.compile(r"https?://([\w.-]+)")
_PRIVATE_PLACES = re.compile(
    r"\$\{?HOME\b|~/|(?<![\w.])~(?=\s|$)|/home/|/root\b|/Users/|\.ssh\b|\.aws\b|\.gnupg\b"
    r"|\.kube\b|\.docker\b|\.netrc\b|\.config\b|\.env\b|\.git-credentials\b|id_rsa|id_ed25519"
    r"|credentials|keychain|wallet"
)
"""What no project archive holds: the home, a credential folder or file."""


def _assignments(text: str, name: str) -> list[str]:
    """The values ``text`` assigns to the shell variable ``name`` (quotes dropped)."""
    pattern = re.compile(
        rf"(?m)^[ \t]*(?:export\s+|readonly\s+|local\s+|declare\s+(?:-\w+\s+)*)?{name}="
        rf"(\"[^\"\n]*\"|'[^'\n]*'|[^\s;#]*)"
    )
    return [m.group(1).strip("\"'") for m in pattern.finditer(text)]


def _packed_here(text: str, name: str) -> bool:
    """Whether ``text`` builds the archive ``$name`` itself (``tar`` creating it, ``zip`` into
    it), and no command that writes it packs the home or a credential folder."""
    target = rf"[\"']?\$\{{?{name}\}}?(?![\w}}])"
    writers = re.compile(
        rf"(?m)^[^\n]*?\b(?:tar\s[^\n|;&]*?-[A-Za-z]*f\s*{target}|zip\s+(?:-\w+\s+)*{target})"
        rf"[^\n]*"
    )
    lines = [m.group() for m in writers.finditer(text)]
    tars = [line for line in lines if re.search(r"\bzip\s", line) is None]
    created = all(re.search(r"\s-[A-Za-z]*c|--create", line) for line in tars)
    return bool(lines) and created and not any(_PRIVATE_PLACES.search(line) for line in lines)


def _field_only(line: str, name: str) -> bool:
    """Whether every use of ``$name`` in ``line`` is the value of a form field
    (``-F "framework=$FRAMEWORK"``), not where an address or a file stands."""
    uses = list(re.finditer(rf"\$\{{?{name}\b", line))
    return all(re.search(r"[\w\]-]=[\"']?$", line[: m.start()]) for m in uses)


def deploy_upload(line: str, text: str, first_party: Callable[[str], bool]) -> bool:
    """Whether an upload command ``line`` of the script ``text`` sends an archive the script
    packed itself to an endpoint the script names, every host of which is the skill's own
    (``first_party``); every variable of the line is one the script assigns."""
    uploaded = _UPLOADED.search(line)
    if uploaded is None or not _packed_here(text, uploaded.group(1)):
        return False
    hosts = [m.group(1) for m in _URL.finditer(line)]
    for name in {m.group(1) for m in _VARIABLE.finditer(line)} - {uploaded.group(1)}:
        values = _assignments(text, name)
        if not values:
            return False  # the environment or a caller supplies it: unseen
        if any("://" in value for value in values):
            named = [_URL.match(value) for value in values]
            if not all(named):
                return False
            hosts += [m.group(1) for m in named if m]
        elif any("$" in value or "`" in value for value in values) and not _field_only(line, name):
            return False  # computed at run time where an address could stand
    return bool(hosts) and all(first_party(host) for host in hosts)


_ROUTE = re.compile(r"(?:POST|PUT|PATCH)\s+/[\w{}<>:.-]")
"""An HTTP method before a path: the name of an API route (`POST /v1/payment_methods`)."""
_ASKED_ABOUT = re.compile(
    r"(?i)\b(?:asks?|asked|asking|wonders?|wondering|inquires?|enquires?)\s+"
    r"(?:about|how\s+to|whether\s+to|whether\s+they\s+(?:can|may|should))\s+$"
)
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)|\n")


def named_not_sent(text: str, start: int, end: int) -> bool:
    """Whether the sending verb at ``text[start:end]`` names a route of an API or what the user
    asks about, and no other sending verb follows in its sentence."""
    if not (_ROUTE.match(text, start) or _ASKED_ABOUT.search(text[max(0, start - 60) : start])):
        return False
    stop = _SENTENCE_END.search(text, end)
    rest = text[end : stop.start() if stop else len(text)]
    return not lexicon.hits("send", rest.lower())
