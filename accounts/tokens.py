"""Issuing, finding and revoking API tokens (``accounts.models.ApiToken``), and the legacy
tokens made before them (DRF's authtoken: one per account, full access, kept in plain text),
which keep working until their owner revokes them."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db.models import Q
from django.utils import timezone
from rest_framework.authtoken.models import Token as LegacyToken

from accounts.models import ApiToken
from config import scopes as scope_names

KEY_PREFIX = "sg_"
SHOWN_PREFIX_LENGTH = len(KEY_PREFIX) + 6
DEFAULT_DAYS = 90
MAX_DAYS = 366
NAME_MAX_LENGTH = 64
LAST_USED_PRECISION = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token: one write a minute, not one a
request."""


class TokenRefused(Exception):
    """The token cannot be made as asked; the message says what to change."""


@dataclass(frozen=True)
class Issued:
    token: ApiToken
    key: str
    """The secret, shown to its owner once and stored nowhere."""


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def issue(
    user: User,
    name: str,
    scopes: list[str] | tuple[str, ...] = scope_names.AUTHOR_SCOPES,
    days: int = DEFAULT_DAYS,
    *,
    within: ApiToken | None = None,
) -> Issued:
    """A new token for ``user``. ``within`` is the token the request came with, if any: a token
    only makes tokens that can do no more than itself and expire no later."""
    name = name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise TokenRefused(f"name the token in 1 to {NAME_MAX_LENGTH} characters")
    try:
        wanted = scope_names.normalised(list(scopes))
    except ValueError as unknown:
        raise TokenRefused(str(unknown)) from unknown
    if not wanted:
        raise TokenRefused(f"give the token at least one scope: {', '.join(scope_names.SCOPES)}")
    if not 1 <= days <= MAX_DAYS:
        raise TokenRefused(f"a token lasts 1 to {MAX_DAYS} days")
    now = timezone.now()
    expires_at = now + timedelta(days=days)
    if within is not None:
        beyond = sorted(set(wanted) - set(within.scopes))
        if beyond:
            raise TokenRefused(
                f"this token cannot make a token with more scopes than its own ({', '.join(beyond)}"
                " missing); sign in on the web page to make one"
            )
        expires_at = min(expires_at, within.expires_at)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=key[:SHOWN_PREFIX_LENGTH],
        key_hash=key_hash(key),
        scopes=wanted,
        created_at=now,
        expires_at=expires_at,
    )
    return Issued(token, key)


def is_scoped_key(key: str) -> bool:
    return key.startswith(KEY_PREFIX)


@dataclass(frozen=True)
class Unusable:
    """Why a presented key authenticates nobody, in words for its holder."""

    reason: str


def find(key: str, now: datetime | None = None) -> ApiToken | Unusable:
    """The active token with this key (its use noted), or why there is none."""
    now = now or timezone.now()
    token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key)).first()
    if token is None:
        return Unusable("unknown API token: check it was copied whole, or make a new one")
    if token.revoked_at is not None:
        return Unusable(f"the API token {token.name!r} was revoked; make a new one")
    if token.expires_at <= now:
        return Unusable(
            f"the API token {token.name!r} expired on {token.expires_at:%Y-%m-%d}; make a new one"
        )
    if not token.user.is_active:
        return Unusable("the account of this API token is disabled")
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_PRECISION)
        ).update(last_used_at=now)
    return token


def tokens_of(user: User) -> list[ApiToken]:
    """The account's tokens that were not revoked, newest first (expired ones too, marked)."""
    return list(ApiToken.objects.filter(user=user, revoked_at__isnull=True))


def revoke(user: User, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens; ApiToken.DoesNotExist for anyone else's (or a revoked
    one), so tokens of other accounts cannot even be told to exist."""
    token = ApiToken.objects.get(pk=token_id, user=user, revoked_at__isnull=True)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token


def legacy_token_of(user: User) -> LegacyToken | None:
    """The account's token from before scoped tokens, if it still has one."""
    return LegacyToken.objects.filter(user=user).first()


def revoke_legacy(user: User) -> bool:
    """Delete the account's legacy token; False when it had none."""
    deleted, _ = LegacyToken.objects.filter(user=user).delete()
    return bool(deleted)
