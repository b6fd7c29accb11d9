"""How the pipeline treats failures, on the real stack: each failure in its own class end to end,
a deterministic Tier 1 time-out refused at once, and dead letters that are on the record (and in
step with submission-dlq) whether or not the database answered when the step gave up."""

from __future__ import annotations

import base64
import json
import random
import uuid

import pytest
from django.utils import timezone
from kombu import Connection

from config.celery import DEAD_LETTER_QUEUE, app
from pipeline.models import DeadLetter, Submission, TimeoutBucket
from pipeline.monitoring import dead_letter_queue_status
from pipeline.services import dead_letter_queue, dead_letters
from pipeline.services.failures import GiveUp
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.states import State
from tests.integration.conftest import wait_for_state
from tests.support.skills import skill_md
from tests.support.stack import free_port, wait_until
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.integration

DONE = (State.PUBLISHED, State.REJECTED, State.TIER1_FAILED, State.NEEDS_REVIEW)
# A host name with a label longer than DNS allows (63 characters): it cannot resolve, and the
# resolver refuses it without sending a query anywhere.
UNRESOLVABLE_HOST = f"{'n' * 64}.invalid"


def large_scripts(files: int = 60, lines: int = 1500) -> dict[str, str]:
    """A benign bundle of ~5 MB of shell lines: Tier 1 needs well over a second for it, on any
    engine, since it reads every byte."""
    rng = random.Random(7)
    bundle = {"SKILL.md": skill_md(f"big-{uuid.uuid4().hex[:6]}", "Runs the build scripts.")}
    for index in range(files):
        bundle[f"scripts/step{index}.sh"] = "\n".join(
            f"echo {base64.b64encode(rng.randbytes(30)).decode()} > /tmp/part{index}-{line}"
            if line % 2
            else f"curl -s https://example{line}.com/api/v{index} -o out{line}.json"
            for line in range(lines)
        )
    return bundle


def test_a_tier1_scan_that_runs_out_of_time_is_refused_at_once_not_retried(fleet, author, settings):
    fleet.ensure(1, SKILLGATE_SCAN_TIME_LIMIT_S="0.5")
    settings.SKILLGATE_MAX_CONTENT_BYTES = 20 * 1024 * 1024
    submission = create_submission(author, SubmissionRequest(files=large_scripts()), trigger="test")

    submission = wait_for_state(submission.pk, DONE, timeout=90)
    assert submission.state == State.TIER1_FAILED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("verdict", "TIER1_TIME_LIMIT")
    assert "0.5-second limit" in submission.outcome.message
    assert "submit again" in submission.outcome.message
    scans = submission.attempts.filter(task_name="pipeline.scan")
    assert scans.count() == 1, "a deterministic time-out is never retried"
    assert not DeadLetter.objects.filter(submission=submission).exists()
    event = submission.events.get(to_state=State.TIER1_FAILED)
    assert (event.trigger, event.metadata["time_limit_s"]) == ("tier1-time-limit", 0.5)
    assert TimeoutBucket.objects.filter(classification="scan_timeout").exists()


def test_a_git_host_name_that_does_not_resolve_is_a_dns_failure_end_to_end(fleet, author, settings):
    fleet.ensure(1, SKILLGATE_GIT_ALLOWED_HOSTS=UNRESOLVABLE_HOST, SKILLGATE_STEP_MAX_RETRIES="1")
    settings.SKILLGATE_GIT_ALLOWED_HOSTS = [UNRESOLVABLE_HOST]
    submission = create_submission(
        author,
        SubmissionRequest(repo_url=f"https://{UNRESOLVABLE_HOST}/someorg/skills"),
        trigger="test",
    )

    submission = wait_for_state(submission.pk, DONE, timeout=60)
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("error", "SOURCE_UNAVAILABLE")
    assert "after 2 attempt(s): the host name could not be resolved" in submission.outcome.message
    assert "Could not resolve host" in submission.outcome.message
    attempts = submission.attempts.filter(task_name="pipeline.scan").order_by("attempt")
    assert [(a.attempt, a.error_class) for a in attempts] == [
        (1, "dns_failure"),
        (2, "dns_failure"),
    ]
    letter = DeadLetter.objects.get(submission=submission)
    assert (letter.error_class, letter.attempts, letter.status) == ("dns_failure", 2, "open")
    assert TimeoutBucket.objects.filter(classification="dns_failure").exists()
    assert not TimeoutBucket.objects.filter(classification="fetch_timeout").exists()


def dlq_messages(broker: str) -> list[dict]:
    """The dead-letter records in submission-dlq (read, then put back)."""
    records = []
    with Connection(broker) as conn:
        queue = DEAD_LETTER_QUEUE(conn.default_channel)
        held = []
        while (message := queue.get(no_ack=False)) is not None:
            held.append(message)
            if dead_letter_queue.KEY_HEADER in (message.headers or {}):
                records.append(json.loads(message.body or "{}"))
        for message in held:
            message.requeue()
    return records


@pytest.fixture
def empty_dlq(broker, fleet):
    fleet.stop_all()  # no beat here, but a worker could be asked for a pass
    with Connection(broker) as conn:
        DEAD_LETTER_QUEUE(conn.default_channel).purge()
    DeadLetter.objects.filter(status="open").update(status="dismissed", close_reason="test")
    return broker


