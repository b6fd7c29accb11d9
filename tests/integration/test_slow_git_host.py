"""Issue 9 item 13: a slow git host cannot stall the API.

The fetch is the pipeline's intake step, in a worker: the web process only checks the URL's
grammar. Against a real git host on 127.0.0.1 that accepts connections and never answers, ten
git submissions are accepted at once, and the real gunicorn (2 sync workers, as in production)
keeps answering other requests within its usual latency while the worker waits on the host;
each submission then ends REJECTED with the SOURCE_UNAVAILABLE error outcome.
"""

from __future__ import annotations

import json
import statistics
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from rest_framework.authtoken.models import Token

from pipeline.models import Submission
from pipeline.states import State
from tests.support.slow_git import HangingGitHost
from tests.support.stack import WebServer, stack_environment, wait_until

pytestmark = pytest.mark.integration

HANGING_SUBMISSIONS = 10
PROBES = 20


@pytest.fixture
def slow_host():
    server = HangingGitHost().start()
    yield server
    server.stop()


@pytest.fixture
def stack(fleet, slow_host):
    env = {"SKILLGATE_GIT_ALLOWED_HOSTS": slow_host.host, "SKILLGATE_GIT_TIMEOUT_S": "3"}
    fleet.ensure(1, **env)
    web = WebServer(stack_environment(**env))
    web.start()
    yield web
    web.stop()


def request(url: str, token: str, body: dict | None = None) -> tuple[int, float]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url,
        data=data,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    started = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as response:
        response.read()
        return response.status, time.perf_counter() - started


def probe_latencies(web: WebServer, token: str) -> list[float]:
    latencies = []
    for _ in range(PROBES):
        status, elapsed = request(f"{web.url}/api/v1/submissions?limit=5", token)
        assert status == 200
        latencies.append(elapsed)
    return latencies


def test_hanging_git_fetches_leave_the_api_answering(stack, slow_host, author):
    token = Token.objects.create(user=author).key
    before = probe_latencies(stack, token)

    with ThreadPoolExecutor(HANGING_SUBMISSIONS) as pool:
        posted = list(
            pool.map(
                lambda n: request(
                    f"{stack.url}/api/v1/submissions",
                    token,
                    {"repo_url": slow_host.url("slow", f"skill-{n}")},
                ),
                range(HANGING_SUBMISSIONS),
            )
        )
    assert [status for status, _ in posted] == [201] * HANGING_SUBMISSIONS
    assert max(elapsed for _, elapsed in posted) < 5
    wait_until(lambda: slow_host.accepted >= 1, 30, message="the worker to reach the git host")

    during = probe_latencies(stack, token)
    assert slow_host.accepted >= 1
    usual = statistics.median(before)
    assert statistics.median(during) < 2 * usual + 0.05, (before, during)
    assert max(during) < max(before) + 0.5, (before, during)

    ids = list(
        Submission.objects.filter(submitter=author, repo_host=slow_host.host).values_list(
            "pk", flat=True
        )
    )
    assert len(ids) == HANGING_SUBMISSIONS
    wait_until(
        lambda: not Submission.objects.filter(pk__in=ids, state=State.RECEIVED).exists(),
        240,
        interval=1,
        message="every hanging submission to be given up on",
    )
    outcomes = set(
        Submission.objects.filter(pk__in=ids).values_list("state", "outcome_kind", "outcome_code")
    )
    assert outcomes == {(State.REJECTED, "error", "SOURCE_UNAVAILABLE")}
