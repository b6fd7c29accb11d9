"""The author's account from the command line: ``login`` (a token made on the author's page,
checked, then kept owner-only in the config file), ``logout``, and ``token`` list / create /
revoke."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from skillgate_cli import credentials
from skillgate_cli.exits import Exit, Failure
from skillgate_cli.output import Printer, shown
from skillgate_cli.registry import Forbidden, NotSignedIn, Refused, Registry, RegistryError

MAX_TOKEN_CHARS = 512


def login(registry: Registry, token_from_stdin: bool, printer: Printer) -> Exit:
    if token_from_stdin or not sys.stdin.isatty():
        token = sys.stdin.readline(MAX_TOKEN_CHARS + 1).strip()
    else:
        printer.note(f"Make a token on {registry.url}/account/tokens/ (sign in first), then")
        token = getpass.getpass("paste it here (it is not shown): ").strip()
    if not token or len(token) > MAX_TOKEN_CHARS:
        raise Failure("no token given: paste the token the account page showed", Exit.USAGE)
    checked = Registry(registry.url, token)
    try:
        account = checked.account()
    except NotSignedIn as refused:
        raise Failure(str(refused), Exit.NOT_SIGNED_IN) from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
    try:
        path = credentials.remember_login(registry.url, token, str(account.get("username")))
    except credentials.ConfigError as error:
        raise Failure(str(error)) from error
    printer.say(
        f"logged in to {registry.url} as {shown(account.get('username'))}{_token_words(account)}"
    )
    printer.say(f"the token is kept in {path} (readable by you only)")
    if os.environ.get(credentials.TOKEN_ENV):
        printer.say(f"note: ${credentials.TOKEN_ENV} is set and wins over the stored token")
    return Exit.OK


def _token_words(account: dict[str, Any]) -> str:
    token = account.get("token")
    if not isinstance(token, dict):
        return " (a legacy token: full access; make a scoped one on the account page)"
    scopes = ", ".join(str(s) for s in token.get("scopes") or [])
    expires = str(token.get("expires_at", ""))[:10]
    return shown(f" with the token {token.get('name')!r} ({scopes}; expires {expires})")


def logout(registry: Registry, printer: Printer) -> Exit:
    try:
        forgot = credentials.forget_login(registry.url)
    except credentials.ConfigError as error:
        raise Failure(str(error)) from error
    if forgot:
        printer.say(
            f"logged out of {registry.url}: the token was removed from this machine; it still "
            "works until revoked (skillgate token revoke ID, or the account page)"
        )
    else:
        printer.say(f"no token for {registry.url} was stored on this machine")
    return Exit.OK


def list_tokens(registry: Registry, printer: Printer) -> Exit:
    tokens = _call(lambda: registry.tokens())
    rows = [t for t in tokens.get("tokens", []) if isinstance(t, dict)]
    for token in rows:
        state = "EXPIRED" if token.get("expired") else f"until {str(token.get('expires_at'))[:10]}"
        used = str(token.get("last_used_at") or "never")[:16].replace("T", " ")
        printer.say(
            shown(
                f"{token.get('id')!s:>5}  {token.get('name')!s:20} {token.get('prefix')}…  "
                f"{', '.join(token.get('scopes') or []):28} {state:17} last used {used}"
            )
        )
    legacy = tokens.get("legacy")
    if isinstance(legacy, dict):
        printer.say(
            shown(
                f"legacy  {legacy.get('prefix')}…  full access, made "
                f"{str(legacy.get('created_at'))[:10]} (skillgate token revoke legacy)"
            )
        )
    if not rows and not isinstance(legacy, dict):
        printer.say("no tokens")
    return Exit.OK


def create_token(
    name: str, scopes: list[str], days: int, registry: Registry, printer: Printer
) -> Exit:
    made = _call(lambda: registry.make_token(name, scopes, days))
    printer.say(
        shown(
            f"made the token {made.get('name')!r} ({', '.join(made.get('scopes') or [])}; until "
            f"{str(made.get('expires_at'))[:10]}). It is shown this once:"
        )
    )
    printer.say(shown(made.get("key")))
    return Exit.OK


def revoke_token(token_id: str, registry: Registry, printer: Printer) -> Exit:
    if not (token_id == "legacy" or token_id.isdigit()):
        raise Failure("say which token: its id (skillgate token list) or 'legacy'", Exit.USAGE)
    _call(lambda: registry.revoke_token(token_id))
    printer.say(f"revoked token {token_id}: it no longer works")
    return Exit.OK


T = TypeVar("T")


def _call(action: Callable[[], T]) -> T:
    try:
        return action()
    except (NotSignedIn, Forbidden) as refused:
        raise Failure(str(refused), Exit.NOT_SIGNED_IN) from refused
    except Refused as refused:
        raise Failure(shown(refused)) from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
