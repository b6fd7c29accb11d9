"""Publishing records the trigger its caller names: who acts does not say why. A new version is
stored with the transition that publishes it, or not at all; a skill's first publication is one
statement."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from grading import tier1
from pipeline.models import ScanResult, Submission
from pipeline.services.publishing import publish, read_for_publication
from pipeline.states import State
from pipeline.transitions import Actor, TransitionConflict
from registry import results
from registry.models import Skill, SkillVersion, VersionEvent
from tests.support.skills import benign_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("actor", "trigger"),
    [
        (Actor.system(), "publish-complete"),
        (Actor.admin("operator"), "publish-complete"),
        (Actor.admin("rita"), "reviewer-approved"),
    ],
)
def test_the_audit_event_carries_the_callers_trigger_whoever_the_actor(make_user, actor, trigger):
    submission = submission_in(State.AUTO_APPROVED, make_user())

    publish(submission, SkillVersion.Channel.AUTOMATIC, actor, trigger)

    event = submission.events.get(to_state=State.PUBLISHED)
    assert (event.trigger, event.actor, event.actor_type) == (trigger, actor.name, actor.type)


def test_a_reviewers_approval_publishes_with_the_results_the_submission_received(make_user):
    submission = submission_in(State.TIER3_REVIEW, make_user())
    assert submission.bundle_id is not None
    graded = results.record_tier1(submission.bundle_id, tier1.scan(benign_files()))
    ScanResult.objects.create(submission=submission, tier=ScanResult.Tier.TIER1, result=graded)

    version = publish(
        submission, SkillVersion.Channel.REVIEW, Actor.admin("rita"), "reviewer-approved"
    )

    assert (version.tier1_result_id, version.tier2_result_id) == (graded.pk, None)


def statements_of(publishing) -> list[str]:
    """The statements ``publishing()`` runs (the test's own savepoints left out)."""
    assert connection.vendor == "postgresql", "the statements counted are PostgreSQL's"
    with CaptureQueriesContext(connection) as captured:
        publishing()
    return [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]


def publish_reading_with_the_submission(submission: Submission) -> SkillVersion:
    """Publish as the publish step does: what publishing reads comes with the submission."""
    reads = read_for_publication(submission)
    return publish(
        submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish-complete", reads=reads
    )


def statements_publishing(submission: Submission) -> list[str]:
    """The statements publishing runs, what it reads having come with the submission."""
    reads = read_for_publication(submission)
    return statements_of(
        lambda: publish(
            submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish", reads=reads
        )
    )


def test_a_skills_first_publication_is_one_statement(make_user):
    submission = submission_in(State.AUTO_APPROVED, make_user())

    statements = statements_publishing(submission)

    assert len(statements) == 1, statements
    submission.refresh_from_db()
    version = submission.published_version
    assert version is not None and version.version == "1.0.0"
    assert [event.action for event in version.events.all()] == ["publish"]


def test_a_new_version_of_a_skill_is_stored_with_the_transition_once_the_skill_is_locked(
    make_user,
):
    user = make_user()
    publish_reading_with_the_submission(submission_in(State.AUTO_APPROVED, user))
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files(body="Now with tags."))

    statements = statements_publishing(submission)

    # The lock (with the versions' numbers read) and the version stored with the transition.
    assert len(statements) == 3, statements
    submission.refresh_from_db()
    assert submission.published_version is not None
    assert submission.published_version.version == "1.0.1"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
@pytest.mark.parametrize("in_a_transaction", [False, True])
def test_a_name_taken_after_it_was_read_as_free_publishes_a_new_version_of_that_skill(
    make_user, in_a_transaction
):
    user = make_user()
    first, second = (
        submission_in(State.AUTO_APPROVED, user, files=benign_files(body=f"body {n}"))
        for n in range(2)
    )
    reads = read_for_publication(second)
    publish_reading_with_the_submission(first)
    assert reads.first_skill_id is not None, "the name was free when read"

    with transaction.atomic() if in_a_transaction else nullcontext():
        version = publish(
            second, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish", reads=reads
        )
        assert Submission.objects.filter(pk=second.pk, state=State.PUBLISHED).exists()

    assert version.version == "1.0.1"
    assert Skill.objects.count() == 1


def test_a_lost_transition_leaves_no_skill_and_no_version(make_user):
    submission = submission_in(State.AUTO_APPROVED, make_user())
    reads = read_for_publication(submission)
    Submission.objects.filter(pk=submission.pk).update(state=State.REJECTED)

    with pytest.raises(TransitionConflict):
        publish(
            submission,
            SkillVersion.Channel.AUTOMATIC,
            Actor.system(),
            "publish-complete",
            reads=reads,
        )

    assert not Skill.objects.exists()
    assert not SkillVersion.objects.exists()
    assert not VersionEvent.objects.exists()
