"""Web-server security headers and admission policies that switch a protection off, read in
the configuration a skill writes or applies.

An nginx ``add_header``, an Apache ``Header set`` (a ``.htaccess`` file included) and an OPA
Rego policy are programs of a kind: the server sends what they say to every browser, and the
admission controller admits what they allow. No pattern rule reads them: what a header does
depends on its name and its value. ``weakenings`` keeps the settings that turn a browser's or a
cluster's protection off:

* HSTS with ``max-age=0`` (browsers forget to insist on HTTPS);
* a Content-Security-Policy whose ``default-src``, ``script-src`` or ``frame-ancestors`` allows
  any host (``*``): scripts from anywhere, framing by anyone;
* a credentialed CORS response to any origin (``Access-Control-Allow-Origin: *`` or the
  request's own ``$http_origin`` reflected, with ``Access-Control-Allow-Credentials: true``):
  every site reads the user's data with the user's cookies;
* ``X-Frame-Options: ALLOWALL``, and a security header set to nothing or removed
  (``Header unset``, ``proxy_hide_header``, ``more_clear_headers``);
* a Rego policy that allows everything (``default allow := true``, ``allow { true }``).

Each is a setting a local test set-up may want, so one alone is a capability a person decides
on; sold as a fix, a hardening or a compliance baseline, the stated purpose contradicts the
act (``bundle.applied.pretext``). Headers that add a protection (``default-src 'self'``, a
year of HSTS, one trusted origin with credentials, a public API's ``*`` without them) are none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grading import linear

_NGINX = linear.compile(
    r"(?im)^[ \t]*add_header[ \t]+([\w-]{1,80})[ \t]+(\"[^\"\n]*\"|'[^'\n]*'|[^\s;]+)"
)
_APACHE = linear.compile(
    r"(?im)^[ \t]*Header[ \t]+(?:always[ \t]+)?(?:set|add|merge)[ \t]+([\w-]{1,80})[ \t]+"
    r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s]+)"
)
_REMOVED = linear.compile(
    r"(?im)^[ \t]*(?:Header[ \t]+(?:always[ \t]+)?unset|proxy_hide_header|more_clear_headers)"
    r"[ \t]+[\"']?(strict-transport-security|content-security-policy|x-frame-options"
    r"|x-content-type-options)\b"
)
_REGO_ALLOW_ALL = linear.compile(
    r"(?m)^[ \t]*(?:default[ \t]+allow[ \t]*:?=[ \t]*true\b"
    r"|allow[ \t]+(?:if[ \t]+)?(?:\{[ \t]*true[ \t]*\}|true\b))"
)
_SECURITY_HEADERS = frozenset(
    {
        "strict-transport-security",
        "content-security-policy",
        "x-frame-options",
        "x-content-type-options",
    }
)
_ANY_SOURCE = re.compile(
    r"(?i)(?:^|;)\s*(default-src|script-src|frame-ancestors)\s[^;]*?(?<!\S)\*(?!\S)"
)
_NAMED = ("add_header", "Header", "header", "allow", "more_clear_headers")
"""Strings one of which every setting holds: a text holding none is not searched."""


@dataclass(frozen=True)
class Weakening:
    offset: int
    detail: str


def weakenings(text: str) -> list[Weakening]:
    """The header and policy settings of ``text`` that switch a protection off, one per
    protection."""
    if not any(named in text for named in _NAMED):
        return []
    found: dict[str, Weakening] = {}
    headers = [
        (match.start(), match.group(1).lower(), match.group(2).strip("\"'").strip())
        for pattern in (_NGINX, _APACHE)
        for match in pattern.finditer(text)
    ]
    credentials = any(
        name == "access-control-allow-credentials" and value.lower() == "true"
        for _, name, value in headers
    )
    for offset, name, value in headers:
        what = _weakening(name, value, credentials=credentials)
        if what is not None and what not in found:
            found[what] = Weakening(offset, f"{what} ({name}: {value or 'empty'})")
    for match in _REMOVED.finditer(text):
        what = f"{match.group(1).lower()} removed"
        found.setdefault(what, Weakening(match.start(), what))
    for match in _REGO_ALLOW_ALL.finditer(text):
        what = "the policy allows everything"
        found.setdefault(what, Weakening(match.start(), f"{what} ({match.group().strip()})"))
    return sorted(found.values(), key=lambda item: item.offset)


def _weakening(name: str, value: str, *, credentials: bool) -> str | None:
    """What a header does to a protection, when it turns one off."""
    lowered = value.lower()
    if name in _SECURITY_HEADERS and not lowered:
        return f"{name} set to nothing"
    if name == "strict-transport-security" and re.search(r"max-age\s*=\s*0\b", lowered):
        return "HSTS switched off"
    if name == "content-security-policy" and (found := _ANY_SOURCE.search(lowered)):
        return f"the content security policy's {found.group(1)} allows any host"
    if name == "x-frame-options" and lowered == "allowall":
        return "framing by any site"
    if name == "access-control-allow-origin" and credentials and lowered in ("*", "$http_origin"):
        return "any origin reads responses with the user's credentials"
    return None
