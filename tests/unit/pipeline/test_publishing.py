"""Publishing records the trigger its caller names: who acts does not say why; a new version is
stored with the transition that publishes it, or not at all."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from grading import tier1
from pipeline.models import ScanResult, Submission
from pipeline.services.publishing import Verdict, publish
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


def test_a_new_version_is_stored_with_the_transition_after_the_skill_is_locked(make_user):
    """On PostgreSQL: one statement locks (or creates) the skill, one stores the version, its
    first event and the transition."""
    assert connection.vendor == "postgresql", "the statements counted are PostgreSQL's"
    submission = submission_in(State.AUTO_APPROVED, make_user())

    with CaptureQueriesContext(connection) as captured:
        version = publish(
            submission,
            SkillVersion.Channel.AUTOMATIC,
            Actor.system(),
            "publish-complete",
            verdict=Verdict(None, None),
        )

    statements = [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 2, statements
    submission.refresh_from_db()
    assert submission.published_version == version
    assert [event.action for event in version.events.all()] == ["publish"]


def test_a_lost_transition_leaves_no_skill_and_no_version(make_user):
    submission = submission_in(State.AUTO_APPROVED, make_user())
    Submission.objects.filter(pk=submission.pk).update(state=State.REJECTED)

    with pytest.raises(TransitionConflict):
        publish(submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish-complete")

    assert not Skill.objects.exists()
    assert not SkillVersion.objects.exists()
    assert not VersionEvent.objects.exists()
