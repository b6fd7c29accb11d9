"""What a newcomer meets first: a landing page, an API root, and errors that say what to do —
always in the shape ``{"detail", "code", "errors"}``, never Django's HTML or a model's name."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from pipeline.states import State
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

SKILL = "---\nname: hello\ndescription: Says hello.\n---\nSay hello."


def assert_error_shape(body: dict, code: str) -> None:
    assert set(body) == {"detail", "code", "errors"}, body
    assert body["code"] == code, body
    assert body["detail"], body


def test_the_landing_page_says_what_runs_and_links_everything(settings):
    settings.SKILLGATE_FLOWER_URL = "http://flower.example:5555/"
    page = Client().get("/")
    assert page.status_code == 200
    html = page.content.decode()
    for link in ("/api/docs/", "/api/v1/", "/api/v1/skills", "/admin/", "/metrics", "/readyz"):
        assert f'href="{link}"' in html, link
    assert 'href="http://flower.example:5555/"' in html
    assert "database" in html and "broker" in html


def test_the_api_root_lists_the_endpoints():
    body = Client().get("/api/v1/").json()
    urls = [endpoint["url"] for endpoint in body["endpoints"]]
    assert "http://testserver/api/v1/submissions" in urls
    assert "http://testserver/api/v1/skills" in urls
    assert body["documentation"].endswith("/api/docs/")
    assert body["schema"].endswith("/api/schema/")


@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api/v2/submissions", "/api/"])
def test_an_unknown_api_path_answers_json_in_the_error_shape(path):
    response = Client().get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert_error_shape(response.json(), "not_found")
    assert "/api/v1/" in response.json()["detail"]


def test_a_missing_submission_is_not_found_without_naming_a_model(make_user, client_for):
    response = client_for(make_user()).get(f"/api/v1/submissions/{uuid.uuid4()}")
    assert response.status_code == 404
    assert_error_shape(response.json(), "not_found")
    assert response.json()["detail"] == "submission not found"


def test_someone_elses_submission_is_not_found_either(make_user, client_for):
    theirs = submission_in(State.RECEIVED, make_user("bob"))
    response = client_for(make_user()).get(f"/api/v1/submissions/{theirs.pk}")
    assert response.json()["detail"] == "submission not found"


def test_a_missing_skill_is_not_found_in_words():
    response = Client().get("/api/v1/skills/nobody/nothing")
    assert response.status_code == 404
    assert response.json()["detail"] == "skill not found"


def test_a_forbidden_review_action_has_the_error_shape(make_user, client_for):
    submission = submission_in(State.NEEDS_REVIEW, make_user("bob"))
    response = client_for(make_user("reviewer-to-be", staff=True)).post(
        f"/api/v1/reviews/{submission.pk}/reject", {"reason": "no"}, format="json"
    )
    assert response.status_code == 403
    assert_error_shape(response.json(), "permission_denied")


def test_validation_errors_name_the_field(make_user, client_for):
    response = client_for(make_user()).post(
        "/api/v1/submissions", {"files": {"SKILL.md": SKILL}, "colour": "red"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid")
    assert "colour" in body["errors"]


def test_a_form_encoded_body_is_told_to_send_json(make_user):
    token = Token.objects.create(user=make_user())
    response = Client().post(
        "/api/v1/submissions",
        data=f'{{"files": {{"SKILL.md": "{SKILL}"}}}}',
        content_type="application/x-www-form-urlencoded",
        HTTP_AUTHORIZATION=f"Token {token.key}",
    )
    assert response.status_code == 415
    assert_error_shape(response.json(), "unsupported_media_type")
    assert "send JSON with Content-Type: application/json" in response.json()["detail"]


def test_a_body_that_is_not_json_is_told_so(make_user):
    token = Token.objects.create(user=make_user())
    response = Client().post(
        "/api/v1/submissions",
        data="{not json",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token.key}",
    )
    assert response.status_code == 400
    assert_error_shape(response.json(), "parse_error")


@pytest.mark.parametrize("keyword", ["Token", "Bearer", "bearer"])
def test_the_token_works_with_either_keyword(make_user, keyword):
    token = Token.objects.create(user=make_user())
    response = Client().get("/api/v1/submissions", HTTP_AUTHORIZATION=f"{keyword} {token.key}")
    assert response.status_code == 200


def test_without_a_token_the_answer_says_how_to_send_it():
    response = Client().get("/api/v1/submissions")
    assert response.status_code == 401
    assert_error_shape(response.json(), "not_authenticated")
    assert "Authorization: Token" in response.json()["detail"]


def test_the_events_endpoint_is_documented_as_the_complete_list_it_returns(make_user, client_for):
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/submissions/{id}/events"]["get"]
    assert [p["name"] for p in operation.get("parameters", [])] == ["id"]
    response_schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert response_schema["type"] == "array"
    author = make_user()
    submission = submission_in(State.TIER1_SCANNING, author)
    body = client_for(author).get(f"/api/v1/submissions/{submission.pk}/events?limit=1").json()
    assert isinstance(body, list) and len(body) == submission.events.count()
