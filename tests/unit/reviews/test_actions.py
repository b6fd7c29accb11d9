"""The reviewer actions (seed 000 §2.3, seed 004): each is one audited transition with the
reviewer as actor, and the review record changes with it or not at all."""

from __future__ import annotations

from itertools import pairwise

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError

from pipeline.models import Submission
from pipeline.outcomes import OutcomeCode
from pipeline.states import State
from pipeline.transitions import TransitionError
from registry.models import SkillVersion
from reviews import services
from reviews.models import Review, ReviewPeriod
from reviews.services import ActionUnavailable, ReviewForbidden
from tests.unit.reviews.factories import awaiting_review, state_of

pytestmark = pytest.mark.django_db


def last_event(review: Review):
    return Submission.objects.get(pk=review.pk).events.order_by("-created_at", "-id").first()


def audit(review: Review) -> list[tuple]:
    return [
        (e.from_state, e.to_state, e.trigger, e.actor, e.actor_type)
        for e in Submission.objects.get(pk=review.pk).events.filter(actor_type="admin")
    ]


# --- the common path: assign, approve ----------------------------------------------------


def test_assigning_moves_the_submission_to_tier3_review_held_by_the_assignee(
    waiting, reviewer, other_reviewer
):
    review = services.assign(waiting.pk, reviewer, "rob")

    assert state_of(review) == State.TIER3_REVIEW
    assert (review.assignee, review.assigned_by, review.status) == (
        other_reviewer,
        reviewer,
        "assigned",
    )
    event = last_event(review)
    assert (event.from_state, event.to_state, event.trigger) == (
        "NEEDS_REVIEW",
        "TIER3_REVIEW",
        "reviewer-assigned",
    )
    assert (event.actor, event.actor_type) == ("rita", "admin")
    assert event.metadata == {"assignee": "rob", "escalated": False}
    assert review.assigned_at == event.created_at


def test_the_assignee_approves_and_the_skill_is_published_with_its_version(waiting, reviewer):
    services.assign(waiting.pk, reviewer, "rita")
    review = services.approve(waiting.pk, reviewer, "script only deletes its own cache")

    submission = review.submission
    assert submission.state == State.PUBLISHED
    assert submission.outcome is not None
    assert submission.outcome.code == OutcomeCode.PUBLISHED
    version = submission.published_version
    assert version is not None
    assert (version.version, version.channel) == ("1.0.0", SkillVersion.Channel.REVIEW)
    assert (version.skill.owner, version.skill.name) == ("arthur", "disk-tidy")
    assert (review.decision, review.decision_reason, review.decided_by) == (
        "approved",
        "script only deletes its own cache",
        reviewer,
    )
    assert audit(review) == [
        ("NEEDS_REVIEW", "TIER3_REVIEW", "reviewer-assigned", "rita", "admin"),
        ("TIER3_REVIEW", "PUBLISHED", "reviewer-approved", "rita", "admin"),
    ]
    assert last_event(review).metadata["version"] == "1.0.0"


# --- reject ------------------------------------------------------------------------------


def test_a_reviewer_can_reject_straight_from_the_queue_with_a_reason(waiting, reviewer):
    review = services.reject(waiting.pk, reviewer, "  deletes files outside its folder  ")

    submission = review.submission
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert submission.outcome.kind == "verdict"
    assert submission.outcome.code == OutcomeCode.REVIEWER_REJECTED
    assert "deletes files outside its folder" in submission.outcome.message
    assert (review.decision, review.decision_reason) == (
        "rejected",
        "deletes files outside its folder",
    )
    assert audit(review) == [("NEEDS_REVIEW", "REJECTED", "reviewer-rejected", "rita", "admin")]
    assert last_event(review).metadata["reason"] == "deletes files outside its folder"


def test_the_assignee_can_reject_after_review(waiting, reviewer):
    services.assign(waiting.pk, reviewer, "rita")
    review = services.reject(waiting.pk, reviewer, "unsafe")
    assert review.submission.state == State.REJECTED
    assert audit(review)[-1][:3] == ("TIER3_REVIEW", "REJECTED", "reviewer-rejected")


