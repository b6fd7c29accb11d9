"""The API documents itself, and the health endpoints tell the truth."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_openapi_schema_lists_the_v1_endpoints():
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/v1/submissions",
        "/api/v1/submissions/{id}",
        "/api/v1/submissions/{id}/events",
        "/api/v1/submissions/{id}/transitions",
        "/api/v1/skills",
        "/api/v1/skills/{owner}/{name}",
        "/api/v1/skills/{owner}/{name}/versions/{version}",
    ):
        assert path in paths, sorted(paths)


def test_docs_page_is_served_without_a_cdn():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    assert b"cdn.jsdelivr" not in response.content


def test_healthz_answers_ok():
    assert Client().get("/healthz").json() == {"status": "ok"}


def test_readyz_checks_the_database_and_the_broker():
    response = Client().get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"] == {"database": "ok", "broker": "ok"}
    dead_letters = response.json()["dead_letters"]
    assert set(dead_letters) == {"queue", "open", "difference"}
    assert dead_letters["difference"] == dead_letters["queue"] - dead_letters["open"]


def test_readyz_is_503_when_the_broker_is_unreachable(monkeypatch):
    from config.celery import app

    monkeypatch.setattr(app.conf, "broker_write_url", "amqp://nobody:nothing@127.0.0.1:1//")
    response = Client().get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] != "ok"
