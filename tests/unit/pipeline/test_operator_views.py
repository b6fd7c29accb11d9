"""What operators and authors see of a stale, stuck or failed submission: the staleness
warning, queue status, 24-hour metrics, Prometheus, dead letters and their replay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import ALL_QUEUES
from pipeline.models import DeadLetter, Submission
from pipeline.roles import OPERATORS_GROUP
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.services.timeouts import record_timeout
from pipeline.states import State
from reviews.roles import REVIEWERS_GROUP
from tests.support.rabbitmq import fresh_vhost
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(make_user, client_for):
    """An operator: staff in the Operators group."""
    operator = make_user("operator", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    return client_for(operator)


def stall(submission: Submission, minutes: float) -> None:
    Submission.objects.filter(pk=submission.pk).update(
        state_changed_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_the_author_sees_a_staleness_warning_after_three_minutes(make_user, client_for):
    author = make_user()
    submission = submission_in(State.TIER1_SCANNING, author)
    api = client_for(author)
    url = f"/api/v1/submissions/{submission.pk}"
    stall(submission, 2)
    assert api.get(url).json()["staleness"] is None
    stall(submission, 4)
    staleness = api.get(url).json()["staleness"]
    assert staleness["stale"] is True
    assert staleness["stale_stage"] == "TIER1_SCANNING"
    assert staleness["message"] == (
        "Your submission has been in Tier 1 scanning for over 3 minutes without progress"
    )
    assert staleness["stale_since"]


def test_operator_endpoints_are_for_operators_only(make_user, client_for):
    """Issue 9 item 11: reviewers are staff (to use the admin) but no operators."""
    author = client_for(make_user())
    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    reviewer_api = client_for(reviewer)
    letter = DeadLetter.objects.create(reason=DeadLetter.Reason.POISON, payload={"secret": 1})
    for url in (
        "/api/v1/admin/queue/status",
        "/api/v1/admin/queue/metrics",
        "/api/v1/admin/dead-letters",
        f"/api/v1/admin/dead-letters/{letter.pk}",
    ):
        assert APIClient().get(url).status_code == 401
        assert author.get(url).status_code == 403
        assert reviewer_api.get(url).status_code == 403, url
    assert reviewer_api.post(f"/api/v1/admin/dead-letters/{letter.pk}/replay").status_code == 403


def test_reviewers_see_others_submissions_only_through_the_review_queue(
    make_user, client_for, staff
):
    mine = submission_in(State.RECEIVED, make_user("alice"))
    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    reviewer_api = client_for(reviewer)
    assert reviewer_api.get("/api/v1/submissions").json()["results"] == []
    assert reviewer_api.get(f"/api/v1/submissions/{mine.pk}").status_code == 404
    assert [s["id"] for s in staff.get("/api/v1/submissions").json()["results"]] == [str(mine.pk)]
    admin = Client()
    admin.force_login(reviewer)
    assert admin.get("/admin/pipeline/submission/").status_code == 403
    assert admin.get("/admin/pipeline/deadletter/").status_code == 403


def test_a_reader_of_dead_letters_cannot_replay_them(make_user, client_for):
    reader = make_user("reader", staff=True)
    reader.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_operations", "view_deadletter"])
    )
    letter = DeadLetter.objects.create(reason=DeadLetter.Reason.POISON)
    api = client_for(reader)
    assert api.get(f"/api/v1/admin/dead-letters/{letter.pk}").status_code == 200
    assert api.post(f"/api/v1/admin/dead-letters/{letter.pk}/replay").status_code == 403


def test_queue_status_lists_stale_submissions_and_which_are_stuck_with_budget(make_user, staff):
    submission = submission_in(State.TIER2_SCANNING, make_user())
    stall(submission, 7)
    Submission.objects.filter(pk=submission.pk).update(recovery_attempts=2)
    stale_only = submission_in(State.TIER1_SCANNING, make_user("bob"))
    stall(stale_only, 4)
    body = staff.get("/api/v1/admin/queue/status").json()
    assert (body["stale_count"], body["stuck_count"]) == (2, 1)
    entry, younger = body["stale"]
    assert (younger["id"], younger["stuck"]) == (str(stale_only.pk), False)
    assert entry["id"] == str(submission.pk)
    assert entry["stuck"] is True
    assert entry["stage"] == "TIER2_SCANNING"
    assert 400 < entry["age_s"] < 440
    assert entry["classification"] == "not_started"
    assert entry["recovery"] == {"attempts": 2, "max": 3, "next_at": None}
    assert body["submissions_by_state"]["TIER2_SCANNING"] == 1
    assert set(body["queues"]) >= {"submission-pipeline.scan", "submission-dlq"}


def test_metrics_cover_the_last_24_hours_hourly(make_user, staff):
    submission = submission_in(State.RECEIVED, make_user())
    for name, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission.pk), StepContext(name))
    record_timeout("judge_timeout", 1234.0)
    body = staff.get("/api/v1/admin/queue/metrics").json()
    assert len(body["hourly"]) == 24
    assert body["totals"]["published"] == 1
    assert body["totals"]["auto_approve_rate"] == 1.0
    stages = body["stage_durations"]
    assert stages["tier1_scan"]["count"] == 1 and stages["tier1_scan"]["target_ms"] == 500
    assert stages["end_to_end"]["count"] == 1 and stages["end_to_end"]["target_p95_ms"] == 60000
    assert body["timeouts"]["by_classification"] == {"judge_timeout": 1}
    assert body["broker"] == "ok"
    assert all(isinstance(depth, int) for depth in body["queue_depth"].values())
    assert body["job_failure_rate"] == 0.0
    assert body["reviews"] == {"open": 0, "overdue": 0}


def test_a_broker_nobody_used_yet_reports_every_queue_declared_and_empty(staff, settings):
    with fresh_vhost() as broker_url:
        settings.CELERY_BROKER_URL = broker_url
        body = staff.get("/api/v1/admin/queue/metrics").json()
        status = staff.get("/api/v1/admin/queue/status").json()
    expected = {queue.name: 0 for queue in ALL_QUEUES}
    assert body["queue_depth"] == expected and body["broker"] == "ok"
    assert status["queues"] == expected and status["broker"] == "ok"


def test_an_unreachable_broker_is_reported_as_such(staff, settings):
    settings.CELERY_BROKER_URL = "amqp://skillgate:skillgate@127.0.0.1:1/nowhere"
    body = staff.get("/api/v1/admin/queue/metrics").json()
    assert body["broker"] == "unreachable"
    assert set(body["queue_depth"].values()) == {None}


def test_prometheus_exposes_the_same_figures(make_user, scraper):
    submission_in(State.NEEDS_REVIEW, make_user())
    stall(submission_in(State.TIER1_SCANNING, make_user("bob")), 4)
    record_timeout("provider_error", 5.0)
    text = scraper.get("/metrics").content.decode()
    assert 'skillgate_submissions{state="NEEDS_REVIEW"} 1.0' in text
    assert 'skillgate_reviews{status="open"} 1.0' in text
    assert "skillgate_stale_submissions 1.0" in text
    assert "skillgate_stuck_submissions 0.0" in text
    assert 'skillgate_timeouts_total{classification="provider_error"} 1.0' in text
    assert 'skillgate_stage_target_ms{quantile="0.95",stage="end_to_end"} 60000.0' in text
    assert "skillgate_queue_depth" in text
    assert "skillgate_broker_up 1.0" in text


def test_a_dead_letter_replays_from_the_current_state_or_says_why_not(make_user, staff):
    user = make_user()
    live = submission_in(State.TIER1_SCANNING, user)
    ended = submission_in(State.REJECTED, user, name="ended")
    live_letter = DeadLetter.objects.create(
        submission=live, task_name="pipeline.scan", reason="retries_exhausted"
    )
    ended_letter = DeadLetter.objects.create(
        submission=ended, task_name="pipeline.judge", reason="retries_exhausted"
    )
    replayed = staff.post(f"/api/v1/admin/dead-letters/{live_letter.pk}/replay")
    assert replayed.status_code == 200
    assert replayed.json()["message"] == f"submission {live.pk} re-sent from TIER1_SCANNING"
    refused = staff.post(f"/api/v1/admin/dead-letters/{ended_letter.pk}/replay")
    assert refused.status_code == 409
    assert "nothing left to run" in refused.json()["message"]
    live_letter.refresh_from_db()
    assert (live_letter.replay_count, live_letter.replayed_by) == (1, "operator")


def test_replay_command_replays_pending_dead_letters(make_user, capsys):
    live = submission_in(State.TIER2_SCANNING, make_user())
    letter = DeadLetter.objects.create(
        submission=live, task_name="pipeline.judge", reason="crash_loop"
    )
    call_command("replay_dead_letters", "--all")
    out = capsys.readouterr().out
    assert f"#{letter.pk}: submission {live.pk} re-sent from TIER2_SCANNING" in out
    assert "replayed 1 of 1" in out


# --- operator lists cost what they show -------------------------------------------------------


def queries_for(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_queue_status_and_dead_letters_read_as_many_queries_for_twelve_rows_as_for_three(
    make_user, staff
):
    def add(count: int, start: int) -> None:
        for index in range(start, start + count):
            author = make_user(f"author{index}")
            submission = submission_in(State.TIER1_SCANNING, author)
            steps.run_scan(str(submission.pk), StepContext("pipeline.scan"))
            stall(submission, 7)
            stall(submission_in(State.TIER2_SCANNING, author, name="no-attempt-yet"), 4)
            DeadLetter.objects.create(
                submission=submission, task_name="pipeline.scan", reason="retries_exhausted"
            )

    pages = ["/api/v1/admin/queue/status", "/api/v1/admin/dead-letters"]
    add(3, 0)
    with_three = [queries_for(staff, page) for page in pages]
    add(9, 3)
    assert [queries_for(staff, page) for page in pages] == with_three
    stale = staff.get(pages[0]).json()["stale"]
    assert len(stale) == 24
    assert {entry["classification"] for entry in stale} == {"none", "not_started"}


def test_dead_letters_page_newest_first_by_cursor(make_user, staff):
    live = submission_in(State.TIER1_SCANNING, make_user())
    letters = [
        DeadLetter.objects.create(submission=live, task_name="pipeline.scan", reason="poison")
        for _ in range(3)
    ]

    first = staff.get("/api/v1/admin/dead-letters", {"limit": 2}).json()
    second = staff.get(first["next"]).json()

    assert "count" not in first
    assert [letter["id"] for letter in first["results"] + second["results"]] == [
        letter.pk for letter in reversed(letters)
    ]
    assert second["next"] is None
