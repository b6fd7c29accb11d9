"""Issue 9 item 10: deep nesting is a 400, never a RecursionError and a 500."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from django.contrib.auth.models import Group

from config.parsers import json_depth
from reviews.roles import REVIEWERS_GROUP
from tests.support.skills import skill_md
from tests.unit.reviews.factories import awaiting_review

pytestmark = pytest.mark.django_db
DEEP = "[" * 1000 + "]" * 1000


def test_depth_ignores_brackets_inside_strings():
    assert json_depth('{"a": "[[[[{{{{", "b": [1, {"c": []}]}') == 4
    assert json_depth('"\\"[[["') == 0


@pytest.mark.parametrize("body", [DEEP, '{"files": ' + DEEP + "}", "{" * 2000])
def test_a_deeply_nested_submission_is_a_400(make_user, client_for, body):
    response = client_for(make_user()).post(
        "/api/v1/submissions", data=body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    assert "nested deeper" in response.json()["detail"]


def test_a_deeply_nested_rejection_is_a_400(make_user, client_for):
    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    waiting = awaiting_review(make_user("arthur"))
    response = client_for(reviewer).post(
        f"/api/v1/reviews/{waiting.pk}/reject",
        data='{"reason": ' + DEEP + "}",
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "nested deeper" in response.json()["detail"]


def test_front_matter_with_thousands_of_brackets_is_a_400(make_user, client_for):
    skill = "---\nname: x\ndescription: " + "[" * 5000 + "\n---\n"
    response = client_for(make_user()).post(
        "/api/v1/submissions",
        data={"files": {"SKILL.md": skill}},
        format="json",
    )
    assert response.status_code == 400
    assert "nested deeper" in response.json()["errors"]["files"][0]


@pytest.mark.parametrize(
    "files",
    [
        {"SKILL.md": skill_md(description="x" * 100_000)},
        {"SKILL.md": skill_md(), "a" * 10_000: "x"},
        {"SKILL.md": skill_md(name="\u202e\u0000")},
        {"SKILL.md": "\ud800"},
        {"SKILL.md": skill_md(), "\u0000": "x"},
        {"SKILL.md": skill_md(description="\U0001f600" * 500)},
    ],
)
def test_hostile_strings_are_never_a_5xx(make_user, client_for, files):
    response = client_for(make_user()).post(
        "/api/v1/submissions",
        data=json.dumps({"files": files}),
        content_type="application/json",
    )
    assert response.status_code < 500, response.content[:300]


HOSTILE_VALUES = ["../../etc/passwd", "x" * 5000, "\u202e\u200b\ufeff", "%00", "😀" * 100, "-1"]
HOSTILE_BODIES = [
    DEEP,
    '{"reason": "' + "x" * 100_000 + '"}',
    '{"assignee": "\\ud800", "reason": ["a", {"b": null}]}',
    '{"files": {"SKILL.md": 1}, "repo_url": [], "ref": {}}',
    "[]",
    "null",
]


def fill_path(template: str, value: str) -> str:
    """``template`` with every ``{parameter}`` replaced by ``value``, taken literally."""
    return re.sub(r"\{[^}]+\}", lambda _: value, template)


def test_every_operation_of_the_schema_survives_hostile_input(client, make_user):
    """Every endpoint the OpenAPI schema lists, with hostile path values, query strings and
    bodies, as a superuser (who passes every permission check): never a 5xx."""
    client.force_login(make_user("root", staff=True, is_superuser=True))
    schema = client.get("/api/schema/", {"format": "json"}).json()
    calls = 0
    for template, operations in schema["paths"].items():
        for method in operations:
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            for value in HOSTILE_VALUES:
                encoded = quote(value, safe="")
                path = fill_path(template, encoded)
                for body in HOSTILE_BODIES if method != "get" else [None]:
                    response = getattr(client, method)(
                        f"{path}?limit={value}&offset={value}&state={value}",
                        data=body,
                        content_type="application/json",
                    )
                    calls += 1
                    assert response.status_code < 500, (method, path, body and body[:60])
    assert calls > 100
