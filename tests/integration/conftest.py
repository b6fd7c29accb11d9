"""The integration tier: real PostgreSQL, real RabbitMQ, real Celery worker processes.

Nothing here skips: a missing server fails the tier. Data is committed (workers are other
processes) and never flushed between tests, so every test makes its own uniquely named users.
The stack fixtures (live_db, broker, fleet) are shared with the browser tier: tests/conftest.py.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from pipeline.models import Submission
from tests.support.fake_llm import FakeLLM
from tests.support.stack import wait_until


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
