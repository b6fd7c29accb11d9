"""What the program analyses report: one fact per thing a program does that matters."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

SECRET_FLOW = "secret-flow"
"""Data from a secret source (credential store, browser, wallet, agent logs, environment,
clipboard) reaches a sink (network, a network tool, DNS)."""
FETCH_EXEC = "fetch-exec"
"""Text fetched over the network is executed (``exec(urlopen().read())``, ``curl … | sh``)."""
DECODED_EXEC = "decoded-exec"
"""Text produced by a decoder (base64, XOR, character codes, reversal) is executed."""
DECODED_STRING = "decoded-string"
"""A decoder produces a sensitive path, a URL, a command or code: hidden from the reader."""
SECRET_SEND = "secret-send"
"""A program no parser here reads names a secret source and sends over the network: the value
cannot be followed, the two in one program are read as its purpose (``programs.unparsed``)."""
SECRET_READ = "secret-read"
"""The program reads a secret source (a capability)."""
NETWORK_SEND = "network-send"
"""The program sends data over the network (a capability)."""
EXEC_DYNAMIC = "exec-dynamic"
"""The program executes text it built at run time (a capability)."""

DESTROYS_DATA = "destroys-data"
"""The program destroys what the user cannot get back: the home folder or a folder in it,
version-control folders, backups, a place outside the skill, a schema or a database, git history
(``grading.programs.destruction``)."""

REPO_FLOW = "repo-flow"
"""The whole repository (``git bundle --all``, ``git archive``) reaches a network send to a host
the program names."""

BULK_CHANGE = "bulk-change"
"""The program changes a remote service item by item in a loop: a mutating request (``DELETE``,
``PUT``, ``PATCH``, a POST to a ``…/revoke`` or ``…/disable`` address) per item of a list — keys
revoked, records deleted, accounts disabled in bulk. A capability a person checks."""
CREDENTIAL_GUESS = "credential-guess"
"""The program sends login requests in a loop, each with a password taken from the list it
walks: password guessing or credential stuffing. A capability a person checks."""

KINDS = (
    SECRET_FLOW, FETCH_EXEC, DECODED_EXEC, DECODED_STRING, SECRET_SEND, SECRET_READ, NETWORK_SEND,
    EXEC_DYNAMIC, DESTROYS_DATA, REPO_FLOW, BULK_CHANGE, CREDENTIAL_GUESS,
)  # fmt: skip


@dataclass(frozen=True)
class Fact:
    kind: str
    offset: int
    """Character offset in the analysed text where the fact shows (the sink, the decoder)."""
    detail: str
    hosts: tuple[str, ...] = ()
    """Hosts of the URLs involved (destination of a send, origin of a fetch)."""
    store: bool = False
    """A secret flow of a secret *store* (key files, cloud credentials, the whole environment),
    not of one named secret: no host is owed it, the skill's own no more than another."""


def per_block(
    analyse: Callable[[str], list[Fact]], text: str, regions: Iterable[tuple[int, int]]
) -> Iterator[Fact]:
    """The facts of each region of ``text`` read as its own program (``analyse`` of the block
    alone), their offsets moved to where the block stands.

    A block repeated word for word — a guide's examples, a crafted file of ten thousand copies —
    is analysed once: its facts depend on its text only (and the analysis's fixed arguments),
    their offsets on its place, so each copy gets the first one's facts, moved."""
    read: dict[str, list[Fact]] = {}
    for start, end in regions:
        block = text[start:end]
        if block not in read:
            read[block] = analyse(block)
        for fact in read[block]:
            yield replace(fact, offset=fact.offset + start)
