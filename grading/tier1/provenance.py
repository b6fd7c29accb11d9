"""Whose host is it? Telling a skill's own, declared homepage from everybody else's.

Installing a tool from the tool's own site (``curl -sSL https://aspire.dev/install.sh | bash`` in
a skill about Aspire) is an unpinned remote installer — a risk for a reviewer to weigh, not the
dropper that the same command pointing at an unrelated host is. A host is *first-party* when one
of its names (the labels left once the public suffix and generic prefixes like ``www``, ``get``
or ``cdn`` are dropped) is the skill's name, a word of its name or description, or the host of a
URL its front matter declares. Rules that read hosts (``first_party: true``) label such hits
``first_party`` and the span policy bounds them.

Look-alikes are the opposite case: ``githuh.com`` or ``0penai.com`` imitate a well-known domain
so a reader trusts them; see ``lookalike_of``.

Declared privileges are the same idea for behaviour: a privileged action the manifest names
(``data/declarations.yaml``) is labelled ``declared`` — still high privilege, no longer deceit;
see ``declared_privileges``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import yaml

from grading.tier1.names import is_typo_of
from grading.tier1.normalise import skeleton

_DOMAINS_FILE = Path(__file__).with_name("data") / "well_known_domains.txt"
_DECLARATIONS_FILE = Path(__file__).with_name("data") / "declarations.yaml"
_GENERIC_WORDS = frozenset(
    {
        "setup", "install", "installer", "tool", "tools", "helper", "helpers", "project", "quick",
        "data", "skill", "skills", "agent", "agents", "example", "code", "file", "files", "user",
        "users", "with", "from", "that", "this", "your", "when", "into", "using", "use", "create",
        "manage", "build", "test", "tests", "docs", "server", "client", "service", "cloud", "web",
        "plugin", "plugins", "script", "scripts", "update", "updates", "config", "support",
    }
)  # fmt: skip
"""Words too common to identify a product: a host called ``setup`` is nobody's homepage."""
URL_HOST = re.compile(
    r"(?i)\b(?:https?|ftp)://(?:[^\s/@\"'`<>]{1,100}@)?([a-z0-9][a-z0-9.-]{1,253})"
)
_WORD = re.compile(r"[a-z0-9]{4,}")
_GENERIC_LABELS = frozenset(
    {
        "www", "get", "install", "run", "sh", "raw", "cdn", "download", "downloads", "dl",
        "api", "docs", "releases", "release", "static", "assets", "files", "packages", "pkg",
        "repo", "registry", "app", "apps", "web", "dev", "io", "com", "org", "net", "co", "ai",
        "example", "localhost",
    }
)  # fmt: skip
_SECOND_LEVEL_SUFFIXES = frozenset({"co", "com", "org", "net", "ac", "gov", "edu"})
_SHARED_HOSTING = (
    "github.io", "gitlab.io", "vercel.app", "netlify.app", "pages.dev", "workers.dev",
    "herokuapp.com", "fly.dev", "onrender.com", "railway.app", "deno.dev", "web.app",
    "firebaseapp.com", "appspot.com", "azurewebsites.net", "cloudfront.net", "surge.sh",
    "readthedocs.io", "glitch.me", "replit.app", "streamlit.app", "hf.space",
)  # fmt: skip
"""Domains under which anyone gets a name: there the owner's name is the label below them."""
_LURE_WORDS = frozenset(
    {
        "download", "downloads", "install", "installer", "setup", "update", "updater", "verify",
        "verification", "secure", "security", "login", "signin", "auth", "wallet", "connector",
        "connect", "official", "support", "helpdesk", "activate", "activation", "client", "sync",
        "cdn", "get", "release", "releases", "agent", "desktop", "plugin", "extension", "bonus",
        "airdrop", "claim", "recovery", "unlock", "mirror", "proxy", "registry", "cache",
    }
)  # fmt: skip
"""Words a combosquatted host adds to a brand to look like its download or sign-in page."""
_THROWAWAY_SUFFIXES = frozenset(
    {
        "site", "xyz", "top", "click", "online", "shop", "icu", "live", "buzz", "rest", "fun",
        "monster", "cyou", "sbs", "lol", "quest", "zip", "mov", "cfd", "bond", "pw", "tk", "ml",
        "ga", "cf", "gq",
    }
)  # fmt: skip
"""Public suffixes sold for next to nothing and common in throwaway phishing and dropper hosts."""
_HOMOGLYPH_DIGITS = str.maketrans({"0": "o", "1": "l", "3": "e", "5": "s", "7": "t", "4": "a"})


def declared_names(name: str, description: str, urls: Iterable[str] = ()) -> frozenset[str]:
    """The words and hosts a skill's manifest declares, lower-case."""
    words = set(_WORD.findall(f"{name} {description}".lower()))
    words.update(name.lower().split("-"))
    words.add(name.lower())
    for url in urls:
        match = URL_HOST.search(url)
        if match:
            words.update(host_names(match.group(1)))
    return frozenset(word for word in words if len(word) >= 3 and word not in _GENERIC_WORDS)


def vendor_names(name: str, description: str) -> frozenset[str]:
    """The names a skill says it is about in both its name and its description (whole words):
    ``notion-knowledge-capture`` described as "…into structured Notion pages" is about Notion."""
    in_name = {word for word in re.split(r"[^a-z0-9]+", name.lower()) if len(word) >= 4}
    in_description = set(_WORD.findall(description.lower()))
    return frozenset(in_name & in_description - _GENERIC_WORDS - _GENERIC_LABELS)


