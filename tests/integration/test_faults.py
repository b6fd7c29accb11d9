"""Nothing lost, nothing stuck: faults injected into the real stack (RabbitMQ, PostgreSQL and
Celery worker processes), and what the pipeline does about them."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.utils import timezone
from kombu import Connection, Exchange, Producer

from config.celery import DEAD_LETTER_QUEUE, SCAN_QUEUE, TASK_QUEUES
from pipeline.models import DeadLetter, ScanResult, Submission
from pipeline.services import sweeps
from pipeline.services.dead_letter_queue import KEY_HEADER
from pipeline.states import State
from registry.models import SkillVersion
from tests.integration.conftest import wait_for_state
from tests.support.skills import skill_md
from tests.support.stack import rabbitmq, wait_until
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.integration

DONE = (State.PUBLISHED, State.REJECTED, State.TIER1_FAILED, State.NEEDS_REVIEW)


@pytest.fixture
def submit(author, client_for, settings):
    client = client_for(author)

    def post(name: str, description: str = "Keeps tidy notes.") -> dict:
        body = {"files": {"SKILL.md": skill_md(name, description)}}
        response = client.post(
            "/api/v1/submissions", data=json.dumps(body), content_type="application/json"
        )
        assert response.status_code == 201, response.json()
        return response.json()

    return post


def marker() -> str:
    return f"marker{uuid.uuid4().hex[:12]}"


def transitions_into(submission: Submission) -> Counter:
    return Counter(submission.events.values_list("to_state", flat=True))


def dlq_task_ids(broker_url: str) -> list[str | None]:
    """Task ids of the messages sitting in submission-dlq (read and requeued): a give-up's
    record names it in its body, a message the broker dead-lettered in its headers."""
    ids: list[str | None] = []
    with Connection(broker_url) as conn:
        queue = DEAD_LETTER_QUEUE(conn.default_channel)
        messages = []
        while (message := queue.get(no_ack=False)) is not None:
            messages.append(message)
            if KEY_HEADER in (message.headers or {}):
                ids.append(json.loads(message.body or "{}")["task_id"])
            else:
                ids.append(message.headers.get("id"))
        for message in messages:
            message.requeue()
    return ids


def scan_messages_by_submission(broker_url: str) -> Counter:
    """How many messages in the scan queue name each submission (read and requeued). The
    integration database is never flushed, so submissions an earlier test left in flight may
    be recovered by the same sweep: a test counts the messages of its own submissions."""
    counts: Counter = Counter()
    with Connection(broker_url) as conn:
        queue = next(q for q in TASK_QUEUES if q.name == SCAN_QUEUE)(conn.default_channel)
        held = []
        while (message := queue.get(no_ack=False)) is not None:
            held.append(message)
            args, _kwargs, _embed = json.loads(message.body or "[[null], {}, {}]")
            counts[args[0]] += 1
        for message in held:
            message.requeue()
    return counts


def test_a_worker_child_killed_mid_judge_is_redelivered_and_judged_once(
    llm_worker, fake_llm, submit
):
    tag = marker()
    fake_llm.on(tag, delay_s=30, first_calls=1)
    created = submit(f"kill-{tag[-8:]}", f"Keeps notes {tag}.")
    wait_until(lambda: fake_llm.calls_with(tag) >= 1, 30, message="the judge to call the LLM")
    for pid in llm_worker.child_pids():
        os.kill(pid, signal.SIGKILL)

    submission = wait_for_state(created["id"], DONE, timeout=90)
    assert submission.state == State.PUBLISHED
    assert ScanResult.objects.filter(submission=submission, tier=2).count() == 1
    assert transitions_into(submission)[State.AUTO_APPROVED] == 1
    judge_attempts = list(
        submission.attempts.filter(task_name="pipeline.judge").order_by("started_at")
    )
    assert [(a.status, a.error_class) for a in judge_attempts] == [
        ("failed", "worker_lost"),
        ("succeeded", ""),
    ]
    assert judge_attempts[0].task_id == judge_attempts[1].task_id


def test_a_worker_killed_between_steps_loses_nothing(fleet, submit):
    fleet.ensure(1, queues=SCAN_QUEUE)
    created = submit(f"between-{uuid.uuid4().hex[:8]}")
    wait_for_state(created["id"], [State.TIER2_SCANNING], timeout=30)
    fleet.kill_all()

    fleet.ensure(1)
    submission = wait_for_state(created["id"], DONE, timeout=60)
    assert submission.state == State.PUBLISHED
    assert [e.to_state for e in submission.events.all()] == [
        "RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "AUTO_APPROVED", "PUBLISHED",
    ]  # fmt: skip
    assert ScanResult.objects.filter(submission=submission).count() == 2


def test_a_dropped_database_connection_during_a_step_is_retried(llm_worker, fake_llm, submit):
    tag = marker()
    fake_llm.on(tag, delay_s=3, first_calls=1)
    created = submit(f"dbdrop-{tag[-8:]}", f"Keeps notes {tag}.")
    wait_until(lambda: fake_llm.calls_with(tag) >= 1, 30, message="the judge to call the LLM")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )

    submission = wait_for_state(created["id"], DONE, timeout=60)
    assert submission.state == State.PUBLISHED
    judge_attempts = submission.attempts.filter(task_name="pipeline.judge").order_by("started_at")
    assert [(a.status, a.error_class) for a in judge_attempts] == [
        ("failed", "infrastructure"),
        ("succeeded", ""),
    ]
    assert ScanResult.objects.filter(submission=submission, tier=2).count() == 1


def test_a_judge_failing_every_time_ends_in_the_dead_letter_queue(
    llm_worker, fake_llm, submit, broker
):
    tag = marker()
    fake_llm.on(tag, status=500)
    created = submit(f"fail-{tag[-8:]}", f"Keeps notes {tag}.")

    submission = wait_for_state(created["id"], DONE, timeout=120)
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("error", "RETRIES_EXHAUSTED")
    assert "judge failed 4 time(s) (the server answered with a server error (HTTP 5xx))" in (
        submission.outcome.message
    )
    attempts = submission.attempts.filter(task_name="pipeline.judge").order_by("started_at")
    assert [(a.attempt, a.error_class) for a in attempts] == [(n, "http_5xx") for n in (1, 2, 3, 4)]
    letter = DeadLetter.objects.get(submission=submission)
    assert (letter.reason, letter.task_name, letter.error_class, letter.attempts) == (
        "retries_exhausted",
        "pipeline.judge",
        "http_5xx",
        4,
    )
    assert (letter.payload["retries"], letter.payload["failures"]) == (3, 4)
    wait_until(
        lambda: letter.task_id in dlq_task_ids(broker),
        15,
        message="the message to reach submission-dlq",
    )
    event = submission.events.get(to_state=State.REJECTED)
    assert (event.trigger, event.actor_type) == ("retries-exhausted", "system")
    assert (event.metadata["dead_letter_id"], event.metadata["attempts"]) == (letter.pk, 4)


def test_poison_messages_are_dead_lettered_and_recorded_never_looped(worker, broker):
    poison = {
        "unknown task": ("pipeline.no_such_step", "application/json", b'[["x"], {}, {}]'),
        "undecodable": ("pipeline.scan", "application/json", b"{not json"),
        "forbidden serializer": ("pipeline.scan", "application/x-python-serialize", b"\x80\x04."),
    }
    sent = {}
    with Connection(broker) as conn:
        producer = Producer(conn.default_channel, exchange=Exchange("submission-pipeline"))
        for label, (task, content_type, body) in poison.items():
            task_id = str(uuid.uuid4())
            producer.publish(
                body, routing_key=SCAN_QUEUE, content_type=content_type,
                content_encoding="binary" if content_type.endswith("serialize") else "utf-8",
                headers={"task": task, "id": task_id, "lang": "py", "argsrepr": "('x',)"},
            )  # fmt: skip
            sent[label] = task_id

    recorded = wait_until(
        lambda: (
            (
                DeadLetter.objects.filter(task_id__in=sent.values()).count() == len(sent)
                and list(DeadLetter.objects.filter(task_id__in=sent.values()))
            )
            or None
        ),
        30,
        message="a dead-letter record for each poison message",
    )
    assert {letter.reason for letter in recorded} == {"poison"}
    wait_until(
        lambda: set(sent.values()) <= set(dlq_task_ids(broker)),
        15,
        message="every poison message in submission-dlq",
    )
    time.sleep(2)
    assert DeadLetter.objects.filter(task_id__in=sent.values()).count() == len(sent)


def test_two_sweeps_at_once_dispatch_each_stuck_submission_once(fleet, author, broker):
    fleet.stop_all()
    with Connection(broker) as conn:
        for queue in TASK_QUEUES:
            queue(conn.default_channel).purge()
    stuck = [
        submission_in(State.TIER1_SCANNING, author, name=f"stuck-{i}-{uuid.uuid4().hex[:6]}")
        for i in range(20)
    ]
    Submission.objects.filter(pk__in=[s.pk for s in stuck]).update(
        state_changed_at=timezone.now() - timedelta(minutes=10)
    )
    barrier = threading.Barrier(2)
    reports = []

    def sweep() -> None:
        barrier.wait()
        try:
            reports.append(sweeps.recover_stuck())
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    ids = {str(s.pk) for s in stuck}
    acted = [pk for report in reports for pk in report.acted if pk in ids]
    assert sorted(acted) == sorted(ids)
    dispatched = scan_messages_by_submission(broker)
    assert {pk: dispatched[pk] for pk in ids} == dict.fromkeys(ids, 1)
    assert set(
        Submission.objects.filter(pk__in=ids).values_list("recovery_attempts", flat=True)
    ) == {1}


def test_a_submission_accepted_while_the_broker_is_down_is_processed_once_it_is_back(
    worker, submit
):
    rabbitmq("stop")
    try:
        started = time.monotonic()
        created = submit(f"brokerdown-{uuid.uuid4().hex[:8]}")
        accepted_in = time.monotonic() - started
        submission = Submission.objects.get(pk=created["id"])
        assert (submission.state, submission.dispatched_at) == (State.RECEIVED, None)
    finally:
        rabbitmq("start")
    assert accepted_in < 15

    def delivered() -> bool:
        sweeps.dispatch_undelivered(timezone.now() + timedelta(minutes=1))
        return Submission.objects.get(pk=created["id"]).dispatched_at is not None

    wait_until(delivered, 60, interval=2, message="the undelivered sweep to send it")
    submission = wait_for_state(created["id"], DONE, timeout=90)
    assert submission.state == State.PUBLISHED


def test_a_rabbitmq_restart_during_a_batch_of_200_loses_and_duplicates_nothing(
    fleet, client_for, live_db
):
    fleet.ensure(2)
    authors = [
        client_for(get_user_model().objects.create_user(f"batch-{uuid.uuid4().hex[:10]}"))
        for _ in range(4)
    ]
    ids: list[str] = []

    def post(i: int) -> None:
        body = {"files": {"SKILL.md": skill_md(f"batch-{i}-{uuid.uuid4().hex[:6]}")}}
        response = authors[i % len(authors)].post(
            "/api/v1/submissions", data=json.dumps(body), content_type="application/json"
        )
        assert response.status_code == 201, response.json()
        ids.append(response.json()["id"])

    for i in range(200):
        post(i)
        if i == 60:
            rabbitmq("restart")

    def all_done() -> bool:
        sweeps.dispatch_undelivered(timezone.now() + timedelta(minutes=1))
        sweeps.recover_stuck(stuck_after=timedelta(seconds=30))
        states = Counter(Submission.objects.filter(pk__in=ids).values_list("state", flat=True))
        return sum(states[s] for s in DONE) == len(ids)

    wait_until(all_done, 300, interval=5, message="all 200 submissions to finish")
    for submission in Submission.objects.filter(pk__in=ids):
        into = transitions_into(submission)
        assert max(into.values()) == 1, (submission.pk, into)
        assert ScanResult.objects.filter(submission=submission, is_late=False).count() <= 2
        assert SkillVersion.objects.filter(submission=submission).count() <= 1
    assert Counter(Submission.objects.filter(pk__in=ids).values_list("state", flat=True)) == {
        State.PUBLISHED: 200
    }
