"""The free-text rule (``config.text``) for what reviews add: a decision's own words, an
author's appeal, Security's decision on it, and the canned reasons Security keeps — control
characters other than newline and tab are refused, and nothing changes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from pipeline.states import State
from reviews import appeals, services
from reviews.models import Appeal, CannedReason
from tests.unit.reviews.factories import awaiting_review, rm_finding, state_of

pytestmark = pytest.mark.django_db

HOSTILE = "deletes files\x1b[1A\x1b[2K all fine"


def test_a_reject_reason_with_control_characters_is_refused(client_for, reviewer, author):
    review = awaiting_review(author)
    refused = client_for(reviewer).post(
        f"/api/v1/reviews/{review.pk}/reject", {"reason": HOSTILE}, format="json"
    )
    assert refused.status_code == 400
    assert "control character U+001B" in refused.json()["errors"]["reason"][0]
    assert state_of(review) == State.NEEDS_REVIEW


def test_an_appeal_and_its_decision_refuse_control_characters(
    client_for, author, reviewer, security
):
    review = awaiting_review(author, findings=(rm_finding(),))
    services.reject(review.pk, reviewer, "deletes files outside its folder")
    url = f"/api/v1/submissions/{review.pk}/appeal"
    refused = client_for(author).post(url, {"reason": HOSTILE}, format="json")
    assert refused.status_code == 400
    assert "control character U+001B" in refused.json()["errors"]["reason"][0]
    with pytest.raises(ValidationError, match="control character"):
        appeals.file_appeal(review.pk, author, HOSTILE)
    assert not Appeal.objects.exists()

    appeals.file_appeal(review.pk, author, "it only deletes its own cache")
    with pytest.raises(ValidationError, match="control character"):
        appeals.deny(review.pk, security, HOSTILE)
    assert Appeal.objects.get().status == Appeal.Status.OPEN


def test_security_cannot_keep_a_canned_reason_with_control_characters(signed_in, security):
    response = signed_in(security).post(
        "/admin/reviews/cannedreason/add/",
        {"action": "reject", "title": "Hidden\u202etxt", "text": HOSTILE, "position": 5,
         "active": "on"},
    )  # fmt: skip
    assert response.status_code == 200
    assert response.content.decode().count("control character U+") == 2
    assert not CannedReason.objects.filter(text=HOSTILE).exists()
