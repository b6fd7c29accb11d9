"""Appeals: the author of a submission a reviewer rejected appeals once, with a reason; the
appeal waits for Security beside the original review; Security grants it (the skill is
published, through audited transitions: REJECTED → TIER3_REVIEW → PUBLISHED) or denies it, and
the author sees the outcome on their submission."""

from __future__ import annotations

import pytest

from pipeline.models import Submission
from pipeline.states import State
from reviews import appeals, services
from reviews.models import Appeal
from reviews.services import ActionUnavailable, ReviewForbidden
from tests.unit.reviews.factories import awaiting_review, rm_finding, state_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def rejected(author, reviewer):
    review = awaiting_review(author, findings=(rm_finding(),))
    services.reject(review.pk, reviewer, "deletes files outside its folder")
    return review


def appeal_url(review) -> str:
    return f"/api/v1/submissions/{review.pk}/appeal"


def test_the_author_appeals_once_with_a_reason(client_for, author, rejected):
    client = client_for(author)
    missing = client.post(appeal_url(rejected), {}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["errors"]

    filed = client.post(
        appeal_url(rejected), {"reason": "it only deletes its own cache folder"}, format="json"
    )
    assert filed.status_code == 201, filed.json()
    assert filed.json()["status"] == "open" and filed.json()["decision"] is None

    again = client.post(appeal_url(rejected), {"reason": "please"}, format="json")
    assert again.status_code == 409
    assert "an appeal is made once" in again.json()["detail"]
    review = client.get(f"/api/v1/submissions/{rejected.pk}").json()["review"]
    assert review["appeal"]["status"] == "open"
    assert review["appeal"]["reason"] == "it only deletes its own cache folder"


def test_only_the_author_appeals_and_only_a_reviewers_rejection(
    client_for, author, make_user, reviewer
):
    waiting = awaiting_review(author)
    stranger = client_for(make_user("stranger"))
    assert stranger.post(appeal_url(waiting), {"reason": "x"}, format="json").status_code == 404
    not_rejected = client_for(author).post(appeal_url(waiting), {"reason": "x"}, format="json")
    assert not_rejected.status_code == 409
    assert "only a reviewer's rejection can be appealed" in not_rejected.json()["detail"]

    services.request_changes(waiting.pk, reviewer, "say what it deletes")
    changes = client_for(author).post(appeal_url(waiting), {"reason": "x"}, format="json")
    assert changes.status_code == 409
    assert "change the skill and submit it again" in changes.json()["detail"]


def test_security_grants_and_the_skill_is_published_with_every_edge_audited(
    author, security, rejected, client_for
):
    appeals.file_appeal(rejected.pk, author, "it only deletes its own cache folder")
    granted = appeals.grant(rejected.pk, security, "the folder is the skill's own cache")

    assert granted.status == Appeal.Status.GRANTED
    submission = Submission.objects.get(pk=rejected.pk)
    assert submission.state == State.PUBLISHED
    assert submission.published_version is not None
    assert str(submission.published_version) == "arthur/disk-tidy@1.0.0"
    trail = [(e.from_state, e.to_state, e.trigger, e.actor) for e in submission.events.all()][-3:]
    assert trail == [
        ("NEEDS_REVIEW", "REJECTED", "reviewer-rejected", "rita"),
        ("REJECTED", "TIER3_REVIEW", "appeal-granted", "sven"),
        ("TIER3_REVIEW", "PUBLISHED", "appeal-approved", "sven"),
    ]
    published = submission.events.last()
    assert published is not None
    assert published.metadata["appeal_reason"] == "it only deletes its own cache folder"
    assert published.metadata["reason"] == "the folder is the skill's own cache"

    seen = client_for(author).get(f"/api/v1/submissions/{rejected.pk}").json()
    assert seen["state"] == "PUBLISHED"
    assert seen["review"]["appeal"]["status"] == "granted"
    assert seen["review"]["appeal"]["decision"]["reason"] == "the folder is the skill's own cache"
    assert "sven" not in str(seen["review"]["appeal"]), "authors are not told who decided"


def test_security_denies_and_the_rejection_stands(author, security, rejected):
    appeals.file_appeal(rejected.pk, author, "please")
    denied = appeals.deny(rejected.pk, security, "the script reaches outside its folder")
    assert (denied.status, denied.decided_by) == (Appeal.Status.DENIED, security)
    assert state_of(rejected) == State.REJECTED
    with pytest.raises(ActionUnavailable, match="was denied already"):
        appeals.grant(rejected.pk, security, "changed my mind")


def test_only_security_decides_and_never_the_reviewer_who_rejected(
    author, reviewer, security, make_user
):
    from django.contrib.auth.models import Group

    review = awaiting_review(author)
    services.assign(review.pk, security, "sven")
    services.reject(review.pk, security, "no")
    appeals.file_appeal(review.pk, author, "please")
    with pytest.raises(ReviewForbidden, match="only members of the Security group"):
        appeals.grant(review.pk, reviewer, "yes")
    with pytest.raises(ReviewForbidden, match="you made the decision under appeal"):
        appeals.grant(review.pk, security, "yes")
    colleague = make_user("sara", staff=True)
    colleague.groups.add(Group.objects.get(name="Security"))
    appeals.deny(review.pk, colleague, "no")


def test_granting_publishes_the_identical_rejected_copies_too(author, reviewer, security):
    first = awaiting_review(author)
    second = awaiting_review(author)
    services.reject(first.pk, reviewer, "no")
    services.reject(second.pk, reviewer, "as the identical submission")
    appeals.file_appeal(first.pk, author, "please look again")
    appeals.grant(first.pk, security, "fine after all")
    assert (state_of(first), state_of(second)) == (State.PUBLISHED, State.PUBLISHED)
    both = Submission.objects.filter(pk__in=[first.pk, second.pk])
    assert len({s.published_version_id for s in both}) == 1


def test_the_appeal_waits_on_the_review_page_for_security(
    signed_in, author, security, reviewer, rejected
):
    appeals.file_appeal(rejected.pk, author, "it only deletes its own cache folder")
    queue = signed_in(security).get("/admin/reviews/review/").text
    assert 'id="open-appeals"' in queue and "it only deletes its own cache folder" in queue

    page = signed_in(security).get(f"/admin/reviews/review/{rejected.pk}/change/").text
    assert "Grant the appeal and publish" in page and "Deny the appeal" in page
    assert "deletes files outside its folder" in page, "the original review is on the page"
    assert (
        "Grant the appeal"
        not in signed_in(reviewer).get(f"/admin/reviews/review/{rejected.pk}/change/").text
    )

    done = signed_in(security).post(
        f"/admin/reviews/review/{rejected.pk}/appeal/grant/",
        {"reason": "the folder is its own cache"},
        follow=True,
    )
    assert "Appeal granted: arthur/disk-tidy is published as version 1.0.0." in done.text
    assert 'id="appeal-status">Granted<' in done.text


def test_security_decides_appeals_over_the_api(client_for, author, security, reviewer, rejected):
    appeals.file_appeal(rejected.pk, author, "please")
    listed = client_for(security).get("/api/v1/appeals").json()
    assert [a["submission_id"] for a in listed["results"]] == [str(rejected.pk)]
    assert listed["results"][0]["rejection"]["reason"] == "deletes files outside its folder"
    assert client_for(reviewer).get("/api/v1/appeals").status_code == 403
    denied = client_for(security).post(
        f"/api/v1/appeals/{rejected.pk}/deny", {"reason": "stands"}, format="json"
    )
    assert denied.status_code == 200 and denied.json()["status"] == "denied"