@pytest.mark.parametrize("reason", ["", "   "])
def test_rejecting_needs_a_reason(waiting, reviewer, reason):
    with pytest.raises(ValidationError) as refused:
        services.reject(waiting.pk, reviewer, reason)
    assert refused.value.message_dict == {"reason": ["a reason is required"]}
    assert state_of(waiting) == State.NEEDS_REVIEW


# --- unassign and escalate to security ---------------------------------------------------


def test_unassigning_puts_the_review_back_in_the_queue(waiting, reviewer, other_reviewer):
    services.assign(waiting.pk, reviewer, "rob")
    review = services.unassign(waiting.pk, reviewer, "rob is away")

    assert state_of(review) == State.NEEDS_REVIEW
    assert (review.assignee, review.assigned_at, review.status) == (None, None, "waiting")
    event = last_event(review)
    assert (event.trigger, event.actor) == ("reviewer-unassigned", "rita")
    assert event.metadata == {"previous_assignee": "rob", "reason": "rob is away"}


def test_escalating_to_security_needs_a_reason_and_hands_the_review_to_security(
    waiting, reviewer, other_reviewer, security
):
    services.assign(waiting.pk, reviewer, "rita")
    with pytest.raises(ValidationError, match="a reason is required"):
        services.escalate(waiting.pk, reviewer, "")

    review = services.escalate(waiting.pk, reviewer, "possible data destruction")

    assert state_of(review) == State.NEEDS_REVIEW
    assert (review.escalation_reason, review.escalated_by, review.assignee) == (
        "possible data destruction",
        reviewer,
        None,
    )
    assert review.status == "escalated"
    event = last_event(review)
    assert (event.from_state, event.to_state, event.trigger) == (
        "TIER3_REVIEW",
        "NEEDS_REVIEW",
        "escalated-to-security",
    )
    assert event.metadata == {
        "reason": "possible data destruction",
        "to": "Security",
        "previous_assignee": "rita",
    }
    assert review.escalated_at == event.created_at

    # From now on only Security may take or decide it.
    with pytest.raises(ReviewForbidden, match="escalated to Security"):
        services.assign(waiting.pk, other_reviewer, "rob")
    with pytest.raises(ValidationError, match="members of the Security group"):
        services.assign(waiting.pk, security, "rita")
    services.assign(waiting.pk, security, "sven")
    with pytest.raises(ReviewForbidden, match="escalated to Security"):
        services.unassign(waiting.pk, reviewer)
    approved = services.approve(waiting.pk, security)
    assert approved.submission.state == State.PUBLISHED
    assert approved.decided_by == security


def test_security_can_reject_an_escalated_review_from_the_queue(waiting, reviewer, security):
    services.assign(waiting.pk, reviewer, "rita")
    services.escalate(waiting.pk, reviewer, "needs a security look")
    with pytest.raises(ReviewForbidden):
        services.reject(waiting.pk, reviewer, "no")
    review = services.reject(waiting.pk, security, "exfiltrates data")
    assert review.submission.state == State.REJECTED


# --- who may act -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "arguments"),
    [
        (services.assign, {"assignee": "rita"}),
        (services.reject, {"reason": "no"}),
    ],
)
def test_only_reviewers_can_act(waiting, reviewer, outsider, action, arguments):
    with pytest.raises(ReviewForbidden, match="Reviewers or Security"):
        action(waiting.pk, outsider, **arguments)
    assert state_of(waiting) == State.NEEDS_REVIEW
    assert audit(waiting) == []


def test_nobody_reviews_their_own_submission(make_user, reviewer):
    author_reviewer = make_user("ada", staff=True)
    author_reviewer.groups.add(Group.objects.get(name="Reviewers"))
    review = awaiting_review(author_reviewer)

    with pytest.raises(ReviewForbidden, match="own submission"):
        services.assign(review.pk, author_reviewer, "rita")
    with pytest.raises(ReviewForbidden, match="own submission"):
        services.reject(review.pk, author_reviewer, "mine")
    with pytest.raises(ValidationError, match="author cannot review"):
        services.assign(review.pk, reviewer, "ada")
    assert state_of(review) == State.NEEDS_REVIEW


