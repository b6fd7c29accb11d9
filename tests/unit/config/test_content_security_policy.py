"""Issue 21 item 11: every response carries the Content-Security-Policy (the browser tests check
that the pages work under it); inline styles carry the response's nonce."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/", "/api/v1/", "/api/v1/skills", "/api/docs/", "/admin/login/", "/metrics", "/nope"]
)
def test_every_response_carries_the_policy(path):
    policy = Client().get(path)["Content-Security-Policy"]
    for directive in (
        "default-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "base-uri 'self'",
    ):
        assert directive in policy, (path, policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_the_landing_pages_inline_style_carries_the_nonce_of_its_response():
    response = Client().get("/")
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])
    assert nonce is not None
    assert f'<style nonce="{nonce.group(1)}">' in response.content.decode()


def test_the_api_docs_load_their_init_script_as_a_file():
    page = Client().get("/api/docs/").content.decode()
    assert "<script>" not in page
    assert '<script src="/api/docs/?script="></script>' in page
    script = Client().get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
