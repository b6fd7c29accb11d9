"""Token shapes: a token as listed (never its key), the request that makes one, and the answer
that shows the key once."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import serializers

from accounts import tokens
from accounts.models import ApiToken
from config import scopes


class TokenSerializer(serializers.ModelSerializer):
    expired = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields: tuple[str, ...] = (
            "id", "name", "prefix", "scopes", "created_at", "expires_at", "last_used_at",
            "expired",
        )  # fmt: skip
        extra_kwargs = {"scopes": {"help_text": f"Some of: {', '.join(scopes.SCOPES)}."}}

    def get_expired(self, token: ApiToken) -> bool:
        return token.expires_at <= timezone.now()


class LegacyTokenSerializer(serializers.Serializer):
    created_at = serializers.DateTimeField(source="created")
    prefix = serializers.SerializerMethodField()
    scopes = serializers.SerializerMethodField()

    def get_prefix(self, token: Any) -> str:
        return str(token.key)[:4]

    def get_scopes(self, token: Any) -> list[str]:
        """Every scope: a legacy token can do whatever its account may."""
        return list(scopes.SCOPES)


class TokenListSerializer(serializers.Serializer):
    tokens = TokenSerializer(many=True)
    legacy = LegacyTokenSerializer(
        allow_null=True,
        help_text="The account's token from before scoped tokens (full access), until revoked.",
    )


class TokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=tokens.NAME_MAX_LENGTH, help_text="What it is for.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=list(scopes.SCOPES)),
        default=list(scopes.AUTHOR_SCOPES),
        help_text="What it may do (default: read, submit, yank).",
    )
    expires_in_days = serializers.IntegerField(
        min_value=1, max_value=tokens.MAX_DAYS, default=tokens.DEFAULT_DAYS
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: [f"unknown field; allowed: {', '.join(self.fields)}"] for name in unknown}
            )
        return attrs


class IssuedTokenSerializer(TokenSerializer):
    key = serializers.CharField(help_text="The token itself: shown this once, stored nowhere.")

    class Meta(TokenSerializer.Meta):
        fields = (*TokenSerializer.Meta.fields, "key")


class AccountSerializer(serializers.Serializer):
    username = serializers.CharField()
    authenticated_by = serializers.ChoiceField(
        choices=["token", "legacy-token", "session"], help_text="How this request signed in."
    )
    token = TokenSerializer(allow_null=True, help_text="The token of this request, if scoped.")
