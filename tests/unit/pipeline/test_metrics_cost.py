"""/metrics and the queue metrics API cost a fixed number of queries, whatever the history: a
regression that aggregates the tables again fails here, not in production."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pipeline.roles import OPERATORS_GROUP
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.services.timeouts import record_timeout
from pipeline.states import State
from tests.support.skills import tier1_failing_files
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

# The queries each page runs (the broker's queue depths are read over AMQP, not counted);
# /metrics adds one for running re-scan campaigns (their counters), one for rule precision and
# one for the SLA timeouts (an index count of their audit trigger).
# Each read of a figure starts with a fold of the changes noted since the last one (one query:
# six on /metrics, four on the API).
METRICS_QUERIES = 27
API_QUERIES = 16
METRICS_API = "/api/v1/admin/queue/metrics"


@pytest.fixture
def operator_api(make_user, client_for):
    operator = make_user("operator", staff=True)
    operator.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    return client_for(operator)


def add_history(author, count: int, tag: str) -> None:
    for index in range(count):
        files = tier1_failing_files(f"fail-{tag}-{index}") if index % 3 == 0 else None
        submission = submission_in(State.RECEIVED, author, name=f"s-{tag}-{index}", files=files)
        for name, step in (
            ("pipeline.scan", steps.run_intake_and_scan),
            ("pipeline.judge", steps.run_judge),
            ("pipeline.publish", steps.run_publish),
        ):
            step(str(submission.pk), StepContext(name, f"{tag}-{index}-{name}", "test@host"))
    submission_in(State.NEEDS_REVIEW, author, name=f"waiting-{tag}")
    record_timeout("judge_timeout", 10.0)


def queries(get, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = get(url)
    assert response.status_code == 200
    return len(captured)


def test_the_metrics_cost_the_same_queries_for_any_history(make_user, operator_api):
    author = make_user()
    add_history(author, 1, "a")
    small = (queries(Client().get, "/metrics"), queries(operator_api.get, METRICS_API))
    add_history(author, 6, "b")
    large = (queries(Client().get, "/metrics"), queries(operator_api.get, METRICS_API))
    assert small == large == (METRICS_QUERIES, API_QUERIES)