def test_a_give_up_the_database_never_saw_is_recorded_from_submission_dlq(empty_dlq, author):
    waiting = submission_in(State.TIER2_SCANNING, author, name=f"dl-{uuid.uuid4().hex[:6]}")
    give_up = GiveUp(
        key=f"{uuid.uuid4()}:3",
        task_name="pipeline.judge",
        task_id=str(uuid.uuid4()),
        submission_id=str(waiting.pk),
        reason="retries_exhausted",
        error_class="http_5xx",
        error_message="JudgeProviderError: judge endpoint answered HTTP 503",
        attempts=4,
        failures=4,
        at=timezone.now().isoformat(),
    )
    dead_letter_queue.publish(give_up)  # what a step does when the database is down
    assert dead_letter_queue_status()["difference"] == 1

    report = dead_letter_queue.reconcile()
    again = dead_letter_queue.reconcile()

    assert (report.recorded, report.kept, again.recorded, again.kept) == (1, 1, 0, 1)
    letter = DeadLetter.objects.get(message_key=give_up.key)
    assert (letter.error_class, letter.attempts, letter.status) == ("http_5xx", 4, "open")
    waiting.refresh_from_db()
    assert waiting.state == State.REJECTED
    assert waiting.outcome is not None
    assert "judge failed 4 time(s)" in waiting.outcome.message
    assert "the server answered with a server error (HTTP 5xx)" in waiting.outcome.message
    assert dead_letter_queue_status() == {"queue": 1, "open": 1, "difference": 0}
    assert [record["key"] for record in dlq_messages(empty_dlq)] == [give_up.key]

    result = dead_letters.dismiss(letter, "opal", "judge provider outage; authors resubmit")
    assert result.done
    dead_letter_queue.reconcile()
    assert dead_letter_queue_status() == {"queue": 0, "open": 0, "difference": 0}
    assert dead_letters.dismiss(letter, "opal", "again").message.startswith("already dismissed")


def test_a_dead_letter_whose_submission_has_ended_can_be_resolved_and_leaves_the_queue(
    empty_dlq, author
):
    published = submission_in(State.TIER2_SCANNING, author, name=f"dl-{uuid.uuid4().hex[:6]}")
    give_up = GiveUp(
        key=f"{uuid.uuid4()}:0",
        task_name="pipeline.judge",
        task_id=str(uuid.uuid4()),
        submission_id=str(published.pk),
        reason="retries_exhausted",
        error_class="judge_timeout",
        error_message="JudgeTimeout: no answer",
        attempts=4,
        failures=4,
        at=timezone.now().isoformat(),
    )
    dead_letter_queue.publish(give_up)
    dead_letter_queue.reconcile()
    letter = DeadLetter.objects.get(message_key=give_up.key)
    assert dead_letters.replay(letter, "opal").message.endswith("resolve the dead letter instead")

    assert dead_letters.resolve(letter, "opal").done
    dead_letter_queue.reconcile()
    assert dead_letter_queue_status() == {"queue": 0, "open": 0, "difference": 0}
    letter.refresh_from_db()
    assert (letter.status, letter.closed_by) == ("resolved", "opal")
    assert Submission.objects.get(pk=published.pk).state == State.REJECTED


def test_a_message_the_broker_dead_lettered_itself_is_recorded_once(empty_dlq, author):
    waiting = submission_in(State.TIER2_SCANNING, author, name=f"dl-{uuid.uuid4().hex[:6]}")
    task_id = str(uuid.uuid4())
    with Connection(empty_dlq) as conn:
        conn.Producer().publish(
            [[str(waiting.pk)], {}, {}],
            exchange="submission-dlx",
            routing_key="submission-dlq",
            serializer="json",
            headers={"task": "pipeline.judge", "id": task_id, "retries": 3,
                     "argsrepr": f"('{waiting.pk}',)"},
        )  # fmt: skip

    first, second = dead_letter_queue.reconcile(), dead_letter_queue.reconcile()

    assert (first.recorded, second.recorded, second.kept) == (1, 0, 1)
    letter = DeadLetter.objects.get(task_id=task_id)
    assert (letter.reason, letter.attempts, letter.error_class) == (
        "retries_exhausted",
        4,
        "unknown",
    )
    assert "dead-lettered by the broker" in letter.error_message
    waiting.refresh_from_db()
    assert waiting.state == State.REJECTED
    assert dead_letter_queue_status() == {"queue": 1, "open": 1, "difference": 0}
    assert [record["task_id"] for record in dlq_messages(empty_dlq)] == [task_id]


def test_an_open_dead_letter_missing_from_the_queue_gets_its_copy_back(empty_dlq, author):
    letter = DeadLetter.objects.create(
        task_name="pipeline.scan", reason="poison", message_key=f"lost-{uuid.uuid4().hex}"
    )
    DeadLetter.objects.filter(pk=letter.pk).update(
        created_at=timezone.now() - dead_letter_queue.MISSING_GRACE * 2
    )
    assert dead_letter_queue.reconcile().restored == 1
    assert dead_letter_queue_status() == {"queue": 1, "open": 1, "difference": 0}
    wait_until(lambda: dlq_messages(empty_dlq), 5, message="the copy in submission-dlq")


def test_a_sweep_waits_for_the_database_instead_of_being_dead_lettered(fleet, empty_dlq):
    closed = f"postgres://skillgate:skillgate@127.0.0.1:{free_port()}/nowhere"
    worker = fleet.ensure(
        1,
        DATABASE_URL=closed,
        SKILLGATE_INFRA_RETRY_FLOOR_S="0.2",
        SKILLGATE_INFRA_RETRY_MAX_S="0.5",
    )[0]
    mark = len(worker.log())
    try:
        app.send_task("pipeline.sweeps.enforce_deadlines")
        wait_until(
            lambda: worker.log()[mark:].count("pipeline.sweeps.enforce_deadlines") >= 6,
            30,
            message="the sweep to be retried again and again",
        )
        assert "Retry in" in worker.log()[mark:]
        assert dead_letter_queue.depth() == 0, "never dead-lettered for an outage"
    finally:
        fleet.stop_all()
