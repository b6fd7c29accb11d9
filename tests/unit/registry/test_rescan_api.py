"""Operators start and follow re-scan campaigns over the API; nobody else may."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from registry.models import RescanCampaign
from tests.support.versions import publish_skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(make_user, client_for):
    user = make_user("otto", staff=True)
    user.groups.add(Group.objects.get(name="Operators"))
    return client_for(user)


def test_an_operator_starts_a_campaign_and_follows_its_progress(make_user, operator):
    publish_skill(make_user(), "notes")
    created = operator.post("/api/v1/admin/rescans", {"all": True}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert (body["status"], body["total"], body["done"], body["scope"]) == (
        "running", 1, 0, {"all": True},
    )  # fmt: skip
    assert body["catalogue_version"].startswith("tier1-")
    assert body["progress"] == {"share_done": 0.0, "eta_s": None}
    listed = operator.get("/api/v1/admin/rescans").json()["results"]
    assert [c["id"] for c in listed] == [body["id"]]
    assert operator.get(f"/api/v1/admin/rescans/{body['id']}").json()["started_by"] == "otto"


@pytest.mark.parametrize(
    ("payload", "field"),
    [({}, "all"), ({"all": True, "owner": "x"}, "all"), ({"since": "yesterday"}, "since"),
     ({"all": True, "colour": "red"}, "colour")],
)  # fmt: skip
def test_the_scope_must_be_said_clearly(operator, payload, field):
    response = operator.post("/api/v1/admin/rescans", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not RescanCampaign.objects.exists()


def test_authors_and_reviewers_may_not(make_user, client_for):
    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name="Reviewers"))
    for client in (client_for(make_user()), client_for(reviewer)):
        assert client.post("/api/v1/admin/rescans", {"all": True}, format="json").status_code == 403
        assert client.get("/api/v1/admin/rescans").status_code == 403
