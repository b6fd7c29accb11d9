"""The API documentation reads like one: every operation in one of the groups its users look
for (submissions, skills, reviews, operators, accounts), each with its own summary and
description, the shapes of a submission's outcome, scans and review spelled out, and every
request example accepted exactly as written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from rest_framework.test import APIClient

from config.roles import REVIEWERS_GROUP, SECURITY_GROUP
from registry import lifecycle
from registry.lifecycle import Actor
from reviews import services as reviews
from tests.support.versions import publish_skill
from tests.unit.reviews.factories import awaiting_review

pytestmark = pytest.mark.django_db

TAGS = {"submissions", "skills", "reviews", "operators", "accounts"}


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response.json()


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_operation_is_in_exactly_one_group(schema):
    tags: Counter[str] = Counter()
    for path, method, operation in operations(schema):
        assert len(operation["tags"]) == 1 and operation["tags"][0] in TAGS, (method, path)
        tags[operation["tags"][0]] += 1
    assert set(tags) == TAGS
    assert [tag["name"] for tag in schema["tags"]] == [
        "submissions",
        "skills",
        "reviews",
        "operators",
        "accounts",
    ]


def test_every_operation_has_its_own_summary_and_description(schema):
    descriptions: Counter[str] = Counter()
    for path, method, operation in operations(schema):
        assert operation.get("summary"), (method, path)
        assert operation.get("description"), (method, path)
        descriptions[operation["description"]] += 1
    assert [text for text, count in descriptions.items() if count > 1] == []


def test_outcome_scans_and_review_are_typed(schema):
    components = schema["components"]["schemas"]
    detail = components["SubmissionDetail"]["properties"]

    def resolved(prop: dict) -> dict:
        ref = prop.get("$ref") or next(
            (
                option["$ref"]
                for option in prop.get("oneOf", prop.get("allOf", []))
                if "$ref" in option
            ),
            None,
        )
        assert ref, prop
        return components[ref.rsplit("/", 1)[1]]

    assert set(resolved(detail["outcome"])["properties"]) == {"kind", "code", "message"}
    scans = resolved(detail["scans"])["properties"]
    assert {"tier1", "tier2", "late"} <= set(scans)
    tier1 = resolved(scans["tier1"])["properties"]
    finding = components[tier1["findings"]["items"]["$ref"].rsplit("/", 1)[1]]["properties"]
    assert {"rule_id", "file", "line", "snippet", "remediation"} <= set(finding)
    review = resolved(detail["review"])["properties"]
    assert {"status", "assignee", "due_at", "escalated", "decision"} <= set(review)
    deciding = components[detail["deciding"]["items"]["$ref"].rsplit("/", 1)[1]]["properties"]
    assert {"file", "line", "line_text", "fix"} <= set(deciding)


def request_examples(schema: dict) -> list[tuple[str, str, str, dict]]:
    found = []
    for path, method, operation in operations(schema):
        content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        for name, example in content.get("examples", {}).items():
            found.append((method, path, name, example["value"]))
    return found


Setup = Callable[[], tuple[APIClient, dict[str, str]]]


@pytest.fixture
def situations(make_user) -> dict[tuple[str, str], Setup]:
    """For each operation with a request example: who calls it, on what."""
    author = make_user("arthur")
    rita = make_user("rita", staff=True)
    rita.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    sven = make_user("sven", staff=True)
    sven.groups.add(Group.objects.get(name=SECURITY_GROUP))
    operator = make_user("otto", staff=True, is_superuser=True)

    def as_user(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    made = iter(range(1000))

    def version(status: str = "published") -> dict[str, str]:
        published = publish_skill(author, body=f"example {next(made)}")
        if status == "yanked":
            lifecycle.yank(published.pk, Actor.account(author))
        if status == "quarantined":
            lifecycle.quarantine(published.pk, Actor.account(sven), "example")
        return {"owner": "arthur", "name": "note-taker", "version": published.version}

    def review(assigned: bool) -> dict[str, str]:
        # A skill of its own each: decisions on identical files bind each other.
        waiting = awaiting_review(author, name=f"disk-tidy-{next(made)}")
        if assigned:
            reviews.assign(waiting.submission_id, rita, "rita")
        return {"submission_id": str(waiting.submission_id)}

    versions = "/api/v1/skills/{owner}/{name}/versions/{version}"
    actions = "/api/v1/reviews/{submission_id}"
    return {
        ("post", "/api/v1/submissions"): lambda: (as_user(author), {}),
        ("post", "/api/v1/tokens"): lambda: (as_user(author), {}),
        ("post", f"{versions}/yank"): lambda: (as_user(author), version()),
        ("post", f"{versions}/unyank"): lambda: (as_user(author), version("yanked")),
        ("post", f"{versions}/quarantine"): lambda: (as_user(sven), version()),
        ("post", f"{versions}/restore"): lambda: (as_user(sven), version("quarantined")),
        ("post", f"{actions}/assign"): lambda: (as_user(rita), review(assigned=False)),
        ("post", f"{actions}/unassign"): lambda: (as_user(rita), review(assigned=True)),
        ("post", f"{actions}/approve"): lambda: (as_user(rita), review(assigned=True)),
        ("post", f"{actions}/reject"): lambda: (as_user(rita), review(assigned=False)),
        ("post", f"{actions}/escalate"): lambda: (as_user(rita), review(assigned=True)),
        ("post", "/api/v1/admin/rescans"): lambda: (as_user(operator), {}),
    }


def test_every_request_example_is_accepted_as_written(schema, situations):
    examples = request_examples(schema)
    assert len(examples) >= len(situations)
    for method, path, name, body in examples:
        assert (method, path) in situations, f"no situation for the example of {method} {path}"
        client, parameters = situations[(method, path)]()
        url = path.format(**parameters)
        response = getattr(client, method)(url, body, format="json")
        assert 200 <= response.status_code < 300, (method, path, name, response.json())
