"""Where package managers and git fetch code from: the source settings that decide which host
serves every dependency the user installs, read in any carrier.

A ``.npmrc`` ``registry=``, a ``.yarnrc.yml`` ``npmRegistryServer:``, a ``pip.conf`` or
``uv.toml`` ``index-url``, a Poetry or uv source, a Gemfile ``source``, ``GOPROXY``, a Cargo
registry, a go.mod ``replace`` and a git ``url.<base>.insteadOf`` each send the next install
to the host they name; whoever runs it serves the code the user's build executes. Many hosts
are honest: the registry itself, a vendor's own index (``pypi.nvidia.com``,
``download.pytorch.org``), the company's mirror the user fills in (``$ARTIFACTORY_URL``, a
private address). So a source elsewhere is a capability (``sources``), never a block alone.

Two facts have no benign reading beside it (``Source.lookalike``, ``integrity_off``):

* the host *poses as the registry*: the official name followed by a domain of someone else's
  (``registry.npmjs.org.mirror-cdn.dev``, ``pypi.org.cache.example-cdn.net``) is written to be
  read as the registry — a real mirror is named as itself;
* the integrity checks that would catch a substituted package are turned off: Go's checksum
  database (``GONOSUMDB=*``, ``GOSUMDB=off``, ``GOFLAGS=-insecure``, ``GOINSECURE``), Yarn's
  ``checksumBehavior: ignore``, uv's ``no-verify-hashes``. A mirror serves the same bytes, so
  the same checksums; only a source that serves different code needs them off.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from grading import linear

_URL = r"[\"']?((?:https?|git|ssh|sparse\+https?)://[^\s\"'`,;)}\]\\]{1,200}|git@[\w.-]{1,200}:)"
_SETTINGS: tuple[tuple[str, linear.LinearPattern], ...] = (
    ("npm registry", linear.compile(r"(?im)^[ \t]*(?:@[\w.-]+:)?registry[ \t]*=[ \t]*" + _URL)),
    ("npm registry", linear.compile(r"(?i)\s--registry[= ]" + _URL)),
    ("Yarn npmRegistryServer", linear.compile(r"(?i)\bnpmRegistryServer[\"']?\s*:\s*" + _URL)),
    (
        "Python package index",
        linear.compile(
            r"(?i)(?:^|[\s\"'])(?:--)?(?:extra-)?index-url(?:[ \t]*=[ \t]*|[ \t]+)"
            + _URL
            + r"|\b(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|UV_DEFAULT_INDEX)\s*=\s*"
            + _URL
        ),
    ),
    (
        "Python package index",
        linear.compile(
            r"(?im)^[ \t]*default-index[ \t]*=[ \t]*"
            + _URL
            + r"|^\[\[(?:tool\.uv\.index|tool\.poetry\.source|index)\]\](?:\n[^\n\[]*){0,6}?"
            + r"\n[ \t]*url[ \t]*=[ \t]*"
            + _URL
        ),
    ),
    ("Poetry source", linear.compile(r"(?i)\bpoetry\s+source\s+add\s+[\w.-]+\s+" + _URL)),
    ("RubyGems source", linear.compile(r"(?im)^[ \t]*source[ \t(]+" + _URL)),
    ("RubyGems source", linear.compile(r"(?i)\bgem\s+sources\s+(?:--add|-a)\s+" + _URL)),
    ("GOPROXY", linear.compile(r"(?i)\bGOPROXY[\"']?\s*[=:]\s*" + _URL)),
    (
        "Cargo registry",
        linear.compile(
            r"(?im)^\[(?:registries|source)\.[\w\"'.-]+\](?:\n[^\n\[]*){0,6}?"
            + r"\n[ \t]*(?:index|registry)[ \t]*=[ \t]*"
            + _URL
        ),
    ),
    ("git insteadOf", linear.compile(r"(?i)\burl\.[\"']?" + _URL + r"[\"']?\.insteadOf\b")),
    ("git insteadOf", linear.compile(r"(?i)\[url\s+\"" + _URL + r"\"\]\s*\n\s*insteadOf\b")),
)
"""Each source setting and the pattern whose first group is the URL it sets."""
_GO_REPLACE = linear.compile(
    r"(?m)^[ \t]*(?:replace[ \t]+)?[\w.-]+\.[a-z]{2,}/[\w./-]+(?:[ \t]+v[\w.+-]+)?[ \t]+=>[ \t]+"
    r"((?:[\w-]+\.)+[a-z]{2,})/[\w./-]+[ \t]+v"
)
"""A go.mod ``replace`` of a module by one at another host (a version after it: not a path)."""
_NAMED = ("egistry", "index", "INDEX", "source", "GOPROXY", "insteadOf", "=>")
"""Strings one of which every setting holds: a text holding none is not searched."""

OFFICIAL = (
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "registry.npmmirror.com",
    "pypi.org",
    "test.pypi.org",
    "pypi.python.org",
    "files.pythonhosted.org",
    "proxy.golang.org",
    "goproxy.cn",
    "goproxy.io",
    "rubygems.org",
    "crates.io",
    "index.crates.io",
    "github.com",
    "gitlab.com",
    "bitbucket.org",
)
"""The registries' and code hosts' own names, and the mirrors their projects name."""
_USERS_OWN = re.compile(
    r"^(?:localhost|127\.|0\.0\.0\.0|10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.)"
    r"|(?:^|\.)(?:example|yourdomain|your-domain|mycompany|your-company|company|corp)\."
    r"|^(?:your|my)[\w-]*\.|\.(?:example|test|local|localhost|invalid|internal|lan|corp|home)$"
    r"|[^a-z0-9.-]",
    re.IGNORECASE,
)
"""The user's own mirror: a private address, a placeholder or an example."""
_HOST = re.compile(r"^(?:[a-z+]+://)?(?:[^/@\s]{1,100}@)?([^/:?#\s]{1,253})", re.IGNORECASE)

