"""Issue 9 item 14: one throttle for every process, bounded pages, bounded versions, and the
admin login locked after repeated failures, visible to operators."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.pagination import CursorPagination, LimitOffsetPagination
from rest_framework.throttling import ScopedRateThrottle

from pipeline.roles import OPERATORS_GROUP
from tests.support.skills import benign_files, skill_md

pytestmark = pytest.mark.django_db


def test_the_throttle_counts_in_the_database_shared_by_every_process():
    assert isinstance(caches["default"], DatabaseCache)


def test_the_submission_throttle_refuses_over_its_rate(make_user, client_for, monkeypatch):
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"submissions": "2/hour"})
    api = client_for(make_user())
    codes = [
        api.post(
            "/api/v1/submissions",
            data=json.dumps({"files": benign_files(f"n-{i}")}),
            content_type="application/json",
        ).status_code
        for i in range(3)
    ]
    assert codes == [201, 201, 429]


def _list_views(patterns=None, seen=None):
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _list_views(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            view = getattr(pattern.callback, "cls", None)
            paginator = getattr(view, "pagination_class", None)
            if paginator is not None:
                yield view, paginator


def test_every_paginated_list_has_a_ceiling():
    views = list(_list_views())
    assert views
    for view, paginator in views:
        if issubclass(paginator, LimitOffsetPagination):
            assert paginator().max_limit, view
        if issubclass(paginator, CursorPagination):
            assert paginator().max_page_size, view


def test_a_huge_limit_returns_one_bounded_page(make_user, client_for, settings):
    settings.SKILLGATE_MAX_PAGE_SIZE = 2
    author = make_user()
    api = client_for(author)
    for i in range(3):
        api.post(
            "/api/v1/submissions",
            data=json.dumps({"files": benign_files(f"skill-{i}")}),
            content_type="application/json",
        )
    body = api.get("/api/v1/submissions?limit=100000000").json()
    assert len(body["results"]) == 2 and body["next"]
    assert len(Client().get("/api/v1/skills?limit=100000000").json()["results"]) <= 2


def test_an_overlong_version_is_refused_at_intake(make_user, client_for):
    response = client_for(make_user()).post(
        "/api/v1/submissions",
        data=json.dumps({"files": {"SKILL.md": skill_md(version="1" * 306)}}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "version is longer than 64" in response.json()["detail"]


def login(client: Client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def test_the_admin_login_locks_an_account_after_repeated_failures(make_user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    make_user("root", staff=True, is_superuser=True)
    client = Client()
    for attempt in range(3):
        assert login(client, "root", "wrong", address=f"10.0.0.{attempt}").status_code in (
            200,
            429,
        )
    locked = login(client, "root", "pw-for-tests", address="10.0.0.99")
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_admin_login_locks_an_address_guessing_many_accounts(make_user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    make_user("victim", staff=True)
    client = Client()
    for name in ("a", "b", "c"):
        login(client, name, "wrong", address="10.9.9.9")
    assert login(client, "victim", "pw-for-tests", address="10.9.9.9").status_code == 429
    assert login(client, "victim", "pw-for-tests", address="10.1.1.1").status_code == 302


def test_operators_see_and_clear_lockouts_in_the_admin(make_user, settings):
    settings.AXES_FAILURE_LIMIT = 1
    login(Client(), "root", "wrong")
    operator = make_user("ops", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    client = Client()
    client.force_login(operator)
    page = client.get("/admin/axes/accessattempt/")
    assert page.status_code == 200
    assert b"root" in page.content
    reviewer = make_user("rev", staff=True)
    other = Client()
    other.force_login(reviewer)
    assert other.get("/admin/axes/accessattempt/").status_code == 403
