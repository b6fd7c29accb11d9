"""``Authorization: Token sg_…`` (or ``Bearer sg_…``): a scoped API token, checked against the
scope the operation needs (``config.scopes``). Keys without the ``sg_`` prefix are legacy tokens
(``config.authentication``), which keep full access until their owner revokes them."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts import tokens
from accounts.models import ApiToken
from config import scopes
from config.authentication import TokenAuthentication as LegacyTokenAuthentication

TOKENS_PAGE = "/account/tokens/"
SCOPE_REFUSED = "token_scope"
"""The error code of a 403 for a token that lacks the scope (the account itself may)."""


class ApiTokenAuthentication(LegacyTokenAuthentication):
    """One class for both kinds of key, so the OpenAPI schema documents one token header."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = authentication.get_authorization_header(request).split()
        key = ""
        if len(parts) == 2 and parts[0].lower() in {b"token", b"bearer"}:
            key = parts[1].decode("ascii", errors="replace")
        if not tokens.is_scoped_key(key):
            return super().authenticate(request)
        found = tokens.find(key)
        if isinstance(found, tokens.Unusable):
            raise exceptions.AuthenticationFailed(found.reason)
        _check_scope(found, request)
        return found.user, found


def _check_scope(token: ApiToken, request: Request) -> None:
    view = (getattr(request, "parser_context", None) or {}).get("view")
    needed = scopes.required_scope(view, request.method or "GET")
    if needed == scopes.ANY or (needed is not None and needed in token.scopes):
        return
    held = ", ".join(token.scopes) or "none"
    if needed is None:
        raise exceptions.PermissionDenied(
            f"API tokens cannot do this (the token {token.name!r} has the scopes {held}); "
            "sign in on the web page instead",
            code=SCOPE_REFUSED,
        )
    raise exceptions.PermissionDenied(
        f"the API token {token.name!r} lacks the scope {needed!r} (it has: {held}); make a token "
        f"with it on {TOKENS_PAGE} or with `skillgate token create --scope {needed}`",
        code=SCOPE_REFUSED,
    )
