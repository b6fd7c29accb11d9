"""API tokens as a registry keeps them: named, scoped, expiring, stored as a hash only."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    """One token of one account. The key itself is shown once, when it is made, and never
    stored: ``key_hash`` is its sha256 (a random 256-bit key needs no slow hash), ``prefix``
    its first characters, enough to tell tokens apart in a list."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=64, help_text="What the token is for, e.g. 'laptop'.")
    prefix = models.CharField(max_length=16, help_text="The key's first characters.")
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list, help_text="What the token may do.")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "-created_at"], name="api_token_by_user")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def is_active(self, now: datetime | None = None) -> bool:
        return self.revoked_at is None and self.expires_at > (now or timezone.now())
