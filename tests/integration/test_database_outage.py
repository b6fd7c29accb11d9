"""While the database is down the API answers 503 with ``Retry-After`` in the error shape —
never a bare 500 — so clients know to retry and that nothing was stored.

The web server is the real gunicorn; the database it is given refuses connections, which is
what a PostgreSQL restart looks like from the application.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from tests.support.skills import skill_md
from tests.support.stack import WebServer, free_port, stack_environment

pytestmark = pytest.mark.integration


@pytest.fixture
def web_without_database(live_db):
    server = WebServer(
        stack_environment(
            DATABASE_URL=f"postgres://skillgate:skillgate@127.0.0.1:{free_port()}/skillgate",
            SKILLGATE_METRICS_TOKEN=METRICS_TOKEN,
        )
    )
    server.start()
    yield server
    server.stop()


METRICS_TOKEN = "outage-scrape-token"


def call(
    url: str, *, method: str = "GET", token: str = "", body: object = None, keyword: str = "Token"
):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"{keyword} {token}"
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_a_submission_posted_while_the_database_is_down_gets_503_and_retry_after(
    web_without_database, author
):
    token = Token.objects.create(user=author).key
    status, headers, body = call(
        f"{web_without_database.url}/api/v1/submissions",
        method="POST",
        token=token,
        body={"files": {"SKILL.md": skill_md("outage")}},
    )
    assert status == 503
    assert headers["Retry-After"] == "10"
    error = json.loads(body)
    assert error["code"] == "unavailable" and error["errors"] == {}
    assert "nothing was stored" in error["detail"]


def test_public_reads_and_pages_outside_the_api_answer_503_too(web_without_database):
    status, headers, body = call(f"{web_without_database.url}/api/v1/skills")
    assert status == 503 and headers["Retry-After"] == "10"
    assert json.loads(body)["code"] == "unavailable"
    status, headers, body = call(
        f"{web_without_database.url}/metrics", token=METRICS_TOKEN, keyword="Bearer"
    )
    assert status == 503 and headers["Retry-After"] == "10"
    assert b"database is unavailable" in body
    status, _, body = call(f"{web_without_database.url}/readyz")
    assert status == 503 and json.loads(body)["checks"]["database"] != "ok"
