"""API tokens as a registry keeps them: named, scoped, expiring, stored as a hash, shown once,
listed and revoked; the tokens made before them keep working until revoked."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts import tokens
from accounts.models import ApiToken
from tests.support.skills import benign_files
from tests.support.versions import make_security, publish_skill

pytestmark = pytest.mark.django_db

SUBMIT_BODY = {"files": benign_files("hello")}


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def author(make_user):
    return make_user("arthur")


def test_a_token_is_stored_as_its_hash_and_its_key_is_given_once(author):
    issued = tokens.issue(author, "laptop", ["read", "submit"], days=30)
    stored = ApiToken.objects.get(pk=issued.token.pk)
    assert issued.key.startswith("sg_") and len(issued.key) > 40
    assert stored.key_hash == hashlib.sha256(issued.key.encode()).hexdigest()
    assert issued.key not in str(ApiToken.objects.filter(pk=stored.pk).values().first()), (
        "the key itself is stored nowhere"
    )
    assert stored.prefix == issued.key[: len(stored.prefix)] and len(stored.prefix) < 12
    assert stored.scopes == ["read", "submit"]
    assert timedelta(days=29) < stored.expires_at - timezone.now() <= timedelta(days=30)


def test_a_scoped_token_may_do_what_its_scopes_say_and_nothing_else(author):
    reader = client_with(tokens.issue(author, "reader", ["read"]).key)
    assert reader.get("/api/v1/submissions").status_code == 200
    refused = reader.post("/api/v1/submissions", SUBMIT_BODY, format="json")
    assert refused.status_code == 403
    assert "lacks the scope 'submit'" in refused.json()["detail"]
    assert "skillgate token create --scope submit" in refused.json()["detail"]

    submitter = client_with(tokens.issue(author, "ci", ["submit"]).key)
    assert submitter.post("/api/v1/submissions", SUBMIT_BODY, format="json").status_code == 201
    assert submitter.get("/api/v1/submissions").status_code == 403


def test_yanking_needs_the_yank_scope(author):
    publish_skill(author)
    url = "/api/v1/skills/arthur/note-taker/versions/1.0.0/yank"
    without = client_with(tokens.issue(author, "ci", ["read", "submit"]).key)
    assert without.post(url, {}, format="json").status_code == 403
    with_it = client_with(tokens.issue(author, "yanker", ["yank"]).key)
    answer = with_it.post(url, {"reason": "broken"}, format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "yanked"


def test_quarantining_needs_the_review_scope_as_well_as_the_role(make_user, author):
    publish_skill(author)
    security = make_security(make_user("sven", staff=True))
    url = "/api/v1/skills/arthur/note-taker/versions/1.0.0/quarantine"
    body = {"reason": "steals keys"}
    author_scopes = client_with(tokens.issue(security, "cli", ["read", "submit", "yank"]).key)
    assert author_scopes.post(url, body, format="json").status_code == 403
    reviewing = client_with(tokens.issue(security, "triage", ["review"]).key)
    assert reviewing.post(url, body, format="json").status_code == 200


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"revoked_at": timezone.now()}, "was revoked"),
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, "expired on"),
    ],
)
def test_a_revoked_or_expired_token_is_refused_with_the_reason(author, change, message):
    issued = tokens.issue(author, "old", ["read"])
    ApiToken.objects.filter(pk=issued.token.pk).update(**change)
    refused = client_with(issued.key).get("/api/v1/submissions")
    assert refused.status_code == 401 and message in refused.json()["detail"]


def test_an_unknown_scoped_key_is_refused(author):
    refused = client_with("sg_" + "x" * 43).get("/api/v1/submissions")
    assert refused.status_code == 401 and "unknown API token" in refused.json()["detail"]


def test_a_token_of_a_disabled_account_is_refused(author):
    issued = tokens.issue(author, "laptop", ["read"])
    author.is_active = False
    author.save()
    assert client_with(issued.key).get("/api/v1/submissions").status_code == 401


def test_use_is_noted_at_most_once_a_minute(author, django_assert_max_num_queries):
    issued = tokens.issue(author, "laptop", ["read"])
    client = client_with(issued.key)
    client.get("/api/v1/submissions")
    first = ApiToken.objects.get(pk=issued.token.pk).last_used_at
    assert first is not None
    client.get("/api/v1/submissions")
    assert ApiToken.objects.get(pk=issued.token.pk).last_used_at == first


def test_legacy_tokens_keep_working_until_revoked(author):
    legacy = Token.objects.create(user=author)
    client = client_with(legacy.key)
    assert client.post("/api/v1/submissions", SUBMIT_BODY, format="json").status_code == 201
    listed = client.get("/api/v1/tokens").json()
    assert listed["legacy"]["prefix"] == legacy.key[:4]
    assert client.delete("/api/v1/tokens/legacy").status_code == 204
    assert client.get("/api/v1/submissions").status_code == 401
    assert not Token.objects.filter(user=author).exists()


def test_tokens_are_made_listed_and_revoked_over_the_api(author):
    client = APIClient()
    client.force_authenticate(author)  # a signed-in session may make any token
    made = client.post(
        "/api/v1/tokens", {"name": "ci", "scopes": ["submit"], "expires_in_days": 7}, format="json"
    )
    assert made.status_code == 201, made.json()
    key = made.json()["key"]
    assert made.json()["scopes"] == ["submit"] and made.json()["expired"] is False
    listed = client.get("/api/v1/tokens").json()
    assert [t["name"] for t in listed["tokens"]] == ["ci"] and "key" not in listed["tokens"][0]
    assert listed["legacy"] is None
    assert client_with(key).post("/api/v1/submissions", SUBMIT_BODY, format="json").status_code == (
        201
    )
    assert client.delete(f"/api/v1/tokens/{made.json()['id']}").status_code == 204
    assert client_with(key).post("/api/v1/submissions", SUBMIT_BODY, format="json").status_code == (
        401
    )
    assert client.get("/api/v1/tokens").json()["tokens"] == []


def test_a_token_makes_only_tokens_that_can_do_no_more_and_last_no_longer(author):
    reader = tokens.issue(author, "reader", ["read"], days=10)
    client = client_with(reader.key)
    wider = client.post("/api/v1/tokens", {"name": "more", "scopes": ["submit"]}, format="json")
    assert wider.status_code == 400 and "more scopes than its own" in str(wider.json())
    same = client.post(
        "/api/v1/tokens",
        {"name": "same", "scopes": ["read"], "expires_in_days": 300},
        format="json",
    )
    assert same.status_code == 201
    made = ApiToken.objects.get(pk=same.json()["id"])
    assert made.expires_at == reader.token.expires_at


def test_any_token_of_the_account_revokes_its_tokens_but_never_another_accounts(author, make_user):
    mine = tokens.issue(author, "leaked", ["submit"])
    other = tokens.issue(make_user("stella"), "hers", ["read"])
    client = client_with(tokens.issue(author, "reader", ["read"]).key)
    assert client.delete(f"/api/v1/tokens/{other.token.pk}").status_code == 404
    assert client.delete(f"/api/v1/tokens/{mine.token.pk}").status_code == 204
    assert ApiToken.objects.get(pk=other.token.pk).revoked_at is None


def test_the_account_endpoint_says_who_and_how(author):
    issued = tokens.issue(author, "laptop", ["read", "submit"])
    body = client_with(issued.key).get("/api/v1/account").json()
    assert body["username"] == "arthur" and body["authenticated_by"] == "token"
    assert body["token"]["name"] == "laptop" and body["token"]["scopes"] == ["read", "submit"]
    legacy = client_with(Token.objects.create(user=author).key).get("/api/v1/account").json()
    assert legacy["authenticated_by"] == "legacy-token" and legacy["token"] is None


@pytest.mark.parametrize(
    ("name", "scopes", "days", "message"),
    [
        ("", ["read"], 30, "name the token"),
        ("x", [], 30, "at least one scope"),
        ("x", ["root"], 30, "unknown scope root"),
        ("x", ["read"], 0, "1 to 366 days"),
        ("x", ["read"], 400, "1 to 366 days"),
    ],
)
def test_a_token_asked_for_wrongly_says_what_to_change(author, name, scopes, days, message):
    with pytest.raises(tokens.TokenRefused, match=message):
        tokens.issue(author, name, scopes, days)


def test_every_write_of_the_api_names_the_scope_it_needs():
    """A new write endpoint must decide its scope: without one, scoped tokens are refused."""
    from django.urls import get_resolver

    from config import scopes

    unscoped = []

    def walk(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
                continue
            view = getattr(pattern.callback, "cls", None)
            route = prefix + str(pattern.pattern)
            if view is None or not route.startswith("api/v1/"):
                continue
            actions = getattr(pattern.callback, "actions", None) or {}
            methods = [m.upper() for m in actions] or [
                m.upper() for m in ("post", "put", "patch", "delete") if hasattr(view, m)
            ]
            for method in methods:
                if method in {"GET", "HEAD", "OPTIONS"}:
                    continue
                if scopes.required_scope(view, method) is None:
                    unscoped.append(f"{method} {route}")

    walk(get_resolver().url_patterns)
    assert unscoped == []
