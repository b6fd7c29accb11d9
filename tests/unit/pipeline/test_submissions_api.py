"""POST/GET /api/v1/submissions: what authors get back, and every way to get it wrong."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from pipeline.models import Submission, SubmissionStateEvent
from pipeline.roles import OPERATORS_GROUP
from pipeline.states import State
from registry.models import BundleSnapshot
from tests.support.skills import benign_files, skill_md
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db
URL = "/api/v1/submissions"


@pytest.fixture
def author(make_user):
    return make_user("alice")


@pytest.fixture
def api(author, client_for):
    return client_for(author)


def post(api: APIClient, body: object):
    return api.post(URL, data=json.dumps(body), content_type="application/json")


def assert_nothing_stored():
    assert Submission.objects.count() == 0
    assert SubmissionStateEvent.objects.count() == 0
    assert BundleSnapshot.objects.count() == 0


def test_an_inline_submission_is_created_received_with_its_location(api):
    response = post(api, {"files": benign_files("note-taker")})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert response["Location"].endswith(f"/api/v1/submissions/{body['id']}")
    assert body["state"] == "RECEIVED"
    assert body["skill"] == {"owner": "alice", "name": "note-taker"}
    assert body["source"] == {"kind": "inline"}
    assert len(body["bundle_sha256"]) == 64
    assert body["outcome"] is None and body["version"] is None and body["staleness"] is None
    assert body["scans"] == {"tier1": None, "tier2": None, "late": []}
    events = Submission.objects.get(pk=body["id"]).events.all()
    assert [(e.from_state, e.to_state, e.trigger) for e in events] == [
        (None, "RECEIVED", "api-submission")
    ]


def test_writes_need_a_token():
    response = post(APIClient(), {"files": benign_files()})
    assert response.status_code == 401
    assert "credentials" in response.json()["detail"].lower()


def test_a_submission_is_visible_to_its_submitter_and_operators_only(api, make_user, client_for):
    submission_id = post(api, {"files": benign_files()}).json()["id"]
    stranger = client_for(make_user("mallory", staff=True))
    operator = make_user("sam", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    staff = client_for(operator)
    assert api.get(f"{URL}/{submission_id}").status_code == 200
    assert stranger.get(f"{URL}/{submission_id}").status_code == 404
    assert stranger.get(f"{URL}/{submission_id}/events").status_code == 404
    assert staff.get(f"{URL}/{submission_id}").status_code == 200
    assert [s["id"] for s in api.get(URL).json()["results"]] == [submission_id]
    assert stranger.get(URL).json()["results"] == []


def test_events_are_the_audit_trail_in_snake_case(api):
    submission_id = post(api, {"files": benign_files()}).json()["id"]
    events = api.get(f"{URL}/{submission_id}/events").json()
    assert list(events[0]) == [
        "from_state",
        "to_state",
        "trigger",
        "actor",
        "actor_type",
        "metadata",
        "created_at",
    ]
    assert events[0]["to_state"] == "RECEIVED" and events[0]["from_state"] is None


def test_transitions_lists_the_reachable_states(api):
    submission_id = post(api, {"files": benign_files()}).json()["id"]
    body = api.get(f"{URL}/{submission_id}/transitions").json()
    assert body == {
        "state": "RECEIVED",
        "transitions": ["TIER1_SCANNING", "REJECTED", "VENDOR_APPROVED"],
    } or body["transitions"] == ["TIER1_SCANNING", "REJECTED", "VENDOR_APPROVED"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"files": benign_files(), "colour": "red"}, "colour", "unknown field"),
        ({}, "non_field_errors", "exactly one source"),
        (
            {"files": benign_files(), "repo_url": "https://github.com/a/b"},
            "non_field_errors",
            "exactly one source",
        ),
        ({"files": {"README.md": "hi"}}, "files", "SKILL.md is missing"),
        ({"files": {"SKILL.md": "no front matter"}}, "files", "front matter"),
        ({"files": {"SKILL.md": "---\nname: [unclosed\n---\n"}}, "files", "not valid YAML"),
        ({"files": {"SKILL.md": "---\nname: x\n---\nbody"}}, "files", "lacks a 'description'"),
        ({"files": {"SKILL.md": "---\ndescription: d\n---\n"}}, "files", "lacks a 'name'"),
        ({"files": {"SKILL.md": skill_md("Bad_Name")}}, "files", "name 'Bad_Name' is invalid"),
        ({"files": {"SKILL.md": skill_md("a" * 65)}}, "files", "is invalid"),
        ({"files": {"SKILL.md": skill_md(), "../escape.py": "x"}}, "files", "'..'"),
        ({"files": {"SKILL.md": skill_md(), "/etc/passwd": "x"}}, "files", "absolute"),
        ({"files": {"SKILL.md": skill_md(), "scripts\\run.py": "x"}}, "files", "backslash"),
        ({"files": {"SKILL.md": skill_md(), "a/./b.py": "x"}}, "files", "'.'"),
        ({"files": {"SKILL.md": skill_md(), "run.py": 42}}, "files", "string"),
        ({"files": {"SKILL.md": skill_md(), "bad.txt": "\ud800"}}, "files", "urrogate"),
        ({"files": "SKILL.md"}, "files", "dictionary"),
        ({"files": {"SKILL.md": "---\n- a list\n---\n"}}, "files", "mapping"),
        ({"files": {"SKILL.md": "---\na: &x [1]\nb: *x\nname: n\n---\n"}}, "files", "aliases"),
        ({"repo_url": "http://127.0.0.1/org/repo"}, "repo_url", "https"),
        ({"repo_url": "ssh://git@github.com/org/repo"}, "repo_url", "scheme 'ssh'"),
        ({"repo_url": "file:///tmp/org/repo"}, "repo_url", "file:// repositories"),
        ({"repo_url": "https://evil.example.com/org/repo"}, "repo_url", "not allowed"),
        ({"repo_url": "https://user:pw@github.com/org/repo"}, "repo_url", "credentials"),
        ({"repo_url": "https://github.com/org"}, "repo_url", "OWNER/REPO"),
        ({"repo_url": "https://github.com/org/repo", "ref": "--upload-pack=x"}, "ref", "valid"),
        ({"repo_url": "https://github.com/org/repo", "skill_path": "../x"}, "skill_path", "'..'"),
        ({"files": benign_files(), "ref": "main"}, "non_field_errors", "only apply"),
    ],
)
def test_bad_input_is_a_400_that_says_what_to_fix_and_stores_nothing(api, body, field, message):
    response = post(api, body)
    assert response.status_code == 400, response.json()
    payload = response.json()
    assert payload["code"] == "invalid"
    assert field in payload["errors"], payload
    assert message in json.dumps(payload["errors"][field], ensure_ascii=False), payload
    assert_nothing_stored()


def test_too_many_files_is_a_400(api, settings):
    settings.SKILLGATE_MAX_FILES = 3
    files = {"SKILL.md": skill_md(), **{f"f{i}.md": "x" for i in range(3)}}
    response = post(api, {"files": files})
    assert response.status_code == 400
    assert "limit of 3" in response.json()["detail"]
    assert_nothing_stored()


def test_content_over_the_limit_is_a_413(api, settings):
    settings.SKILLGATE_MAX_CONTENT_BYTES = 1000
    response = post(api, {"files": {"SKILL.md": skill_md(body="x" * 2000)}})
    assert response.status_code == 413
    assert "over the 1000-byte limit" in response.json()["detail"]
    assert_nothing_stored()


def test_a_body_far_over_the_limit_is_refused_unread_with_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = post(api, {"files": {"SKILL.md": skill_md(body="x" * 20_000)}})
    assert response.status_code == 413
    assert_nothing_stored()


def test_malformed_json_is_a_400(api):
    response = api.post(URL, data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in response.json()["detail"]


def test_an_unknown_submission_is_404(api):
    assert api.get(f"{URL}/00000000-0000-0000-0000-000000000000").status_code == 404


# --- the list is a history, read a page at a time ---------------------------------------------


def queries_for(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_list_pages_newest_first_by_cursor_and_counts_nothing(api, author):
    ids = [str(submission_in(State.RECEIVED, author, name=f"skill-{i}").pk) for i in range(5)]
    newest_first = ids[::-1]

    first = api.get(URL, {"limit": 2}).json()
    second = api.get(first["next"]).json()
    third = api.get(second["next"]).json()

    assert set(first) == {"next", "previous", "results"}
    assert [s["id"] for s in first["results"]] == newest_first[:2]
    assert [s["id"] for s in second["results"]] == newest_first[2:4]
    assert [s["id"] for s in third["results"]] == newest_first[4:]
    assert third["next"] is None
    assert [s["id"] for s in api.get(third["previous"]).json()["results"]] == newest_first[2:4]


def test_a_page_is_never_larger_than_the_ceiling(api, author, settings):
    settings.SKILLGATE_MAX_PAGE_SIZE = 2
    for index in range(3):
        submission_in(State.RECEIVED, author, name=f"skill-{index}")

    assert len(api.get(URL, {"limit": 100}).json()["results"]) == 2


def test_the_list_and_a_submission_read_as_many_queries_for_twelve_rows_as_for_three(
    make_user, client_for
):
    operator = make_user("sam", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    api = client_for(operator)

    def add(count: int, start: int) -> None:
        for index in range(start, start + count):
            submission_in(State.RECEIVED, make_user(f"author{index}"), name=f"skill-{index}")

    add(3, 0)
    example = Submission.objects.earliest("created_at").pk
    pages = [URL, f"{URL}/{example}", f"{URL}/{example}/events"]
    with_three = [queries_for(api, page) for page in pages]
    add(9, 3)
    assert [queries_for(api, page) for page in pages] == with_three


def test_the_limits_are_published_for_clients_to_check_before_uploading(settings):
    settings.SKILLGATE_MAX_FILES = 7
    body = APIClient().get("/api/v1/limits").json()
    assert body["max_files"] == 7
    assert body["max_content_bytes"] == settings.SKILLGATE_MAX_CONTENT_BYTES
    assert body["max_path_length"] == settings.SKILLGATE_MAX_PATH_LENGTH
    assert body["git_allowed_hosts"] == list(settings.SKILLGATE_GIT_ALLOWED_HOSTS)
