"""The signed-in account of a request, typed as the project's User."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied


def signed_in(user: User | AnonymousUser) -> User:
    """The user behind a view that requires a login (the admin, DRF's IsAuthenticated): never
    anonymous there, so an anonymous one is refused rather than passed on."""
    if not isinstance(user, User):
        raise PermissionDenied("sign in first")
    return user
