"""Publishing records the trigger its caller names: who acts does not say why."""

from __future__ import annotations

import pytest

from grading import tier1
from pipeline.models import ScanResult
from pipeline.services.publishing import publish
from pipeline.states import State
from pipeline.transitions import Actor
from registry import results
from registry.models import SkillVersion
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
