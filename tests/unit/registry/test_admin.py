"""Version status in the Django admin: Security finds a version, sees Quarantine or Restore
(and nothing it may not do), types a reason and acts; everyone else sees no such button."""

from __future__ import annotations

import pytest
from django.urls import reverse

from registry import lifecycle
from registry.lifecycle import Actor
from tests.support.versions import publish_skill

pytestmark = pytest.mark.django_db

VERSIONS = reverse("admin:registry_skillversion_changelist")


def page(version) -> str:
    return reverse("admin:registry_skillversion_change", args=[version.pk])


def act(version, action: str) -> str:
    return reverse("admin:registry_skillversion_status", args=[version.pk, action])


@pytest.fixture
def signed_in(client):
    def sign_in(user):
        client.force_login(user)
        return client

    return sign_in


def buttons(response) -> list[str]:
    return [
        a
        for a in ("quarantine", "restore", "yank", "unyank")
        if f'id="status-{a}"' in response.text
    ]


def test_security_finds_versions_and_sees_only_quarantine_on_a_published_one(
    signed_in, security, version
):
    client = signed_in(security)
    listing = client.get(VERSIONS, {"q": "note-taker"})
    assert listing.status_code == 200 and "arthur/note-taker@1.0.0" in listing.text
    response = client.get(page(version))
    assert response.status_code == 200
    assert buttons(response) == ["quarantine"]
    assert 'id="version-status">Published<' in response.text


def test_the_quarantine_action_comes_first_beside_the_files_it_withholds(
    signed_in, security, version
):
    html = signed_in(security).get(page(version)).text
    files = html.index('id="version-files"')
    # Above the record and its "Close" link, where it sat before.
    assert files < html.index('id="status-quarantine"') < html.index('class="closelink"')
    assert "a quarantine withholds them and refuses the archive" in html
    assert '<td class="version-file-path">SKILL.md</td>' in html
    assert "style=" not in html.split('id="version-status-actions"', 1)[1].split("</section>")[0]


def test_security_quarantines_with_a_reason_then_restores(signed_in, security, version):
    client = signed_in(security)
    response = client.post(act(version, "quarantine"), {"reason": "steals tokens"}, follow=True)
    assert "Done: arthur/note-taker@1.0.0 is now quarantined." in response.text
    assert buttons(response) == ["restore"]
    assert "steals tokens" in response.text, "the audit trail is on the page"
    version.refresh_from_db()
    assert version.status == "quarantined"
    event = version.events.last()
    assert (event.action, event.actor, event.reason) == ("quarantine", "sven", "steals tokens")

    client.post(act(version, "restore"), {"reason": "false positive"})
    version.refresh_from_db()
    assert version.status == "published"


def test_without_a_reason_nothing_changes_and_the_page_says_why(signed_in, security, version):
    response = signed_in(security).post(act(version, "quarantine"), {"reason": " "}, follow=True)
    assert "Could not quarantine arthur/note-taker@1.0.0: a reason is required" in response.text
    version.refresh_from_db()
    assert version.status == "published"


def test_a_lost_race_is_reported_not_raised(signed_in, security, version):
    lifecycle.quarantine(version.pk, Actor.system(), "now fails Tier 1")
    response = signed_in(security).post(act(version, "quarantine"), {"reason": "x"}, follow=True)
    assert "Could not quarantine arthur/note-taker@1.0.0: " in response.text
    assert "already quarantined" in response.text


def test_staff_outside_security_neither_see_nor_act(signed_in, make_user, version):
    outsider = make_user("olga", staff=True)
    client = signed_in(outsider)
    assert client.get(page(version)).status_code == 403
    assert client.post(act(version, "quarantine"), {"reason": "x"}).status_code == 403
    version.refresh_from_db()
    assert version.status == "published"


def test_an_owner_with_admin_access_also_gets_yank(signed_in, make_user):
    owner = make_user("root", staff=True, is_superuser=True)
    own = publish_skill(owner)
    assert buttons(signed_in(owner).get(page(own))) == ["quarantine", "yank"]


def test_get_is_not_an_action(signed_in, security, version):
    assert signed_in(security).get(act(version, "quarantine")).status_code == 405
    assert signed_in(security).post(act(version, "delete")).status_code == 404
