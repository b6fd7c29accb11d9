"""Publishing records the trigger its caller names: who acts does not say why."""

from __future__ import annotations

import pytest

from pipeline.services.publishing import publish
from pipeline.states import State
from pipeline.transitions import Actor
from registry.models import SkillVersion
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