@pytest.mark.parametrize(
    ("assignee", "message"),
    [
        ("", "an assignee is required"),
        ("nobody-by-that-name", "is not a reviewer"),
        ("olga", "is not a reviewer"),
    ],
)
def test_the_assignee_is_required_and_must_be_a_reviewer(
    waiting, reviewer, outsider, assignee, message
):
    with pytest.raises(ValidationError) as refused:
        services.assign(waiting.pk, reviewer, assignee)
    assert list(refused.value.message_dict) == ["assignee"]
    assert message in refused.value.message_dict["assignee"][0]
    assert state_of(waiting) == State.NEEDS_REVIEW


def test_only_the_assignee_decides_but_anyone_may_unassign(waiting, reviewer, other_reviewer):
    services.assign(waiting.pk, reviewer, "rob")
    for action, arguments in (
        (services.approve, {}),
        (services.reject, {"reason": "no"}),
        (services.escalate, {"reason": "hm"}),
    ):
        with pytest.raises(ReviewForbidden, match="assigned to rob"):
            action(waiting.pk, reviewer, **arguments)
    assert state_of(waiting) == State.TIER3_REVIEW
    services.unassign(waiting.pk, reviewer)
    assert state_of(waiting) == State.NEEDS_REVIEW


# --- what the state allows ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "arguments", "message"),
    [
        (services.approve, {}, "assign it for Tier 3 review first"),
        (services.unassign, {}, "not assigned to anyone"),
        (services.escalate, {"reason": "x"}, "assign it for Tier 3 review first"),
    ],
)
def test_actions_that_need_an_assignment_are_refused_in_the_queue(
    waiting, reviewer, action, arguments, message
):
    with pytest.raises(ActionUnavailable, match=message) as refused:
        action(waiting.pk, reviewer, **arguments)
    assert isinstance(refused.value, TransitionError)  # → 409 in the API
    assert state_of(waiting) == State.NEEDS_REVIEW


def test_an_assigned_review_cannot_be_assigned_again(waiting, reviewer, other_reviewer):
    services.assign(waiting.pk, reviewer, "rita")
    with pytest.raises(ActionUnavailable, match="already assigned"):
        services.assign(waiting.pk, other_reviewer, "rob")


def test_a_decided_review_is_closed_to_every_action(waiting, reviewer):
    services.reject(waiting.pk, reviewer, "unsafe")
    for action, arguments in (
        (services.assign, {"assignee": "rita"}),
        (services.approve, {}),
        (services.reject, {"reason": "again"}),
        (services.unassign, {}),
        (services.escalate, {"reason": "late"}),
    ):
        with pytest.raises(ActionUnavailable, match="the review is closed"):
            action(waiting.pk, reviewer, **arguments)


def test_allowed_actions_follow_the_rules(waiting, reviewer, other_reviewer, outsider, author):
    def allowed(user) -> list[str]:
        review = Review.objects.select_related("submission", "assignee").get(pk=waiting.pk)
        return [action.value for action in services.allowed_actions(review, user)]

    assert allowed(reviewer) == ["assign", "request_changes", "reject"]
    assert allowed(outsider) == [] and allowed(author) == []
    services.assign(waiting.pk, reviewer, "rita")
    assert allowed(reviewer) == [
        "approve",
        "request_changes",
        "reject",
        "escalate",
        "unassign",
    ]
    assert allowed(other_reviewer) == ["unassign"]


# --- history -----------------------------------------------------------------------------


def test_every_action_closes_one_period_of_the_time_in_queue_history(waiting, reviewer, security):
    services.assign(waiting.pk, reviewer, "rita")
    services.escalate(waiting.pk, reviewer, "security look")
    services.assign(waiting.pk, security, "sven")
    services.approve(waiting.pk, security)

    periods = list(ReviewPeriod.objects.filter(review=waiting).select_related("assignee"))
    assert [
        (p.state, p.assignee and p.assignee.username, p.escalated, p.ended_by_action, p.ended_by)
        for p in periods
    ] == [
        ("NEEDS_REVIEW", None, False, "assign", "rita"),
        ("TIER3_REVIEW", "rita", False, "escalate", "rita"),
        ("NEEDS_REVIEW", None, True, "assign", "sven"),
        ("TIER3_REVIEW", "sven", True, "approve", "sven"),
    ]
    for earlier, later in pairwise(periods):
        assert earlier.ended_at == later.started_at
    review = Review.objects.get(pk=waiting.pk)
    assert periods[-1].ended_at == review.decided_at
