"""Who may use the review API at all; who may take which action is reviews.services' rule."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.request import Request

from reviews.roles import ACT_PERMISSION, SECURITY_PERMISSION, VIEW_PERMISSION


class IsReviewer(permissions.BasePermission):
    """Members of the Reviewers or Security group (reading needs the view permission, acting
    the act permission); everyone else gets 403."""

    message = "only members of the Reviewers or Security group can use the review queue"

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        needed = VIEW_PERMISSION if request.method in permissions.SAFE_METHODS else ACT_PERMISSION
        return user.has_perm(needed)


class IsSecurity(permissions.BasePermission):
    """Members of the Security group (appeals); everyone else gets 403."""

    message = "only members of the Security group can decide appeals"

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm(SECURITY_PERMISSION))
