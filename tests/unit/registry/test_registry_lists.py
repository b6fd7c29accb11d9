"""The registry's lists cost what they show: the public skills list, the admin's skills and a
skill's page with its versions read as many queries for twelve rows as for three."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from pipeline.services.publishing import publish as publish_submission
from pipeline.states import State
from pipeline.transitions import Actor
from registry import admin as registry_admin
from registry.models import Skill, SkillVersion
from tests.support.skills import benign_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

SKILLS = reverse("admin:registry_skill_changelist")
VERSIONS = reverse("admin:registry_skillversion_changelist")


def publish(user, name: str, body: str) -> SkillVersion:
    submission = submission_in(
        State.AUTO_APPROVED, user, files=benign_files(name, body=body), name=name
    )
    return publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish-complete"
    )


def queries_for(client, url: str) -> int:
    """Queries of a request, after one that filled the process's caches (content types)."""
    client.get(url)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200, url
    return len(captured.captured_queries)


@pytest.fixture
def root(make_user, client):
    client.force_login(make_user("root", staff=True, is_superuser=True))
    return client


def test_skill_lists_read_as_many_queries_for_twelve_skills_as_for_three(root, make_user):
    author = make_user()

    def add(count: int, start: int) -> None:
        for index in range(start, start + count):
            publish(author, f"skill-{index}", "First.")
            publish(author, f"skill-{index}", "Second.")

    pages = [
        (APIClient(), "/api/v1/skills"),
        (root, SKILLS),
        (root, f"{SKILLS}?q=skill"),
        (root, VERSIONS),
        (root, f"{VERSIONS}?status__exact=quarantined"),
        (root, f"{VERSIONS}?channel__exact=automatic"),
        (root, f"{VERSIONS}?q=skill"),
        (root, f"{VERSIONS}?q=skill-1+1.0.1"),
        (root, f"{VERSIONS}?q=1.0.1"),
    ]
    add(3, 0)
    with_three = [queries_for(client, url) for client, url in pages]
    add(9, 3)

    assert [queries_for(client, url) for client, url in pages] == with_three
    assert {
        skill["latest_version"] for skill in APIClient().get("/api/v1/skills").json()["results"]
    } == {"1.0.1"}


def test_a_skills_page_reads_as_many_queries_for_twelve_versions_as_for_three(root, make_user):
    author = make_user()

    def add(count: int, start: int) -> None:
        for index in range(start, start + count):
            publish(author, "note-taker", f"Version {index}.")

    add(3, 0)
    skill = Skill.objects.get(name="note-taker")
    pages = [
        (root, reverse("admin:registry_skill_change", args=[skill.pk])),
        (APIClient(), f"/api/v1/skills/{skill.owner}/{skill.name}"),
    ]
    with_three = [queries_for(client, url) for client, url in pages]
    add(9, 3)

    assert skill.versions.count() == 12
    assert [queries_for(client, url) for client, url in pages] == with_three


def test_versions_are_found_by_any_part_of_the_skill_and_their_exact_number(root, make_user):
    author = make_user()
    for name in ("weather-report", "disk-tidy"):
        publish(author, name, "First.")
        publish(author, name, "Second.")

    def found(term: str) -> set[str]:
        page = root.get(VERSIONS, {"q": term}).text
        return set(re.findall(r"alice/([\w.@-]+)</a>", page))

    assert found("ATHER") == {"weather-report@1.0.0", "weather-report@1.0.1"}
    assert found("tidy 1.0.1") == {"disk-tidy@1.0.1"}
    assert found("1.0.0") == {"weather-report@1.0.0", "disk-tidy@1.0.0"}


def test_a_skills_page_shows_its_newest_versions_and_links_to_them_all(
    root, make_user, monkeypatch
):
    monkeypatch.setattr(registry_admin, "VERSIONS_ON_A_SKILLS_PAGE", 2)
    author = make_user()
    for index in range(3):
        publish(author, "note-taker", f"Version {index}.")
    skill = Skill.objects.get(name="note-taker")

    page = root.get(reverse("admin:registry_skill_change", args=[skill.pk])).text

    assert re.findall(r'<td class="field-version">\s*<p>([\d.]+)</p>', page) == ["1.0.2", "1.0.1"]
    listing = f"{VERSIONS}?skill__id__exact={skill.pk}"
    assert f'<a href="{listing}">all 3 versions</a>' in page
    assert root.get(listing).text.count('class="field-__str__"') == 3
