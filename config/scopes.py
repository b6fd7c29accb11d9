"""What an API token may do: each token carries scopes, and each API operation needs one.

Reads (GET, HEAD, OPTIONS) need ``read``; every write names its scope on its view as
``token_scope`` (``submit``, ``yank``, ``review``, ``operate``). A write whose view names none
refuses scoped tokens, so a new endpoint is closed to them until someone decides its scope.
``ANY`` marks an operation any token of the account may call (revoking a token: a leaked
token must be easy to kill with whatever token is at hand).
"""

from __future__ import annotations

from typing import Any

READ = "read"
SUBMIT = "submit"
YANK = "yank"
REVIEW = "review"
OPERATE = "operate"
ANY = "any"

SCOPES: dict[str, str] = {
    READ: "read your submissions, their findings and your tokens",
    SUBMIT: "submit skills",
    YANK: "yank and unyank versions of your skills",
    REVIEW: "act on reviews, quarantine and restore versions (Reviewers, Security)",
    OPERATE: "start re-scans and replay dead letters (Operators)",
}
"""Every scope a token may hold, with what it allows, in the order they are shown."""

AUTHOR_SCOPES = (READ, SUBMIT, YANK)
"""What an author's token holds unless asked otherwise."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def required_scope(view: Any, method: str) -> str | None:
    """The scope ``method`` on ``view`` needs; None when no scoped token may call it."""
    if method.upper() in _SAFE_METHODS:
        return READ
    scope = getattr(view, "token_scope", None)
    return scope if scope in SCOPES or scope == ANY else None


def normalised(scopes: list[str] | tuple[str, ...]) -> list[str]:
    """``scopes`` without duplicates, in SCOPES order; ValueError naming an unknown one."""
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise ValueError(f"unknown scope {', '.join(unknown)}; the scopes are {', '.join(SCOPES)}")
    return [scope for scope in SCOPES if scope in scopes]
