"""A download from the skill's own host, checked against a digest the skill states, is pinned.

The remediation of every fetch-and-run rule is "a pinned version and a checksum", and an honest
vendor skill that follows it writes::

    curl -fsSL https://get.flint.dev/install-v2.4.1.sh -o install.sh
    echo "3f9a…7b9c1d  install.sh" | sha256sum -c - && sh install.sh

Read line by line, that is a download run two lines later (``flow.download-then-execute``,
``program.fetch-exec``) of a script the bundle does not ship (``code.unshipped-script``): a
"dropper" with an "unvetted origin", rejected — while the unpinned ``curl … | sh`` of the same
vendor only went to a person. The digest fixes the bytes that run as a version fixes a package
(``pip install flintctl==2.4.1`` is auto-approved): what runs is what the skill's author
published under that digest, from the host the manifest declares. Such findings are labelled
``verified`` — listed for the reviewer, not held. A digest read from a file fetched alongside
(``sha256sum -c SHA256SUMS``) pins nothing; a download from any host but the skill's own, or a
file run before its check, keeps its label.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from grading.tier1.findings import Collector
from grading.tier1.provenance import URL_HOST, is_first_party
from grading.tier1.spans import FIRST_PARTY, INSTRUCTION, SHIPPED_CODE, VERIFIED

_PINNABLE = frozenset(
    {
        "flow.download-then-execute",
        "program.fetch-exec",
        "code.unshipped-script",
        "dropper.binary-download",
    }
)
"""Rules of a download, or of running one: what a stated digest pins."""
_OWN_RUN = frozenset({"flow.download-then-execute", "code.unshipped-script"})
"""Rules of running a download: with no digest, the vendor's own download run later is its
unpinned installer (``exec.pipe-to-shell`` and ``program.fetch-exec`` already label that
``first_party``) — a capability for a person, not a dropper."""
_LABELS = frozenset({INSTRUCTION, SHIPPED_CODE, FIRST_PARTY})
_REACH = 12
"""Lines around a finding (within its code block) where its download and check stand."""
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_DIGEST_CHECK = re.compile(
    r"\b(?:echo|printf)\s+[\"']?(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{64})\s+\*?([\w.+-]{1,120})"
    r"(?:\\n)?[\"']?\s*\|\s*(?:sha(?:256|512)sum|shasum\s+-a\s+(?:256|512))\s+(?:-\w+\s+)*"
    r"(?:--check|-c)\b"
)
"""``echo "<sha-256 or sha-512 digest>  file" | sha256sum -c``: the file checked against a digest
written in the skill itself."""
_DOWNLOAD = re.compile(r"\b(?:curl|wget)\s")
_OUTPUT = re.compile(r"(?:^|\s)(?:-o|-O|--output|--output-document)(?:\s+|=)[\"']?([^\s\"';|&]+)")
_REMOTE_NAME = re.compile(r"(?:^|\s)(?:-[a-zA-Z]*O[a-zA-Z]*|--remote-name)(?=\s)")
_URL = re.compile(r"https?://[^\s\"'`|;&)]+")


def _downloads(line: str) -> dict[str, str]:
    """File name → host of what a ``curl``/``wget`` line writes to disk."""
    if not _DOWNLOAD.search(line):
        return {}
    urls = _URL.findall(line)
    hosts = [m.group(1).lower() for url in urls if (m := URL_HOST.search(url))]
    if len(hosts) != 1:
        return {}
    named = _OUTPUT.search(line)
    wget = re.search(r"\bwget\s", line) is not None
    if named and not named.group(1).startswith("-"):
        name = named.group(1)
    elif _REMOTE_NAME.search(line) or (wget and not named):
        name = urls[0].split("?", 1)[0].rstrip("/")
    else:
        return {}
    return {name.rsplit("/", 1)[-1]: hosts[0]}


def _block(lines: list[str], index: int) -> range:
    """The lines of the code block (or script) around ``index``, at most ``_REACH`` either way."""
    low = index
    while low > 0 and index - low < _REACH and not _FENCE.match(lines[low - 1]):
        low -= 1
    high = index
    while high < len(lines) - 1 and high - index < _REACH and not _FENCE.match(lines[high + 1]):
        high += 1
    return range(low, high + 1)


def _fetched(lines: list[str], index: int) -> list[tuple[str, str, int, int | None]]:
    """The files the block downloads that the line at ``index`` names: (name, host, line of the
    download, line of its digest check or None)."""
    downloaded: dict[str, tuple[str, int]] = {}
    checked: dict[str, int] = {}
    for at in _block(lines, index):
        for name, host in _downloads(lines[at]).items():
            downloaded.setdefault(name, (host, at))
        for match in _DIGEST_CHECK.finditer(lines[at]):
            checked.setdefault(match.group(1), at)
    return [
        (name, host, at, checked.get(name))
        for name, (host, at) in downloaded.items()
        if _mentions(lines[index], name)
    ]


def _pinned(lines: list[str], index: int, fetched: list[tuple[str, str, int, int | None]]) -> bool:
    """Whether every file of ``fetched`` is checked against a stated digest — before the line at
    ``index`` when the line runs it, anywhere in the block when the line downloads it."""
    for name, _, at, check in fetched:
        if check is None:
            return False
        if check == index and not _run_after_check(lines[index], name):
            return False
        if check > index and at != index:
            return False  # run before its check
    return True


def _mentions(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", line) is not None


def _run_after_check(line: str, name: str) -> bool:
    """On the check's own line, the file is used only after the check (``echo "<digest>  f" |
    sha256sum -c - && sh f``), or not at all."""
    check = _DIGEST_CHECK.search(line)
    if check is None:
        return False
    before = line[: check.start()]
    return not _mentions(_DIGEST_CHECK.sub("", before), name) or _downloads(before) != {}


def check_verified_downloads(
    texts: Mapping[str, str], declared: frozenset[str], collector: Collector
) -> None:
    """Label ``verified`` each finding of a download, or of running one, whose files come from
    the skill's own host and are checked against a digest the skill states; and ``first_party``
    a run of such a download with no digest (``_OWN_RUN``)."""
    for index, finding in enumerate(list(collector.findings)):
        if finding.rule_id not in _PINNABLE or finding.span not in _LABELS:
            continue
        lines = texts.get(finding.file, "").split("\n")
        if not 0 < finding.line <= len(lines):
            continue
        fetched = _fetched(lines, finding.line - 1)
        if not fetched or not all(is_first_party(host, declared) for _, host, _, _ in fetched):
            continue
        if _pinned(lines, finding.line - 1, fetched):
            collector.relabel(index, VERIFIED)
        elif finding.rule_id in _OWN_RUN and finding.span != FIRST_PARTY:
            collector.relabel(index, FIRST_PARTY)
