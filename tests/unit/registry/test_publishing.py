"""Publishing: versions are 1.0.0 first, then the declared semver if greater, else the next
patch; "latest" is the newest available version; an identical bundle reuses it; a quarantine
cannot be bypassed by publishing the same files again. Each rule holds whether the publication's
reads and writes go in a few statements (PostgreSQL) or one by one through the ORM."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from pipeline.services.publishing import publication_request as pipeline_publication_request
from pipeline.services.publishing import publish as publish_submission
from pipeline.services.publishing import read_for_publication
from pipeline.states import State
from pipeline.transitions import Actor as PipelineActor
from registry import lifecycle, publication, selectors
from registry import services as registry_services
from registry.lifecycle import Actor
from registry.models import SkillVersion
from registry.versions import next_version
from tests.support.concurrency import at_once
from tests.support.skills import benign_files
from tests.support.versions import make_security
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True, params=["in few statements", "one by one"])
def publication_path(request, monkeypatch):
    if request.param == "one by one":
        monkeypatch.setattr(publication, "single_statements", lambda: False)
    return request.param


@pytest.mark.parametrize(
    ("existing", "declared", "expected"),
    [
        ((), None, "1.0.0"),
        ((), "3.0.0", "1.0.0"),
        (("1.0.0",), None, "1.0.1"),
        (("1.0.0",), "2.1.0", "2.1.0"),
        (("1.0.0", "1.4.0"), "1.2.0", "1.4.1"),
        (("1.0.0", "1.4.0"), "1.4.0", "1.4.1"),
        (("1.0.0", "1.4.0"), "not-semver", "1.4.1"),
        (("1.0.0", "1.4.0"), "v1.5.0", "1.5.0"),
        (("1.0.0", "1.4.0"), "1.5.0+build.7", "1.5.0"),
        (("1.0.0", "1.4.0"), "2.0.0-rc.1", "2.0.0-rc.1"),
        # A release after a pre-release is numbered after the newest release, not the rc.
        (("1.0.0", "2.0.0", "3.0.0-rc.1"), "2.5.0", "2.5.0"),
        (("1.0.0", "2.0.0", "3.0.0-rc.1"), None, "2.0.1"),
        (("1.0.0", "2.0.0", "3.0.0-rc.1"), "3.0.0", "3.0.0"),
        # A pre-release that cannot have its number keeps its tag: never a release by accident.
        (("1.0.0", "2.0.0", "3.0.0-rc.1"), "3.0.0-rc.1", "2.0.1-rc.1"),
        (("1.0.0", "2.0.0"), "1.5.0-beta", "2.0.1-beta"),
        (("1.0.0", "2.0.0", "2.0.1-beta"), "1.5.0-beta", "2.0.1-beta.0"),
    ],
)
def test_next_version(existing, declared, expected):
    numbering = next_version(existing, declared)
    assert numbering.number == expected
    assert numbering.reason


def publish(user, **skill):
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files(**skill))
    return publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, PipelineActor.system(), "publish-complete"
    )


def test_versions_follow_the_rules_across_publications(make_user):
    user = make_user()
    assert publish(user).version == "1.0.0"
    assert publish(user, body="changed").version == "1.0.1"
    assert publish(user, body="again", version="2.0.0").version == "2.0.0"


def test_an_identical_bundle_creates_no_new_version(make_user):
    user = make_user()
    first = publish(user)
    again = publish(user)
    assert again == first
    assert SkillVersion.objects.count() == 1


# --- "Latest" and de-duplication with version statuses ---------------------------------------


def test_latest_is_never_yanked_nor_quarantined(make_user):
    user, security = make_user(), make_security(make_user("sven", staff=True))
    first = publish(user)
    second = publish(user, body="second")
    third = publish(user, body="third")
    assert selectors.latest(first.skill) == third

    lifecycle.yank(third.pk, Actor.account(user))
    assert selectors.latest(first.skill) == second
    lifecycle.quarantine(second.pk, Actor.account(security), "steals tokens")
    assert selectors.latest(first.skill) == first
    lifecycle.yank(first.pk, Actor.account(user))
    assert selectors.latest(first.skill) is None


def test_numbering_continues_after_the_newest_version_whatever_its_status(make_user):
    user = make_user()
    publish(user)
    yanked = publish(user, body="second")
    lifecycle.yank(yanked.pk, Actor.account(user))
    assert publish(user, body="third").version == "1.0.2"


def test_republishing_a_yanked_bundle_creates_a_new_version_and_the_yank_stands(make_user):
    user = make_user()
    publish(user)
    yanked = publish(user, body="second")
    lifecycle.yank(yanked.pk, Actor.account(user))

    again = publish(user, body="second")
    assert again.pk != yanked.pk and again.version == "1.0.2"
    assert again.bundle_id == yanked.bundle_id and again.status == "published"
    yanked.refresh_from_db()
    assert yanked.status == "yanked"


def test_an_identical_bundle_reuses_the_latest_available_version_not_a_yanked_newer_one(
    make_user,
):
    user = make_user()
    first = publish(user)
    newer = publish(user, body="second")
    lifecycle.yank(newer.pk, Actor.account(user))
    assert publish(user) == first
    assert SkillVersion.objects.count() == 2


def test_a_quarantined_bundle_published_again_is_quarantined_at_once(make_user):
    user, security = make_user(), make_security(make_user("sven", staff=True))
    bad = publish(user, body="bad", description="Does bad things.")
    lifecycle.quarantine(bad.pk, Actor.account(security), "steals tokens")
    submission = submission_in(
        State.AUTO_APPROVED, user, files=benign_files(body="bad", description="Does bad things.")
    )

    again = publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, PipelineActor.system(), "publish-complete"
    )

    assert again.pk != bad.pk and again.status == "quarantined"
    assert f"identical to {bad}, which is quarantined: steals tokens" in again.status_reason
    trail = [(e.action, e.actor_type) for e in again.events.all()]
    assert trail == [("publish", "system"), ("quarantine", "system")]
    submission.refresh_from_db()
    assert submission.state == State.PUBLISHED
    assert "quarantined at once" in submission.outcome_message
    assert selectors.latest(again.skill) is None


def test_a_quarantined_bundle_is_quarantined_at_once_under_a_new_skill_too(make_user):
    """Another account publishing the same files creates a new skill: its first version is
    quarantined at once all the same."""
    security = make_security(make_user("sven", staff=True))
    bad = publish(make_user("mallory"), body="bad")
    lifecycle.quarantine(bad.pk, Actor.account(security), "steals tokens")

    copy = publish(make_user("trudy"), body="bad")

    assert copy.skill_id != bad.skill_id and copy.status == "quarantined"
    assert f"identical to {bad}, which is quarantined" in copy.status_reason


def test_a_version_quarantined_at_once_does_not_give_the_skill_its_description(make_user):
    user, security = make_user(), make_security(make_user("sven", staff=True))
    bad = publish(user, body="bad", description="Totally harmless.")
    lifecycle.quarantine(bad.pk, Actor.account(security), "steals tokens")
    publish(user, body="fixed", description="Takes notes, fixed.")

    twin = publish(user, body="bad", description="Totally harmless.")

    assert twin.status == "quarantined"
    twin.skill.refresh_from_db()
    assert twin.skill.description == "Takes notes, fixed."


def test_each_version_records_its_submitter_and_how_it_was_published(make_user):
    user = make_user()
    version = publish(user)
    assert version.submitter == user
    event = version.events.get()
    assert (event.action, event.to_status, event.actor, event.actor_type) == (
        "publish",
        "published",
        "pipeline",
        "system",
    )


def test_a_reviewer_approval_is_recorded_as_the_reviewers(make_user):
    user = make_user()
    submission = submission_in(State.TIER3_REVIEW, user, files=benign_files())
    version = publish_submission(
        submission, SkillVersion.Channel.REVIEW, PipelineActor.admin("rita"), "reviewer-approved"
    )
    assert (version.events.get().actor, version.events.get().actor_type) == ("rita", "account")


def test_a_submission_published_twice_gets_its_version_back(make_user):
    user = make_user()
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files())
    request = pipeline_publication_request(
        submission,
        SkillVersion.Channel.AUTOMATIC,
        PipelineActor.system(),
        read_for_publication(submission),
    )
    with transaction.atomic():
        first = registry_services.publish_version(request)
    with transaction.atomic():
        again = registry_services.publish_version(request)
    assert (first.created, again.created) == (True, False)
    assert again.version == first.version and SkillVersion.objects.count() == 1
    assert again.version.events.count() == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_concurrent_publications_of_a_new_skill_are_numbered_one_after_the_other(make_user):
    """The skill row is locked (created by the first): the second publication waits, then sees
    the first's version and numbers after it."""
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    user = make_user()
    submissions = [
        submission_in(State.AUTO_APPROVED, user, files=benign_files(body=f"body {n}"))
        for n in range(4)
    ]
    results = at_once(
        len(submissions),
        lambda index: (
            publish_submission(
                submissions[index],
                SkillVersion.Channel.AUTOMATIC,
                PipelineActor.system(),
                "publish-complete",
            ).version
        ),
    )

    numbers = sorted(result for result in results if isinstance(result, str))
    assert numbers == ["1.0.0", "1.0.1", "1.0.2", "1.0.3"], results
    assert SkillVersion.objects.filter(submission__in=submissions).count() == 4
