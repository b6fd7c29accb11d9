"""Versions: 1.0.0 first, then the declared semver if greater, else the next patch."""

from __future__ import annotations

import pytest

from pipeline.services.publishing import publish as publish_submission
from pipeline.states import State
from pipeline.transitions import Actor
from registry.models import SkillVersion
from registry.versions import next_version
from tests.support.skills import benign_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("latest", "declared", "expected"),
    [
        (None, None, "1.0.0"),
        (None, "3.0.0", "1.0.0"),
        ("1.0.0", None, "1.0.1"),
        ("1.0.0", "2.1.0", "2.1.0"),
        ("1.4.0", "1.2.0", "1.4.1"),
        ("1.4.0", "1.4.0", "1.4.1"),
        ("1.4.0", "not-semver", "1.4.1"),
        ("1.4.0", "v1.5.0", "1.5.0"),
        ("1.4.0", "2.0.0-rc.1", "2.0.0-rc.1"),
    ],
)
def test_next_version(latest, declared, expected):
    assert next_version(latest, declared) == expected


def publish(user, **skill):
    submission = submission_in(State.AUTO_APPROVED, user, files=benign_files(**skill))
    return publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish-complete"
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
