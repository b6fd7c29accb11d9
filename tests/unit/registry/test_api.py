"""The public registry API with version statuses: listings, version detail, the four status
actions and their refusals (401/403/404/409/400), advisories and their Atom feed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from rest_framework.test import APIClient

from registry import archives, lifecycle
from registry.lifecycle import Actor
from tests.support.versions import publish_skill

pytestmark = pytest.mark.django_db

SKILL = "/api/v1/skills/arthur/note-taker"
ATOM = "{http://www.w3.org/2005/Atom}"


def version_url(version: str, action: str = "") -> str:
    return f"{SKILL}/versions/{version}" + (f"/{action}" if action else "")


def post(client: APIClient, url: str, body: object | None = None):
    return client.post(url, data=json.dumps(body or {}), content_type="application/json")


@pytest.fixture
def three(author):
    """1.0.0, 1.0.1 and 1.0.2 of arthur/note-taker, all published."""
    return [publish_skill(author, body=f"v{n}") for n in range(3)]


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) >= {"detail", "code", "errors"} and body["code"] == code, body
    return body


# --- Listings and detail ---------------------------------------------------------------------


def test_latest_skips_yanked_and_quarantined_and_listings_hide_quarantined(three, author, security):
    lifecycle.yank(three[2].pk, Actor.account(author), "broken on Windows")
    lifecycle.quarantine(three[1].pk, Actor.account(security), "steals tokens")
    client = APIClient()

    skill = client.get(SKILL).json()
    assert skill["latest_version"] == "1.0.0"
    assert [(v["version"], v["status"], v["status_reason"]) for v in skill["versions"]] == [
        ("1.0.2", "yanked", "broken on Windows"),
        ("1.0.0", "published", ""),
    ]
    listed = client.get("/api/v1/skills").json()["results"]
    assert [(s["name"], s["latest_version"]) for s in listed] == [("note-taker", "1.0.0")]


def test_a_skill_with_only_yanked_versions_is_listed_without_a_latest_version(version, author):
    lifecycle.yank(version.pk, Actor.account(author))
    listed = APIClient().get("/api/v1/skills").json()["results"]
    assert [(s["name"], s["latest_version"], s["updated_at"]) for s in listed] == [
        ("note-taker", None, None)
    ]


def test_a_skill_with_only_quarantined_versions_is_not_listed_and_answers_gone(version, security):
    """Hidden from listings, but its name says why: nothing of it may be installed."""
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    client = APIClient()
    assert client.get("/api/v1/skills").json()["results"] == []
    gone = client.get(SKILL)
    assert gone.status_code == 410
    body = gone.json()
    assert body["code"] == "quarantined" and "every version of" in body["detail"]
    assert [(a["version"], a["reason"]) for a in body["advisories"]] == [("1.0.0", "steals tokens")]
    assert "No other version" in body["advisories"][0]["action_required"]


def test_an_unknown_skill_is_not_found(version):
    assert APIClient().get("/api/v1/skills/arthur/no-such-skill").status_code == 404


def test_a_version_shows_its_status_and_the_archive_it_downloads_as(version):
    body = APIClient().get(version_url("1.0.0")).json()
    assert body["status"] == "published" and body["advisory"] is None
    assert body["archive_url"] == f"http://testserver{version_url('1.0.0', 'archive')}"
    assert body["archive_sha256"] == archives.build(version.bundle.as_bundle()).sha256
    assert body["files"][0]["text"].startswith("---\nname: note-taker")


def test_a_quarantined_version_answers_by_number_with_its_advisory_and_no_contents(three, security):
    lifecycle.quarantine(three[2].pk, Actor.account(security), "steals tokens")
    body = APIClient().get(version_url("1.0.2")).json()
    assert (body["status"], body["status_reason"]) == ("quarantined", "steals tokens")
    assert body["advisory"]["reason"] == "steals tokens"
    assert body["advisory"]["action_required"] == (
        "Remove arthur/note-taker@1.0.2 wherever it is installed; install "
        "arthur/note-taker@1.0.1 instead."
    )
    assert body["files"] == [
        {key: entry[key] for key in ("path", "size", "sha256")} for entry in three[2].bundle.files
    ]


# --- Status actions ---------------------------------------------------------------------------


def test_the_owner_yanks_and_unyanks(version, author, client_for):
    owner = client_for(author)
    response = post(owner, version_url("1.0.0", "yank"), {"reason": "superseded"})
    assert response.status_code == 200, response.json()
    assert (response.json()["status"], response.json()["status_reason"]) == (
        "yanked",
        "superseded",
    )
    response = post(owner, version_url("1.0.0", "unyank"))
    assert response.status_code == 200 and response.json()["status"] == "published"


def test_security_quarantines_and_restores_with_a_reason(version, security, client_for):
    client = client_for(security)
    response = post(client, version_url("1.0.0", "quarantine"), {"reason": "steals tokens"})
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "quarantined"
    assert response.json()["advisory"]["kind"] == "quarantine"
    response = post(client, version_url("1.0.0", "restore"), {"reason": "false positive"})
    assert response.status_code == 200 and response.json()["status"] == "published"


def test_writes_need_a_token(version):
    for action in ("yank", "quarantine"):
        assert_error(post(APIClient(), version_url("1.0.0", action)), 401, "not_authenticated")


@pytest.mark.parametrize(
    ("who", "action", "says"),
    [
        ("stranger", "yank", "only the owner of arthur/note-taker"),
        ("security", "unyank", "only the owner of arthur/note-taker"),
        ("author", "quarantine", "only members of the Security group"),
        ("stranger", "restore", "only members of the Security group"),
    ],
)
def test_who_may_not_act_gets_403(version, request, client_for, who, action, says):
    user = request.getfixturevalue(who)
    body = assert_error(
        post(client_for(user), version_url("1.0.0", action), {"reason": "x"}),
        403,
        "permission_denied",
    )
    assert says in body["detail"]
    version.refresh_from_db()
    assert version.status == "published"


def test_quarantine_without_a_reason_is_400_naming_the_field(version, security, client_for):
    body = assert_error(
        post(client_for(security), version_url("1.0.0", "quarantine")), 400, "invalid"
    )
    assert "a reason is required to quarantine" in body["errors"]["reason"][0]
    version.refresh_from_db()
    assert version.status == "published"


def test_unknown_fields_and_overlong_reasons_are_400(version, author, client_for):
    owner = client_for(author)
    body = assert_error(post(owner, version_url("1.0.0", "yank"), {"why": "x"}), 400, "invalid")
    assert body["errors"] == {"why": ["unknown field; allowed: reason"]}
    body = assert_error(
        post(owner, version_url("1.0.0", "yank"), {"reason": "x" * 2001}), 400, "invalid"
    )
    assert "reason" in body["errors"]


def test_an_action_the_status_does_not_allow_is_409(version, security, author, client_for):
    client = client_for(security)
    post(client, version_url("1.0.0", "quarantine"), {"reason": "steals tokens"})
    body = assert_error(
        post(client, version_url("1.0.0", "quarantine"), {"reason": "again"}), 409, "conflict"
    )
    assert "already quarantined" in body["detail"]
    body = assert_error(post(client_for(author), version_url("1.0.0", "yank")), 409, "conflict")
    assert "only the Security group can restore it" in body["detail"]


def test_an_unknown_version_is_404(version, security, client_for):
    body = assert_error(
        post(client_for(security), version_url("9.9.9", "quarantine"), {"reason": "x"}),
        404,
        "not_found",
    )
    assert body["detail"] == "skill version not found"


# --- Archive ---------------------------------------------------------------------------------


def test_the_archive_is_the_published_sha256(version):
    client = APIClient()
    detail = client.get(version_url("1.0.0")).json()
    response = client.get(version_url("1.0.0", "archive"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert response["Content-Disposition"] == 'attachment; filename="note-taker-1.0.0.tar.gz"'
    assert archives.Archive(response.content).sha256 == detail["archive_sha256"]
    assert response["ETag"] == f'"{detail["archive_sha256"]}"'


def test_a_yanked_version_still_downloads_by_its_number(version, author):
    lifecycle.yank(version.pk, Actor.account(author))
    assert APIClient().get(version_url("1.0.0", "archive")).status_code == 200


def test_a_quarantined_archive_is_410_gone_with_the_advisory(version, security):
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    response = APIClient().get(version_url("1.0.0", "archive"), HTTP_ACCEPT="application/gzip")
    body = assert_error(response, 410, "quarantined")
    assert body["detail"] == (
        "arthur/note-taker@1.0.0 is quarantined and cannot be downloaded: steals tokens"
    )
    assert body["advisory"]["reason"] == "steals tokens"
    assert (
        "No other version of arthur/note-taker is available"
        in (body["advisory"]["action_required"])
    )


def test_the_archive_of_an_unknown_version_is_404():
    assert_error(APIClient().get(version_url("1.0.0", "archive")), 404, "not_found")


# --- Advisories ------------------------------------------------------------------------------


def test_advisories_list_quarantines_and_restorations_newest_first(three, author, security):
    lifecycle.yank(three[0].pk, Actor.account(author), "not an advisory")
    lifecycle.quarantine(three[2].pk, Actor.system("rescan 4"), "now fails Tier 1")
    lifecycle.quarantine(three[1].pk, Actor.account(security), "steals tokens")
    lifecycle.restore(three[1].pk, Actor.account(security), "false positive")

    page = APIClient().get("/api/v1/advisories").json()
    assert page["count"] == 3
    rows = [
        (a["kind"], a["version"], a["status"], a["issued_by"], a["reason"]) for a in page["results"]
    ]
    assert rows == [
        ("restore", "1.0.1", "published", "security", "false positive"),
        ("quarantine", "1.0.1", "published", "security", "steals tokens"),
        ("quarantine", "1.0.2", "quarantined", "system", "now fails Tier 1"),
    ]
    newest, lifted, standing = page["results"]
    assert newest["action_required"] == (
        "arthur/note-taker@1.0.1 was reviewed and restored; no action is needed."
    )
    assert lifted["action_required"].startswith("This quarantine was lifted")
    assert standing["replacement"] == {
        "version": "1.0.1",
        "url": f"http://testserver{version_url('1.0.1')}",
    }
    assert APIClient().get(standing["url"]).json() == standing


def test_advisories_are_paginated(three, security):
    for version in three:
        lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    page = APIClient().get("/api/v1/advisories?limit=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]


def test_the_atom_feed_carries_each_advisory(three, security):
    lifecycle.quarantine(three[2].pk, Actor.account(security), "steals tokens")
    lifecycle.restore(three[2].pk, Actor.account(security), "false positive")

    response = APIClient().get("/api/v1/advisories.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ET.fromstring(response.content)
    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}title") for e in entries] == [
        "Restored: arthur/note-taker@1.0.2",
        "Quarantined: arthur/note-taker@1.0.2",
    ]
    summary = entries[1].findtext(f"{ATOM}summary")
    assert summary is not None
    assert "steals tokens" in summary and "What to do:" in summary
    link = entries[0].find(f"{ATOM}link")
    assert link is not None
    assert link.get("href", "").startswith("http://testserver/api/v1/")


def test_the_feed_never_turns_a_reason_into_markup(version, security):
    lifecycle.quarantine(version.pk, Actor.account(security), "<script>alert(1)</script>")
    feed = ET.fromstring(APIClient().get("/api/v1/advisories.atom").content)
    entry = feed.find(f"{ATOM}entry")
    assert entry is not None
    summary = entry.find(f"{ATOM}summary")
    assert summary is not None and summary.text is not None
    assert summary.get("type") == "html"
    assert "&lt;script&gt;" in summary.text and "<script>" not in summary.text
