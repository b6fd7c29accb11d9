"""Issue 21 item 7: control characters (but newline and tab) are refused in every free-text
field of the API, by one rule (``config.text``) that the serializers and the services share."""

from __future__ import annotations

import pytest

from registry.models import SkillVersion
from tests.support.versions import make_security, publish_skill

pytestmark = pytest.mark.django_db

HOSTILE = [
    "breaks on Windows\u001b[1A\u001b[2Kall good",
    "fine\rover-written",
    "right-to-left \u202e override",
    "nul \x00 byte",
    "c1 \x9b control",
]


@pytest.mark.parametrize("reason", HOSTILE)
def test_a_yank_reason_with_control_characters_is_refused_and_nothing_changes(
    make_user, client_for, reason
):
    author = make_user()
    version = publish_skill(author)
    url = f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0/yank"
    response = client_for(author).post(url, {"reason": reason}, format="json")
    assert response.status_code == 400
    assert "control character U+" in response.json()["errors"]["reason"][0]
    version.refresh_from_db()
    assert version.status == SkillVersion.Status.PUBLISHED


def test_newlines_tabs_and_browser_line_ends_are_kept(make_user, client_for):
    author = make_user()
    publish_skill(author)
    url = f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0/yank"
    response = client_for(author).post(url, {"reason": "one\r\ntwo\tthree"}, format="json")
    assert response.status_code == 200
    assert response.json()["status_reason"] == "one\ntwo\tthree"


def test_quarantine_reasons_and_reviewer_reasons_use_the_same_rule(make_user, client_for):
    author = make_user()
    publish_skill(author)
    security = make_security(make_user("sven", staff=True))
    url = f"/api/v1/skills/{author.username}/note-taker/versions/1.0.0/quarantine"
    response = client_for(security).post(url, {"reason": HOSTILE[0]}, format="json")
    assert response.status_code == 400

    from reviews.api.serializers import NoteSerializer, ReasonSerializer

    for serializer in (ReasonSerializer, NoteSerializer):
        body = serializer(data={"reason": HOSTILE[0]})
        assert not body.is_valid() and "control character" in str(body.errors["reason"][0])


def test_the_services_refuse_them_too_for_the_admin(make_user):
    from django.core.exceptions import ValidationError

    from registry import lifecycle

    author = make_user()
    version = publish_skill(author)
    with pytest.raises(ValidationError):
        lifecycle.yank(version.pk, lifecycle.Actor.account(author), HOSTILE[1])


@pytest.mark.parametrize("name", HOSTILE)
def test_a_token_name_with_control_characters_is_refused_by_the_api_and_the_page(
    make_user, client_for, name
):
    from django.test import Client

    from accounts.models import ApiToken

    author = make_user()
    response = client_for(author).post("/api/v1/tokens", {"name": name}, format="json")
    assert response.status_code == 400
    assert "control character U+" in response.json()["errors"]["name"][0]
    browser = Client()
    browser.force_login(author)
    page = browser.post("/account/tokens/", {"name": name, "scopes": ["read"], "days": 7})
    text = page.content.decode()
    assert page.status_code == 200
    assert "control character U+" in text or "Null characters are not allowed" in text
    assert not ApiToken.objects.filter(user=author).exists()


@pytest.mark.parametrize(
    "path", ["/api/v1/search?q={}", "/api/v1/skills?owner={}", "/api/v1/advisories?name={}"]
)
def test_names_and_words_to_look_up_use_the_same_rule(client, path):
    from urllib.parse import quote

    response = client.get(path.format(quote(HOSTILE[0])))
    assert response.status_code == 400
    assert "control character U+" in str(response.json()["errors"])


def test_a_dead_letter_is_not_dismissed_with_control_characters_in_its_reason(make_user):
    from pipeline.models import DeadLetter
    from pipeline.services import dead_letters

    letter = DeadLetter.objects.create(
        task_name="pipeline.tier1", task_id="t-1", stage="tier1", reason="poison", payload={}
    )
    result = dead_letters.dismiss(letter, "otto", HOSTILE[0])
    assert not result.done and "control character U+" in result.message
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.OPEN
