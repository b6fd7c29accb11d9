"""The review API: the queue and the same actions as the admin, with 403 for people who may
not act, 409 for actions the state does not allow and 400 naming the missing field."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from pipeline.states import State
from reviews import services
from reviews.models import Review
from tests.unit.pipeline.factories import submission_in
from tests.unit.reviews.factories import awaiting_review, rm_finding, state_of

pytestmark = pytest.mark.django_db


def act(client, review: Review, action: str, body: dict | None = None):
    return client.post(f"/api/v1/reviews/{review.pk}/{action}", body or {}, format="json")


# --- the queue ---------------------------------------------------------------------------


def test_reviewers_read_the_queue_in_order_with_each_reviews_reasons(client_for, reviewer, author):
    later = awaiting_review(author, name="later", findings=(rm_finding(),))
    late = awaiting_review(author, name="late", high_privilege=False, score=70)
    Review.objects.filter(pk=late.pk).update(due_at=timezone.now() - timedelta(hours=1))

    response = client_for(reviewer).get("/api/v1/reviews")

    assert response.status_code == 200
    body = response.json()
    assert [r["skill"]["name"] for r in body["results"]] == ["late", "later"]
    first, second = body["results"]
    assert first["overdue"] is True and second["overdue"] is False
    assert second["submission_id"] == str(later.pk)
    assert second["state"] == "NEEDS_REVIEW" and second["status"] == "waiting"
    assert second["reasons"][0] == "score 85 but high-privilege: Bash"
    assert second["categories"] == [
        {"category": "destructive-commands", "findings": 1, "worst_severity": "high"}
    ]
    assert second["priority"] == 1 and second["submitter"] == "arthur"
    assert second["assignee"] is None and second["escalation"] is None
    assert second["decision"] is None


def test_the_queue_filters(client_for, reviewer, author, make_user):
    mine = awaiting_review(author, name="mine", findings=(rm_finding(),))
    escalated = awaiting_review(author, name="escalated")
    overdue = awaiting_review(make_user("bea"), name="overdue", high_privilege=False, score=65)
    decided = awaiting_review(author, name="decided")
    services.assign(mine.pk, reviewer, "rita")
    services.assign(escalated.pk, reviewer, "rita")
    services.escalate(escalated.pk, reviewer, "security look")
    services.reject(decided.pk, reviewer, "no")
    Review.objects.filter(pk=overdue.pk).update(due_at=timezone.now() - timedelta(days=1))
    client = client_for(reviewer)

    def names(**params) -> set[str]:
        response = client.get("/api/v1/reviews", params)
        assert response.status_code == 200, response.json()
        return {r["skill"]["name"] for r in response.json()["results"]}

    assert names() == {"mine", "escalated", "overdue"}
    assert names(state="all") == {"mine", "escalated", "overdue", "decided"}
    assert names(state="REJECTED") == {"decided"}
    assert names(state="TIER3_REVIEW") == {"mine"}
    assert names(assignee="me") == {"mine"}
    assert names(assignee="rita") == {"mine"}
    assert names(assignee="none") == {"escalated", "overdue"}
    assert names(overdue="true") == {"overdue"}
    assert names(overdue="false") == {"mine", "escalated"}
    assert names(escalated="true") == {"escalated"}
    assert names(category="destructive-commands") == {"mine"}
    assert names(search="bea") == {"overdue"}
    invalid = client.get("/api/v1/reviews", {"state": "LOST"})
    assert invalid.status_code == 400 and "state" in invalid.json()["errors"]


QUEUE_QUERIES: tuple[dict[str, str], ...] = (
    {},
    {"state": "all"},
    {"state": "PUBLISHED"},
    {"assignee": "none"},
    {"assignee": "rita"},
    {"overdue": "true"},
    {"escalated": "false"},
    {"category": "destructive-commands"},
    {"search": "a1"},
)


def test_the_queue_its_filters_and_search_read_as_many_queries_for_twelve_as_for_three(
    client_for, reviewer, make_user
):
    client = client_for(reviewer)

    def queries(params: dict[str, str]) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/api/v1/reviews", params).status_code == 200, params
        return len(captured.captured_queries)

    def add(count: int, start: int) -> None:
        for index in range(start, start + count):
            review = awaiting_review(make_user(f"a{index}"), findings=(rm_finding(),))
            if index % 2:
                services.assign(review.pk, reviewer, "rita")

    add(3, 0)
    with_three = [queries(params) for params in QUEUE_QUERIES]
    add(9, 3)
    assert [queries(params) for params in QUEUE_QUERIES] == with_three


def test_only_reviewers_may_use_the_queue(client_for, outsider, author, waiting):
    for user in (outsider, author):
        client = client_for(user)
        assert client.get("/api/v1/reviews").status_code == 403
        response = act(client, waiting, "reject", {"reason": "no"})
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
    assert state_of(waiting) == State.NEEDS_REVIEW


# --- the actions -------------------------------------------------------------------------


def test_assign_then_approve_publishes_the_skill(client_for, reviewer, waiting):
    client = client_for(reviewer)

    assigned = act(client, waiting, "assign", {"assignee": "rita"})
    assert assigned.status_code == 200, assigned.json()
    assert assigned.json()["state"] == "TIER3_REVIEW"
    assert assigned.json()["assignee"] == "rita"

    approved = act(client, waiting, "approve")
    assert approved.status_code == 200, approved.json()
    body = approved.json()
    assert body["state"] == "PUBLISHED"
    assert body["decision"]["outcome"] == "approved" and body["decision"]["by"] == "rita"
    skill = client.get("/api/v1/skills/arthur/disk-tidy").json()
    assert [v["version"] for v in skill["versions"]] == ["1.0.0"]


def test_reject_unassign_and_escalate(client_for, reviewer, other_reviewer, author, make_user):
    client = client_for(reviewer)
    first = awaiting_review(author, name="first")
    second = awaiting_review(author, name="second")

    rejected = act(client, first, "reject", {"reason": "deletes files"})
    assert rejected.status_code == 200
    assert rejected.json()["state"] == "REJECTED"
    assert rejected.json()["decision"]["reason"] == "deletes files"

    act(client, second, "assign", {"assignee": "rob"})
    unassigned = act(client, second, "unassign", {"reason": "rob is away"})
    assert unassigned.status_code == 200
    assert (unassigned.json()["state"], unassigned.json()["assignee"]) == ("NEEDS_REVIEW", None)

    act(client, second, "assign", {"assignee": "rita"})
    escalated = act(client, second, "escalate", {"reason": "wipes caches"})
    assert escalated.status_code == 200
    assert escalated.json()["status"] == "escalated"
    assert escalated.json()["escalation"]["reason"] == "wipes caches"
    assert escalated.json()["escalation"]["to"] == "Security"


@pytest.mark.parametrize(
    ("action", "body", "field"),
    [
        ("assign", {}, "assignee"),
        ("assign", {"assignee": ""}, "assignee"),
        ("assign", {"assignee": "olga"}, "assignee"),
        ("reject", {}, "reason"),
        ("reject", {"reason": "   "}, "reason"),
    ],
)
def test_missing_or_invalid_input_is_a_400_naming_the_field(
    client_for, reviewer, outsider, waiting, action, body, field
):
    response = act(client_for(reviewer), waiting, action, body)
    assert response.status_code == 400, response.json()
    assert list(response.json()["errors"]) == [field]
    assert state_of(waiting) == State.NEEDS_REVIEW


def test_escalating_needs_a_reason(client_for, reviewer, waiting):
    client = client_for(reviewer)
    act(client, waiting, "assign", {"assignee": "rita"})
    response = act(client, waiting, "escalate", {})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["reason"]


@pytest.mark.parametrize("action", ["approve", "unassign", "escalate"])
def test_an_action_the_state_does_not_allow_is_a_409(client_for, reviewer, waiting, action):
    response = act(client_for(reviewer), waiting, action, {"reason": "x"})
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    assert "NEEDS_REVIEW" in response.json()["detail"]


def test_a_second_assignment_is_a_409_that_says_why(client_for, reviewer, other_reviewer, waiting):
    act(client_for(other_reviewer), waiting, "assign", {"assignee": "rob"})
    response = act(client_for(reviewer), waiting, "assign", {"assignee": "rita"})
    assert response.status_code == 409
    assert "already assigned" in response.json()["detail"]


def test_self_review_is_a_403(client_for, make_user):
    ada = make_user("ada", staff=True)
    ada.groups.add(Group.objects.get(name="Reviewers"))
    own = awaiting_review(ada, name="own")
    response = act(client_for(ada), own, "assign", {"assignee": "ada"})
    assert response.status_code == 403
    assert "own submission" in response.json()["detail"]


def test_deciding_someone_elses_assignment_is_a_403(client_for, reviewer, other_reviewer, waiting):
    act(client_for(reviewer), waiting, "assign", {"assignee": "rob"})
    response = act(client_for(reviewer), waiting, "approve")
    assert response.status_code == 403
    assert "assigned to rob" in response.json()["detail"]


def test_an_unknown_review_is_a_404(client_for, reviewer):
    response = client_for(reviewer).post(
        "/api/v1/reviews/00000000-0000-0000-0000-000000000000/approve", {}, format="json"
    )
    assert response.status_code == 404


# --- what the author sees ----------------------------------------------------------------


def test_the_author_follows_the_review_on_their_submission(
    client_for, reviewer, security, author, waiting
):
    client = client_for(author)
    review = client.get(f"/api/v1/submissions/{waiting.pk}").json()["review"]
    assert review == {
        "status": "waiting",
        "assignee": None,
        "due_at": waiting.due_at.isoformat().replace("+00:00", "Z"),
        "escalated": False,
        "decision": None,
        "appeal": None,
    }

    services.assign(waiting.pk, reviewer, "rita")
    services.escalate(waiting.pk, reviewer, "internal: looks like a wiper")
    services.assign(waiting.pk, security, "sven")
    services.reject(waiting.pk, security, "the script deletes files outside its folder")

    body = client.get(f"/api/v1/submissions/{waiting.pk}").json()
    assert body["state"] == "REJECTED"
    assert body["review"]["status"] == "rejected"
    assert body["review"]["escalated"] is True
    assert "internal" not in str(body["review"])
    assert body["review"]["decision"]["reason"] == "the script deletes files outside its folder"
    assert body["review"]["decision"]["by"] == "a reviewer"

    trail = client.get(f"/api/v1/submissions/{waiting.pk}/events").json()
    by_people = [event for event in trail if event["actor_type"] == "admin"]
    assert [event["trigger"] for event in by_people] == [
        "reviewer-assigned",
        "escalated-to-security",
        "reviewer-assigned",
        "reviewer-rejected",
    ]
    assert {event["actor"] for event in by_people} == {"a reviewer"}
    shown = str(trail)
    assert "rita" not in shown and "sven" not in shown and "internal" not in shown


def test_reviewers_names_are_shown_to_authors_where_the_site_says_so(
    client_for, reviewer, security, author, waiting, settings
):
    settings.SKILLGATE_SHOW_REVIEWER_NAMES = True
    services.assign(waiting.pk, reviewer, "rita")
    services.reject(waiting.pk, reviewer, "deletes files")
    client = client_for(author)
    assert client.get(f"/api/v1/submissions/{waiting.pk}").json()["review"]["decision"]["by"] == (
        "rita"
    )
    trail = client.get(f"/api/v1/submissions/{waiting.pk}/events").json()
    assert trail[-1]["actor"] == "rita" and trail[-2]["metadata"]["assignee"] == "rita"


def test_operators_see_reviewers_names(client_for, reviewer, author, waiting, make_user):
    operator = make_user("otto", staff=True, is_superuser=True)
    services.assign(waiting.pk, reviewer, "rita")
    body = client_for(operator).get(f"/api/v1/submissions/{waiting.pk}").json()
    assert body["review"]["assignee"] == "rita"


def test_a_submission_that_never_needed_review_has_none(client_for, author):
    submission = submission_in(State.RECEIVED, author)
    assert client_for(author).get(f"/api/v1/submissions/{submission.pk}").json()["review"] is None
