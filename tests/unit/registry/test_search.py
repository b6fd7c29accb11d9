"""``GET /api/v1/search``: published skills by any part of their name, owner or description,
best first, a page at a time; and the exact filters of ``/skills`` and ``/advisories``."""

from __future__ import annotations

import pytest
from django.db import connection
from rest_framework.test import APIClient

from registry import lifecycle
from registry.lifecycle import Actor
from tests.support.versions import publish_skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue(author, stranger):
    publish_skill(author, "weather-report", description="Reports the weather.")
    publish_skill(author, "report-writer", description="Writes weather reports for ships.")
    publish_skill(stranger, "weather", description="Tells the weather.")
    publish_skill(stranger, "note-taker", description="Takes notes.")


def search(query: str, **params: str) -> dict:
    response = APIClient().get("/api/v1/search", {"q": query, **params})
    assert response.status_code == 200, response.json()
    return response.json()


def names(body: dict) -> list[str]:
    return [f"{s['owner']}/{s['name']}" for s in body["results"]]


def test_the_exact_name_comes_first_then_names_starting_with_it_then_the_rest(catalogue):
    assert names(search("weather")) == [
        "stella/weather",
        "arthur/weather-report",
        "arthur/report-writer",
    ]


def test_every_word_must_match_somewhere(catalogue):
    assert names(search("weather ships")) == ["arthur/report-writer"]
    assert names(search("stella notes")) == ["stella/note-taker"]
    assert names(search("WEATHER Arthur")) == ["arthur/weather-report", "arthur/report-writer"]
    assert search("nothing-like-it")["results"] == []


def test_results_page_with_a_count(catalogue):
    first = search("weather", limit="2")
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next"]
    assert names(APIClient().get(first["next"]).json()) == ["arthur/report-writer"]


def test_an_empty_query_says_what_to_send():
    response = APIClient().get("/api/v1/search", {"q": "  "})
    assert response.status_code == 400 and "?q=WORDS" in str(response.json()["errors"])


def test_quarantined_skills_are_not_found(author, security):
    version = publish_skill(author, "weather-report", description="Reports the weather.")
    lifecycle.quarantine(version.pk, Actor.account(security), "steals keys")
    assert search("weather")["results"] == []


def test_the_skill_list_narrows_to_an_exact_name_or_owner(catalogue):
    client = APIClient()
    by_name = client.get("/api/v1/skills", {"name": "weather"}).json()["results"]
    assert [s["owner"] for s in by_name] == ["stella"]
    by_owner = client.get("/api/v1/skills", {"owner": "ARTHUR"}).json()["results"]
    assert [s["name"] for s in by_owner] == ["report-writer", "weather-report"]


def test_advisories_narrow_to_one_skill(author, security):
    mine = publish_skill(author, "weather-report")
    other = publish_skill(author, "note-taker")
    for version in (mine, other):
        lifecycle.quarantine(version.pk, Actor.account(security), f"bad {version.skill.name}")
    listed = APIClient().get("/api/v1/advisories", {"owner": "arthur", "name": "note-taker"})
    assert [a["reason"] for a in listed.json()["results"]] == ["bad note-taker"]


def test_the_search_reads_the_trigram_index():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'skill_search_trgm'")
        (definition,) = cursor.fetchone()
    assert "gin_trgm_ops" in definition and "upper(description)" in definition.lower()