def is_vendor_host(host: str, vendors: frozenset[str]) -> bool:
    """A host of the vendor the skill is about: its registrable name is, whole, a name the
    skill's name and description both give (``mcp.notion.com`` for a Notion skill) — not a
    compound (``notion-sync.io``), not a look-alike, not a name under shared hosting or a
    throwaway suffix, which anyone can take."""
    host = host.lower().rstrip(".")
    if not vendors or lookalike_of(host) is not None:
        return False
    if any(host.endswith("." + shared) for shared in _SHARED_HOSTING):
        return False
    if host.rsplit(".", 1)[-1] in _THROWAWAY_SUFFIXES:
        return False
    return any(label in vendors for label in host_names(host))


def host_names(host: str) -> list[str]:
    """The registrable name of a host, which only its owner chooses: ``run.linkerd.io`` →
    ``["linkerd"]``, ``pkg.example.co.uk`` → ``["example"]`` (subdomains are anyone's)."""
    host = host.lower().rstrip(".")
    for shared in _SHARED_HOSTING:
        if host.endswith("." + shared):
            host = host[: -len(shared) - 1] + ".shared"
            break
    labels = host.split(".")
    if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL_SUFFIXES:
        labels = labels[:-2]
    elif len(labels) >= 2:
        labels = labels[:-1]
    name = labels[-1] if labels else ""
    return [name] if len(name) >= 3 and name not in _GENERIC_LABELS else []


def is_first_party(host: str, declared: frozenset[str]) -> bool:
    """A look-alike of a well-known domain is nobody's homepage, whatever the skill declares; a
    hyphenated name is first-party only when the skill's name or front matter names it whole."""
    if not declared or lookalike_of(host) is not None:
        return False
    for label in host_names(host):
        if "-" in label:
            # A compound name (excel-helper, drive-sync-app) is anyone's to register: only the
            # skill's own name or a host its front matter declares makes it first-party.
            if label in declared:
                return True
            continue
        if label in declared or any(
            len(word) >= 4 and (word in label or label in word) for word in declared
        ):
            return True
    return False


def hosts_in(text: str) -> list[str]:
    return [match.group(1).lower() for match in URL_HOST.finditer(text)]


@lru_cache(maxsize=1)
def well_known_domains() -> tuple[str, ...]:
    lines = _DOMAINS_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(
        sorted({line.strip().lower() for line in lines if line.strip() and line[0] != "#"})
    )


@lru_cache(maxsize=1)
def _brands() -> tuple[tuple[str, str], ...]:
    """(registrable name, domain) of every well-known domain, computed once."""
    return tuple(
        (names[0], domain) for domain in well_known_domains() if (names := host_names(domain))
    )


_REGISTRY_BRANDS = frozenset({"npmjs", "pypi", "pythonhosted"})
"""Package registries whose every domain is listed as well known: the same name under any other
suffix (``registry.npmjs.co``, ``pypi.io``) is someone else's host posing as the registry."""


@lru_cache(maxsize=4096)
def lookalike_of(host: str) -> str | None:
    """The well-known domain ``host`` imitates (a typo or digit-for-letter swap of its name), or
    None. The domain itself and its subdomains are not look-alikes."""
    host = host.lower().rstrip(".")
    for domain in well_known_domains():
        if host == domain or host.endswith("." + domain):
            return None
    shared = any(host.endswith("." + suffix) for suffix in _SHARED_HOSTING)
    dotted = "." in host
    tld = host.rsplit(".", 1)[-1]
    for label in host_names(host):
        folded = label.translate(_HOMOGLYPH_DIGITS).replace("rn", "m").replace("vv", "w")
        parts = folded.split("-")
        for brand, domain in _brands():
            if label == brand:
                if brand in _REGISTRY_BRANDS:
                    return domain  # a package registry's name under a suffix it does not own
                continue
            if folded == brand or (len(brand) >= 5 and is_typo_of(label, brand)):
                return domain
            # Combosquatting: the brand as one word of a hyphenated registrable name on a host
            # the brand does not own, next to a lure word or under a throwaway suffix
            # (drive-google-connector.app, openai-verify.site) — brand-owned compounds such
            # as google-analytics carry neither.
            if (
                not shared
                and dotted
                and len(brand) >= 5
                and brand in parts
                and (any(part in _LURE_WORDS for part in parts) or tld in _THROWAWAY_SUFFIXES)
            ):
                return domain
    return None


def homoglyph_of(host: str) -> str | None:
    """The well-known domain a host written with look-alike letters of another script spells
    (``pypі.org`` with a Cyrillic ``і``), or the one its spelling imitates: no one writes a
    known domain's name in two scripts but to be taken for it."""
    if host.isascii():
        return None
    spelled = skeleton(host).lower().rstrip(".")
    if not spelled.isascii():
        return None
    for domain in well_known_domains():
        if spelled == domain or spelled.endswith("." + domain):
            return domain
    return lookalike_of(spelled)


@lru_cache(maxsize=1)
def _declarations() -> dict[str, re.Pattern[str]]:
    data = yaml.safe_load(_DECLARATIONS_FILE.read_text(encoding="utf-8"))
    return {name: re.compile(source, re.IGNORECASE | re.VERBOSE) for name, source in data.items()}


def declared_privileges(declared_text: str) -> frozenset[str]:
    """The privileges a manifest's text openly declares (see ``data/declarations.yaml``)."""
    return frozenset(name for name, words in _declarations().items() if words.search(declared_text))
