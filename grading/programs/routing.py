"""Where the agent's or the user's API traffic goes: the base-URL and proxy settings that send
every request — and the API key or token in its headers — to a host, read in any carrier.

An SDK or a tool sends its requests to the address its settings give: ``ANTHROPIC_BASE_URL``,
``OPENAI_BASE_URL``, ``HTTPS_PROXY``, the npm registry. Set to another party's host — in an
``export`` line, a ``.env`` file, ``os.environ[…] = …``, a settings file's ``env`` map, a
notebook cell, a sentence ("set ``OPENAI_BASE_URL`` to …") — every prompt, answer and key
passes through whoever runs that host. The user's own proxy or gateway is a choice they make:
a placeholder they fill in (``<your proxy>``, ``$CORP_PROXY``), a local or private address,
an example domain. The service's own API host and the skill's own declared host (a gateway
vendor's skill pointing at its gateway) are what the setting is for. Any other host is a
redirect a person reads; with a second signal (told to keep it from the user, put into shell
start-up files) it is malice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_VARIABLE = (
    r"(?:ANTHROPIC_(?:BASE_URL|API_URL)|OPENAI_(?:BASE_URL|API_BASE|API_HOST)|AZURE_OPENAI_ENDPOINT"
    r"|(?:GOOGLE_)?GEMINI_BASE_URL|MISTRAL_API_URL|GROQ_BASE_URL|CLAUDE_CODE_API_BASE_URL"
    r"|HTTPS?_PROXY|ALL_PROXY|https?_proxy|all_proxy|npm_config_registry|NPM_CONFIG_REGISTRY"
    r"|YARN_NPM_REGISTRY_SERVER)"
)
_SETTING = re.compile(
    rf"\b({_VARIABLE})\b[\"'`\]]{{0,2}}\s*(?:=|:|,|\s+to\b|\s)\s*[\"'`]?"
    r"((?:https?|socks5h?)://[^\s\"'`,;)}\]\\]{1,200})"
    r"|\bnpm\s+config\s+set\s+(registry)\s+[\"']?(https?://[^\s\"'`]{1,200})"
)
_HOST = re.compile(r"^[a-z]+://(?:[^/@\s]{1,100}@)?([^/:?#\s]{1,253})", re.IGNORECASE)
_USERS_OWN = re.compile(
    r"^(?:localhost|127\.|0\.0\.0\.0|10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|\[?::1\]?$)"
    r"|(?:^|\.)(?:example|localhost|yourdomain|your-domain|mycompany|your-company)\."
    r"|^(?:your|my)[\w-]*\.|\.(?:example|test|local|localhost|invalid|internal|lan|corp|home)$"
    r"|[^a-z0-9.-]",
    re.IGNORECASE,
)
"""The user's own proxy or gateway: a local or private address, a placeholder or an example."""
_SERVICES = re.compile(
    r"(?:^|\.)(?:anthropic\.com|openai\.com|openai\.azure\.com|googleapis\.com|mistral\.ai"
    r"|groq\.com|npmjs\.org|yarnpkg\.com|claude\.ai)$",
    re.IGNORECASE,
)
"""The services' own API hosts: where the setting points by default."""


@dataclass(frozen=True)
class Redirect:
    offset: int
    variable: str
    host: str


_CLIENT = re.compile(
    r"\b((?:Async)?(?:OpenAI|AzureOpenAI|Anthropic|AnthropicVertex|ChatOpenAI|ChatAnthropic))"
    r"\s*\(\s*\{?"
)
"""An AI SDK's client constructed (Python ``OpenAI(…)``, JavaScript ``new OpenAI({…})``)."""
_BASE_URL = re.compile(
    r"\b(?:base_url|baseURL|openai_api_base|anthropic_api_url)\s*[=:]\s*[\"'`]"
    r"((?:https?|socks5h?)://[^\s\"'`]{1,200})"
)
_OWN_KEY = re.compile(r"\b(?:api_key|apiKey|openai_api_key|anthropic_api_key)\s*[=:]")
_SERVICE_KEY = re.compile(r"\b(?:OPENAI|ANTHROPIC|AZURE_OPENAI|CLAUDE)_API_KEY\b")
MAX_ARGUMENTS = 1000
"""How far a constructor's arguments are read."""
_NAMED = ("ANTHROPIC_", "OPENAI_", "_BASE_URL", "_API_URL", "_PROXY", "_proxy", "_REGISTRY", "npm")
"""Strings one of which every match of ``_SETTING`` holds (each variable, and ``npm config``),
as written: a text holding none is not searched. ``_SETTING`` is tried at every character of
every file, and almost no file names a base URL or a proxy."""


def redirects(text: str) -> Iterator[Redirect]:
    """Where ``text`` sets an API base URL, a proxy or a package registry to a host that is not
    the user's own (local, private, a placeholder) nor the service's own: in a setting, or in
    the arguments of an AI SDK's client (``_client_redirects``)."""
    if any(named in text for named in _NAMED):
        for match in _SETTING.finditer(text):
            variable = match.group(1) or match.group(3)
            url = match.group(2) or match.group(4)
            name = _elsewhere(url)
            if name is not None:
                yield Redirect(match.start(), variable, name)
    yield from _client_redirects(text)


def _client_redirects(text: str) -> Iterator[Redirect]:
    """An AI SDK's client given another party's ``base_url`` and the user's key for the service:
    none (the SDK reads ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY`` itself) or that variable
    named. Every call of the client — prompts, answers, the key in its headers — goes to that
    host. A client given a key of its own (``OPENROUTER_API_KEY``, a value the user fills in)
    is a client of that other service, as the user chose."""
    if "(" not in text:
        return
    for match in _CLIENT.finditer(text):
        arguments = _arguments(text, match.end())
        url = _BASE_URL.search(arguments)
        if url is None or (_OWN_KEY.search(arguments) and not _SERVICE_KEY.search(arguments)):
            continue
        name = _elsewhere(url.group(1))
        if name is not None:
            yield Redirect(match.start(), f"{match.group(1)}(base_url=…)", name)


def _arguments(text: str, start: int) -> str:
    """The text of a call's arguments from ``start`` to its closing parenthesis (at most
    ``MAX_ARGUMENTS`` characters)."""
    depth = 0
    for index in range(start, min(len(text), start + MAX_ARGUMENTS)):
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth < 0:
                return text[start:index]
    return text[start : start + MAX_ARGUMENTS]


def _elsewhere(url: str) -> str | None:
    """The host of ``url`` when it is another party's: not the user's own, not the service's."""
    host = _HOST.match(url)
    if host is None:
        return None
    name = host.group(1).lower().rstrip(".")
    if _USERS_OWN.search(name) or _SERVICES.search(name) or "." not in name:
        return None
    return name
