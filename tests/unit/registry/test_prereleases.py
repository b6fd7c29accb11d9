"""Issue 21 item 9: a pre-release is published and installs by its number, but is never
"latest" (as pip and npm treat them), and the outcome says why a version has its number."""

from __future__ import annotations

import pytest
from django.test import Client

from pipeline.services.publishing import publish as publish_submission
from pipeline.states import State
from pipeline.transitions import Actor as PipelineActor
from registry import selectors
from registry.models import SkillVersion
from tests.support.skills import benign_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def publish(user, body: str, version: str | None = None):
    files = benign_files(body=body, version=version) if version else benign_files(body=body)
    submission = submission_in(State.AUTO_APPROVED, user, files=files)
    published = publish_submission(
        submission, SkillVersion.Channel.AUTOMATIC, PipelineActor.system(), "publish-complete"
    )
    submission.refresh_from_db()
    return published, submission.outcome_message


def test_a_release_candidate_is_never_latest_and_the_next_release_is_numbered_after_2_0_0(
    make_user,
):
    user = make_user()
    publish(user, "one")
    stable, _ = publish(user, "two", "2.0.0")
    candidate, message = publish(user, "three", "3.0.0-rc.1")
    assert candidate.version == "3.0.0-rc.1"
    assert "declared pre-release version 3.0.0-rc.1" in message

    assert selectors.latest(stable.skill) == stable
    detail = Client().get(f"/api/v1/skills/{user.username}/note-taker").json()
    assert detail["latest_version"] == "2.0.0"
    assert "3.0.0-rc.1" in [v["version"] for v in detail["versions"]]
    by_number = Client().get(
        f"/api/v1/skills/{user.username}/note-taker/versions/3.0.0-rc.1/archive"
    )
    assert by_number.status_code == 200

    following, message = publish(user, "four", "2.5.0")
    assert following.version == "2.5.0"
    assert selectors.latest(stable.skill) == following
    assert "the declared version 2.5.0, above the newest release 2.0.0" in message


def test_the_outcome_explains_a_number_the_author_did_not_ask_for(make_user):
    user = make_user()
    publish(user, "one")
    publish(user, "two", "2.0.0")
    lower, message = publish(user, "three", "1.5.0")
    assert lower.version == "2.0.1"
    assert message == (
        f"Published as {lower} (the declared version 1.5.0 is not above the newest release "
        "2.0.0: the next patch after the newest release 2.0.0)"
    )
    _, message = publish(user, "four")
    assert "no version was declared: the next patch after the newest release 2.0.1" in message


def test_a_reviewers_preview_gives_the_number_publishing_gives(make_user):
    """The review page says what approving would publish (``preview_publication``): the same
    rules as publishing — past a pre-release, and reusing an older version's identical files."""
    from registry.services import preview_publication

    user = make_user()
    first, _ = publish(user, "one")
    publish(user, "two", "2.0.0")
    publish(user, "three", "3.0.0-rc.1")
    owner = user.username.lower()
    ahead = preview_publication(owner, "note-taker", "f" * 64, "2.5.0")
    assert (ahead.version, ahead.creates) == ("2.5.0", True)
    assert ahead.latest is not None and ahead.latest.version == "2.0.0"
    again = preview_publication(owner, "note-taker", first.bundle_id, None)
    assert (again.version, again.creates, again.latest) == ("1.0.0", False, first)