_INTEGRITY_OFF = linear.compile(
    r"(?i)\bGONOSUMDB\s*[=:]\s*[\"']?\*|\bGONOSUMCHECK\s*[=:]\s*[\"']?1\b|\bGOSUMDB\s*[=:]\s*[\"']?off\b"
    r"|\bGOFLAGS\s*[=:]\s*[\"']?[^\n\"']{0,60}-insecure\b|\bGOINSECURE\s*[=:]\s*[\"']?[\w*.]"
    r"|\bchecksumBehavior[\"']?\s*:\s*[\"']?(?:ignore|update)\b"
    r"|\bno-verify-hashes[\"']?\s*=\s*true\b"
)
"""Settings that stop the package manager checking the code it receives against the checksums
its ecosystem publishes."""


@dataclass(frozen=True)
class Source:
    offset: int
    setting: str
    host: str
    lookalike: str | None
    """The official name the host poses as (``pypi.org`` in ``pypi.org.mirror-cdn.dev``)."""


def sources(text: str) -> Iterator[Source]:
    """The package or code sources ``text`` sets to a host that is neither the registry's own nor
    the user's own."""
    if not any(named in text for named in _NAMED):
        return
    for setting, pattern in _SETTINGS:
        for match in pattern.finditer(text):
            group = next(number for number, url in enumerate(match.groups(), 1) if url)
            found = _elsewhere(match.start(group), setting, match.group(group))
            if found is not None:
                yield found
    for match in _GO_REPLACE.finditer(text):
        found = _elsewhere(match.start(), "go.mod replace", match.group(1))
        if found is not None:
            yield found


def integrity_off(text: str) -> list[tuple[int, str]]:
    """Where ``text`` turns a package manager's checksum verification off, with the setting."""
    return [(match.start(), match.group()) for match in _INTEGRITY_OFF.finditer(text)]


def _elsewhere(offset: int, setting: str, url: str) -> Source | None:
    host = _HOST.match(url.removeprefix("git@"))
    if host is None:
        return None
    name = host.group(1).lower().rstrip(".")
    if "." not in name or _USERS_OWN.search(name):
        return None
    if any(name == official or name.endswith("." + official) for official in OFFICIAL):
        return None
    labels = f".{name}."
    posed = next((official for official in OFFICIAL if f".{official}." in labels), None)
    return Source(offset, setting, name, posed)
