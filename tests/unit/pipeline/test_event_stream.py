"""``GET /submissions/{id}/stream``: the audit trail as server-sent events, each sent once,
ending when the submission stops moving on its own, or at the stream's time bound, after which
``Last-Event-ID`` resumes exactly where it stopped."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from pipeline import streams
from pipeline.models import SubmissionStateEvent
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import State
from tests.support.skills import tier1_failing_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db


def parse(text: str) -> list[dict]:
    """The stream's events as dicts (id, event, data); comments and `retry:` left out."""
    events = []
    for block in text.split("\n\n"):
        fields: dict = {}
        for line in block.splitlines():
            if line.startswith(":") or line.startswith("retry:"):
                continue
            key, _, value = line.partition(": ")
            fields[key] = json.loads(value) if key == "data" else value
        if fields:
            events.append(fields)
    return events


def read(response) -> str:
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def author(make_user):
    return make_user("arthur")


@pytest.fixture
def api(author, client_for) -> APIClient:
    return client_for(author)


def failed_submission(author):
    submission = submission_in(State.RECEIVED, author, files=tier1_failing_files(), name="setup")
    steps.run_intake_and_scan(str(submission.pk), StepContext("pipeline.scan"))
    return submission


def test_a_finished_submission_streams_its_trail_then_its_end(api, author):
    submission = failed_submission(author)
    response = api.get(
        f"/api/v1/submissions/{submission.pk}/stream", HTTP_ACCEPT="text/event-stream"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    text = read(response)
    assert text.startswith("retry: 1000\n\n")
    events = parse(text)
    ids = [int(e["id"]) for e in events]
    trail = list(SubmissionStateEvent.objects.filter(submission=submission).order_by("pk"))
    assert [e["data"]["to_state"] for e in events[:-1]] == [e.to_state for e in trail]
    assert ids[:-1] == [e.pk for e in trail] and ids == sorted(ids)
    end = events[-1]
    assert end["event"] == "end" and int(end["id"]) == trail[-1].pk
    assert end["data"]["state"] == "TIER1_FAILED"
    assert end["data"]["outcome"]["code"] == "TIER1_FAILED"


def test_last_event_id_resumes_after_the_event_it_names(api, author):
    submission = failed_submission(author)
    trail = list(SubmissionStateEvent.objects.filter(submission=submission).order_by("pk"))
    response = api.get(
        f"/api/v1/submissions/{submission.pk}/stream", HTTP_LAST_EVENT_ID=str(trail[0].pk)
    )
    events = parse(read(response))
    assert [e["data"]["to_state"] for e in events[:-1]] == [e.to_state for e in trail[1:]]


def follow_once(submission, after: int) -> str:
    """One stream that reads once and then finds its time up (a clock that jumps)."""
    readings = iter([0.0])

    def clock() -> float:
        return next(readings, 20.0)

    return "".join(
        streams.follow(
            submission.pk,
            after,
            lambda event: {"to_state": event.to_state},
            max_s=15,
            poll_s=0,
            clock=clock,
            sleep=lambda seconds: None,
        )
    )


def test_a_stream_ends_at_its_time_bound_and_the_next_one_goes_on(author):
    submission = submission_in(State.RECEIVED, author)
    text = follow_once(submission, 0)
    first = parse(text)
    assert [e["data"]["to_state"] for e in first] == ["RECEIVED"]
    assert text.rstrip().endswith("reconnect with Last-Event-ID to go on")

    steps.run_intake_and_scan(str(submission.pk), StepContext("pipeline.scan"))
    second = parse(follow_once(submission, int(first[-1]["id"])))
    assert [e["data"]["to_state"] for e in second] == ["TIER1_SCANNING", "TIER2_SCANNING"]

    steps.run_judge(str(submission.pk), StepContext("pipeline.judge"))
    steps.run_publish(str(submission.pk), StepContext("pipeline.publish"))
    third = parse(follow_once(submission, int(second[-1]["id"])))
    assert [e["data"].get("to_state") for e in third[:-1]] == ["AUTO_APPROVED", "PUBLISHED"]
    assert third[-1]["event"] == "end" and third[-1]["data"]["state"] == "PUBLISHED"


def test_a_submission_waiting_for_review_ends_the_stream(api, author):
    submission = submission_in(State.NEEDS_REVIEW, author)
    events = parse(read(api.get(f"/api/v1/submissions/{submission.pk}/stream")))
    assert events[-1]["event"] == "end"
    assert events[-1]["data"] == {"state": "NEEDS_REVIEW", "outcome": None}


def test_someone_elses_submission_is_not_found_in_the_streams_own_format(
    author, make_user, client_for
):
    submission = submission_in(State.PUBLISHED, author)
    response = client_for(make_user("stella")).get(
        f"/api/v1/submissions/{submission.pk}/stream", HTTP_ACCEPT="text/event-stream"
    )
    assert response.status_code == 404
    assert parse(response.content.decode())[0]["event"] == "error"


def test_a_malformed_last_event_id_is_a_400(api, author):
    submission = submission_in(State.PUBLISHED, author)
    response = api.get(f"/api/v1/submissions/{submission.pk}/stream", HTTP_LAST_EVENT_ID="x")
    assert response.status_code == 400
