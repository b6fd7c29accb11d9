"""Token endpoints: thin adapters over ``accounts.tokens``."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import tokens
from accounts.api.serializers import (
    AccountSerializer,
    IssuedTokenSerializer,
    LegacyTokenSerializer,
    TokenCreateSerializer,
    TokenListSerializer,
    TokenSerializer,
)
from accounts.models import ApiToken
from config import scopes
from config.accounts import signed_in


def _request_token(request: Request) -> ApiToken | None:
    return request.auth if isinstance(request.auth, ApiToken) else None


class TokenList(APIView):
    permission_classes = [permissions.IsAuthenticated]
    # A token makes only tokens that can do no more than itself (tokens.issue checks).
    token_scope = scopes.ANY

    @extend_schema(
        responses=TokenListSerializer,
        summary="Your API tokens",
        description="Your tokens that were not revoked, newest first, expired ones marked; "
        "keys are never shown again. `legacy` is the token from before scoped tokens.",
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request.user)
        legacy = tokens.legacy_token_of(user)
        return Response(
            {
                "tokens": TokenSerializer(tokens.tokens_of(user), many=True).data,
                "legacy": LegacyTokenSerializer(legacy).data if legacy else None,
            }
        )

    @extend_schema(
        request=TokenCreateSerializer,
        responses={201: IssuedTokenSerializer},
        summary="Make an API token",
        description="A named token with scopes and an expiry. Its `key` is in this answer only: "
        "store it now. A request signed in with a token can only make tokens with some of its "
        "own scopes, expiring no later.",
        examples=[
            OpenApiExample(
                "An author's CI token",
                value={"name": "ci", "scopes": ["read", "submit"], "expires_in_days": 30},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        body = TokenCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            issued = tokens.issue(
                signed_in(request.user),
                body.validated_data["name"],
                body.validated_data["scopes"],
                body.validated_data["expires_in_days"],
                within=_request_token(request),
            )
        except tokens.TokenRefused as refused:
            raise ValidationError({"scopes": [str(refused)]}) from refused
        data = {**TokenSerializer(issued.token).data, "key": issued.key}
        return Response(data, status=status.HTTP_201_CREATED)


class TokenDetail(APIView):
    permission_classes = [permissions.IsAuthenticated]
    # Any token of the account may revoke its tokens: a leaked one must be easy to kill.
    token_scope = scopes.ANY

    @extend_schema(
        responses={204: OpenApiResponse(description="Revoked: the token no longer works.")},
        summary="Revoke an API token",
        description="The token stops working at once. Revoking the token of this very "
        "request is allowed.",
    )
    def delete(self, request: Request, token_id: int) -> Response:
        try:
            tokens.revoke(signed_in(request.user), token_id)
        except ApiToken.DoesNotExist as missing:
            raise NotFound("you have no active token with this id") from missing
        return Response(status=status.HTTP_204_NO_CONTENT)


class LegacyToken(APIView):
    permission_classes = [permissions.IsAuthenticated]
    token_scope = scopes.ANY

    @extend_schema(
        responses={204: OpenApiResponse(description="Revoked: the legacy token no longer works.")},
        summary="Revoke your legacy API token",
        description="The account's token from before scoped tokens (full access) stops working.",
    )
    def delete(self, request: Request) -> Response:
        if not tokens.revoke_legacy(signed_in(request.user)):
            raise NotFound("you have no legacy token")
        return Response(status=status.HTTP_204_NO_CONTENT)


class Account(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses=AccountSerializer,
        summary="Who you are signed in as",
        description="The account and how this request authenticated: `skillgate login` checks "
        "a token with it.",
    )
    def get(self, request: Request) -> Response:
        token = _request_token(request)
        if token is not None:
            how = "token"
        elif request.auth is not None:
            how = "legacy-token"
        else:
            how = "session"
        return Response(
            {
                "username": signed_in(request.user).get_username(),
                "authenticated_by": how,
                "token": TokenSerializer(token).data if token else None,
            }
        )
