"""The integration tier: real PostgreSQL, real RabbitMQ, real Celery worker processes.

Nothing here skips: a missing server fails the tier. Data is committed (workers are other
processes) and never flushed between tests, so every test makes its own uniquely named users.
"""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from kombu import Connection

from config.celery import DEAD_LETTER_QUEUE, TASK_QUEUES
from pipeline.models import Submission
from tests.support.fake_llm import FakeLLM
from tests.support.stack import WorkerFleet, wait_until


@pytest.fixture(scope="session")
def live_db(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        assert connection.vendor == "postgresql", (
            f"the integration tier needs PostgreSQL (DATABASE_URL), got {connection.vendor}"
        )
        yield


@pytest.fixture(scope="session")
def broker(live_db):
    """The real RabbitMQ, with every pipeline queue declared and emptied."""
    url = settings.CELERY_BROKER_URL
    assert url.startswith("amqp"), f"the integration tier needs RabbitMQ, got {url}"
    with Connection(url, connect_timeout=5) as conn:
        conn.ensure_connection(max_retries=3)
        channel = conn.default_channel
        for queue in (*TASK_QUEUES, DEAD_LETTER_QUEUE):
            queue(channel).declare()
            queue(channel).purge()
    return url


@pytest.fixture(scope="session")
def fleet(broker):
    workers = WorkerFleet()
    yield workers
    workers.stop_all()


@pytest.fixture
def worker(fleet):
    """One worker with the default, offline heuristic judge."""
    return fleet.ensure(1)[0]


@pytest.fixture(scope="session")
def fake_llm():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture
def llm_worker(fleet, fake_llm):
    """One worker whose judge is the OpenAI-compatible client, talking to ``fake_llm``."""
    return fleet.ensure(
        1,
        SKILLGATE_JUDGE="openai",
        SKILLGATE_LLM_BASE_URL=fake_llm.base_url,
        SKILLGATE_LLM_TIMEOUT_S="60",
    )[0]


@pytest.fixture
def author(live_db):
    return get_user_model().objects.create_user(f"it-{uuid.uuid4().hex[:10]}", password="pw")


def wait_for_state(submission_id, states, timeout: float = 60) -> Submission:
    wanted = {str(s) for s in states}

    def reached():
        submission = Submission.objects.get(pk=submission_id)
        return submission if submission.state in wanted else None

    return wait_until(reached, timeout, message=f"submission {submission_id} to reach {wanted}")
