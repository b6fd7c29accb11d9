"""Operator endpoints check the same Django permissions as the admin (pipeline.roles): being
staff is not enough, reviewers are staff too."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.request import Request

from pipeline.roles import REPLAY_DEAD_LETTERS, VIEW_DEAD_LETTERS, VIEW_OPERATIONS

_MESSAGE = "this needs an operator's permission (the Operators group)"


def _has_all(request: Request, needed: tuple[str, ...]) -> bool:
    user = request.user
    return bool(user and user.is_authenticated and user.has_perms(needed))


class CanViewOperations(permissions.BasePermission):
    """Queue status and metrics."""

    message = _MESSAGE

    def has_permission(self, request: Request, view: Any) -> bool:
        return _has_all(request, (VIEW_OPERATIONS,))


class CanHandleDeadLetters(permissions.BasePermission):
    """Reading dead letters (with their payloads) and, for writes, replaying them."""

    message = _MESSAGE

    def has_permission(self, request: Request, view: Any) -> bool:
        needed: tuple[str, ...] = (VIEW_OPERATIONS, VIEW_DEAD_LETTERS)
        if request.method not in permissions.SAFE_METHODS:
            needed += (REPLAY_DEAD_LETTERS,)
        return _has_all(request, needed)
