"""Review ergonomics: canned reasons (kept by Security) for reject and request-changes, a
request-changes decision the author can act on, and a finding's mark with an optional reason
and a visible confirmation, counted in the rule's precision."""

from __future__ import annotations

import pytest

from pipeline.models import Submission
from pipeline.states import State
from reviews.feedback import rule_precision
from reviews.models import CannedReason, FindingFeedback
from tests.unit.reviews.factories import awaiting_review, rm_finding, state_of

pytestmark = pytest.mark.django_db


def test_a_first_list_of_canned_reasons_exists_for_both_decisions():
    actions = set(CannedReason.objects.filter(active=True).values_list("action", flat=True))
    assert actions == {"reject", "request_changes"}


def test_security_keeps_the_canned_reasons_and_reviewers_only_read_them(
    signed_in, security, reviewer
):
    url = "/admin/reviews/cannedreason/add/"
    created = signed_in(security).post(
        url,
        {
            "action": "reject",
            "title": "Mines cryptocurrency",
            "text": "The skill runs a miner on the user's machine.",
            "position": 5,
            "active": "on",
        },
    )
    assert created.status_code == 302
    assert CannedReason.objects.filter(title="Mines cryptocurrency").exists()
    assert signed_in(reviewer).get(url).status_code == 403
    assert signed_in(reviewer).get("/admin/reviews/cannedreason/").status_code == 200


def test_a_canned_reason_with_words_of_ones_own_becomes_the_authors_verdict(
    signed_in, reviewer, author
):
    review = awaiting_review(author)
    canned = CannedReason.objects.filter(action="reject").first()
    assert canned is not None
    page = signed_in(reviewer).get(f"/admin/reviews/review/{review.pk}/change/").text
    assert f'<option value="{canned.pk}">{canned.title}</option>' in page

    signed_in(reviewer).post(
        f"/admin/reviews/review/{review.pk}/act/reject/",
        {"reject-canned_reason": canned.pk, "reject-reason": "See scripts/largest.sh line 3."},
    )
    submission = Submission.objects.get(pk=review.pk)
    assert submission.state == State.REJECTED
    assert submission.outcome_message == (
        f"A reviewer rejected this skill: {canned.text}\n\nSee scripts/largest.sh line 3."
    )


def test_a_canned_reason_of_the_other_decision_is_refused(client_for, reviewer, author):
    review = awaiting_review(author)
    for_changes = CannedReason.objects.filter(action="request_changes").first()
    assert for_changes is not None
    refused = client_for(reviewer).post(
        f"/api/v1/reviews/{review.pk}/reject",
        {"canned_reason": for_changes.pk},
        format="json",
    )
    assert refused.status_code == 400 and "canned_reason" in refused.json()["errors"]
    assert state_of(review) == State.NEEDS_REVIEW


def test_requesting_changes_tells_the_author_what_to_change(client_for, reviewer, author):
    review = awaiting_review(author)
    canned = CannedReason.objects.filter(action="request_changes").first()
    assert canned is not None
    done = client_for(reviewer).post(
        f"/api/v1/reviews/{review.pk}/request-changes",
        {"canned_reason": canned.pk},
        format="json",
    )
    assert done.status_code == 200, done.json()
    assert done.json()["decision"]["outcome"] == "changes_requested"
    seen = client_for(author).get(f"/api/v1/submissions/{review.pk}").json()
    assert seen["outcome"]["code"] == "CHANGES_REQUESTED"
    assert canned.text in seen["outcome"]["message"]
    assert seen["outcome"]["message"].endswith("Change the skill and submit it again.")
    trail = client_for(author).get(f"/api/v1/submissions/{review.pk}/events").json()
    assert trail[-1]["trigger"] == "reviewer-requested-changes"


def test_marking_a_finding_with_a_reason_confirms_it_and_counts_it(signed_in, reviewer, author):
    review = awaiting_review(author, findings=(rm_finding(),))
    finding = rm_finding()
    client = signed_in(reviewer)
    marked = client.post(
        f"/admin/reviews/review/{review.pk}/mark/",
        {
            "rule_id": finding.rule_id,
            "file": finding.file,
            "line": finding.line,
            "verdict": "false_positive",
            "reason": "it only deletes its own cache",
        },
        follow=True,
    )
    assert (
        "Marked destructive.rm-rf at scripts/largest.sh:3 as a false positive (it only deletes "
        "its own cache). It counts in the rule&#x27;s precision."
    ) in marked.text
    assert "Marked <strong>false positive</strong> by rita: it only deletes its own cache" in (
        marked.text
    )
    assert FindingFeedback.objects.get().reason == "it only deletes its own cache"
    (rule,) = rule_precision(with_reasons=True)
    assert (rule.rule_id, rule.marked, rule.confirmed) == ("destructive.rm-rf", 1, 0)
    assert rule.reasons == ("False positive: it only deletes its own cache",)
