"""Issue 21 item 10: /metrics tells how many submissions wait where, which rules misfire and what
the broker holds, so it answers the metrics token (Prometheus) and operators only, by default."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts import tokens
from pipeline.roles import OPERATORS_GROUP

pytestmark = pytest.mark.django_db


def test_an_anonymous_scrape_is_refused_even_with_no_token_configured(settings):
    settings.SKILLGATE_METRICS_TOKEN = ""
    response = Client().get("/metrics")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert b"skillgate_" not in response.content
    assert b"metrics token" in response.content


def test_the_metrics_token_is_accepted_and_a_wrong_one_refused(scraper):
    assert scraper.get("/metrics").status_code == 200
    wrong = Client(HTTP_AUTHORIZATION="Bearer not-the-token").get("/metrics")
    assert wrong.status_code == 401


def test_an_operator_reads_them_signed_in_or_with_an_api_token(make_user, settings):
    settings.SKILLGATE_METRICS_TOKEN = ""
    operator = make_user("otto", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    browser = Client()
    browser.force_login(operator)
    assert browser.get("/metrics").status_code == 200
    token = Token.objects.create(user=operator)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert b"skillgate_submissions" in api.get("/metrics").content
    scoped = tokens.issue(operator, "grafana", ["read"]).key
    assert Client(HTTP_AUTHORIZATION=f"Bearer {scoped}").get("/metrics").status_code == 200


def test_a_signed_in_author_or_reviewer_is_not_an_operator(make_user, settings):
    settings.SKILLGATE_METRICS_TOKEN = ""
    for user in (make_user("author"), make_user("rita", staff=True)):
        client = Client()
        client.force_login(user)
        assert client.get("/metrics").status_code == 401
        token = Token.objects.create(user=user)
        assert Client(HTTP_AUTHORIZATION=f"Bearer {token.key}").get("/metrics").status_code == 401
        scoped = tokens.issue(user, "laptop", ["read"]).key
        assert Client(HTTP_AUTHORIZATION=f"Token {scoped}").get("/metrics").status_code == 401
