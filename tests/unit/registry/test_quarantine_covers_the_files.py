"""Issue 21 item 2: a quarantine is a decision about files. It covers every version with the same
bundle, in any skill, now and when the files are submitted again later; a resubmission of an
older version's files is that version, not a new one; the advisory never recommends a version
whose files are quarantined."""

from __future__ import annotations

import pytest
from django.test import Client

from pipeline.services.publishing import publish as publish_submission
from pipeline.services.publishing import read_for_publication
from pipeline.states import State
from pipeline.transitions import Actor as PipelineActor
from registry import lifecycle, selectors
from registry.lifecycle import Actor
from registry.models import SkillVersion
from tests.support.skills import benign_files
from tests.support.versions import make_security
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def publish(user, **skill) -> SkillVersion:
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files(**skill))
    return publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, PipelineActor.system(), "publish-complete"
    )


def archive_status(version: SkillVersion) -> int:
    skill = version.skill
    url = f"/api/v1/skills/{skill.owner}/{skill.name}/versions/{version.version}/archive"
    return Client().get(url).status_code


def test_the_files_of_an_older_version_submitted_again_are_that_version(make_user):
    user = make_user()
    first = publish(user, body="A")
    publish(user, body="B")
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files(body="A"))
    again = publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, PipelineActor.system(), "publish-complete"
    )
    assert again == first
    assert list(first.skill.versions.values_list("version", flat=True).order_by("id")) == [
        "1.0.0",
        "1.0.1",
    ]
    submission.refresh_from_db()
    assert f"its files are identical to {first}" in submission.outcome_message


def test_quarantining_a_version_quarantines_its_twin_and_the_advice_skips_it(make_user):
    """A (1.0.0, yanked), B (1.0.1), A again (1.0.2, a new version since the yank stands)."""
    user, security = make_user(), make_security(make_user("sven", staff=True))
    original = publish(user, body="A")
    lifecycle.yank(original.pk, Actor.account(user))
    safe = publish(user, body="B")
    twin = publish(user, body="A")
    assert (twin.version, twin.status) == ("1.0.2", "published")

    event = lifecycle.quarantine(original.pk, Actor.account(security), "steals tokens")

    twin.refresh_from_db()
    assert twin.status == "quarantined"
    assert f"identical to {original}, which was quarantined: steals tokens" in twin.status_reason
    assert archive_status(twin) == 410
    assert selectors.latest(twin.skill) == safe
    advice = selectors.advice(selectors.advisories().get(pk=event.pk))
    assert advice.replacement == safe
    assert "@1.0.1 instead" in advice.text and "1.0.2" not in advice.text
    listed = Client().get(f"/api/v1/skills/{user.username}/note-taker").json()
    assert [v["version"] for v in listed["versions"]] == ["1.0.1"]


def test_a_quarantine_covers_the_same_files_in_another_skill(make_user):
    security = make_security(make_user("sven", staff=True))
    mallory_copy = publish(make_user("mallory"), body="bad")
    trudy_copy = publish(make_user("trudy"), body="bad")
    assert mallory_copy.bundle_id == trudy_copy.bundle_id

    lifecycle.quarantine(mallory_copy.pk, Actor.account(security), "steals tokens")

    trudy_copy.refresh_from_db()
    assert trudy_copy.status == "quarantined"
    assert archive_status(trudy_copy) == 410
    advisories = Client().get("/api/v1/advisories").json()["results"]
    assert {(a["owner"], a["version"]) for a in advisories} == {
        ("mallory", "1.0.0"),
        ("trudy", "1.0.0"),
    }


def test_restoring_the_files_restores_every_version_of_them(make_user):
    security = make_security(make_user("sven", staff=True))
    first = publish(make_user("mallory"), body="fine after all")
    second = publish(make_user("trudy"), body="fine after all")
    assert second.submitter is not None
    lifecycle.yank(second.pk, Actor.account(second.submitter))
    lifecycle.quarantine(first.pk, Actor.account(security), "suspected")

    lifecycle.restore(first.pk, Actor.account(security), "reviewed: a false alarm")

    second.refresh_from_db()
    assert second.status == "yanked"  # back where its owner had put it


def test_a_first_publication_read_before_a_quarantine_is_quarantined_when_stored(make_user):
    """The race the database closes: a new skill's first publication decides, from reads taken
    before a quarantine of the same files committed, that it needs no lock; the insert then
    meets the quarantine and the publication takes the locking path instead."""
    security = make_security(make_user("sven", staff=True))
    bad = publish(make_user("mallory"), body="bad")
    submission = submission_in(
        State.AUTO_APPROVED, make_user("trudy"), files=benign_files(body="bad")
    )
    stale = read_for_publication(submission)
    assert stale.first_version_id is not None  # no quarantine yet: the fast path was chosen

    lifecycle.quarantine(bad.pk, Actor.account(security), "steals tokens")
    copy = publish_submission(
        submission,
        SkillVersion.Channel.AUTOMATIC,
        PipelineActor.system(),
        "publish-complete",
        reads=stale,
    )

    assert copy.status == "quarantined"
    assert f"identical to {bad}, which is quarantined" in copy.status_reason
