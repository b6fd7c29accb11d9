"""API token authentication that also takes the ``Bearer`` keyword most HTTP clients send."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication
from rest_framework.request import Request


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` or, equally, ``Authorization: Bearer <key>``."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        keyword = authentication.get_authorization_header(request).split()[:1]
        if keyword and keyword[0].lower() == b"bearer":
            self.keyword = "Bearer"
        return super().authenticate(request)
