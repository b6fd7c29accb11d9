"""Identical bundles: a submission whose files equal a published version or another waiting
submission says so and links it, and decisions on the same files of one skill never contradict
each other: the second is refused, with the reason."""

from __future__ import annotations

import pytest

from pipeline.states import State
from reviews import services
from reviews.services import ActionUnavailable
from reviews.twins import twins_of
from tests.support.versions import publish_files
from tests.unit.reviews.factories import awaiting_review, disk_tidy_files, rm_finding, state_of

pytestmark = pytest.mark.django_db


def assigned(review, reviewer):
    services.assign(review.pk, reviewer, reviewer.username)
    return review


def test_two_waiting_copies_link_each_other(author, reviewer, signed_in):
    first = awaiting_review(author, findings=(rm_finding(),))
    second = awaiting_review(author, findings=(rm_finding(),))
    assert [s.pk for s in twins_of(first.submission).waiting] == [second.pk]
    html = signed_in(reviewer).get(f"/admin/reviews/review/{first.pk}/change/").text
    assert f'href="/admin/reviews/review/{second.pk}/change/">another submission</a>' in html


def test_once_one_copy_is_approved_the_other_cannot_be_rejected(author, reviewer):
    first = assigned(awaiting_review(author), reviewer)
    second = assigned(awaiting_review(author), reviewer)
    services.approve(first.pk, reviewer)

    with pytest.raises(ActionUnavailable, match=r"published as arthur/disk-tidy@1\.0\.0"):
        services.reject(second.pk, reviewer, "looks dangerous")
    with pytest.raises(ActionUnavailable, match="cannot contradict"):
        services.request_changes(second.pk, reviewer, "say what it deletes")
    assert state_of(second) == State.TIER3_REVIEW

    services.approve(second.pk, reviewer)
    second.submission.refresh_from_db()
    assert (
        second.submission.published_version
        == first.submission.__class__.objects.get(pk=first.pk).published_version
    ), "the same files reuse the same version"


def test_once_one_copy_is_rejected_the_other_cannot_be_approved(author, reviewer, signed_in):
    first = awaiting_review(author)
    second = assigned(awaiting_review(author), reviewer)
    services.reject(first.pk, reviewer, "deletes files outside its folder")

    with pytest.raises(ActionUnavailable, match="rita rejected these exact files"):
        services.approve(second.pk, reviewer)
    assert state_of(second) == State.TIER3_REVIEW

    html = signed_in(reviewer).get(f"/admin/reviews/review/{second.pk}/change/").text
    assert 'id="action-approve"' not in html
    assert "Approve and publish is not offered: Rita rejected these exact files" in html
    services.reject(second.pk, reviewer, "as the identical submission")
    assert state_of(second) == State.REJECTED


def test_a_published_version_with_the_same_files_is_named_and_binds(author, reviewer):
    version = publish_files(author, disk_tidy_files(), name="disk-tidy")
    review = awaiting_review(author)
    assert twins_of(review.submission).published == [version]
    with pytest.raises(ActionUnavailable, match="quarantines that version"):
        services.reject(review.pk, reviewer, "no")


def test_a_copy_under_another_owner_is_shown_but_not_bound(author, make_user, reviewer):
    version = publish_files(author, disk_tidy_files(), name="disk-tidy")
    copier = make_user("copycat")
    copy = awaiting_review(copier)
    twins = twins_of(copy.submission)
    assert (twins.published, twins.elsewhere) == ([], [version])
    services.reject(copy.pk, reviewer, "a copy of arthur's skill under another name")
    assert state_of(copy) == State.REJECTED
