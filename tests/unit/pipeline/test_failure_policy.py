"""What is retried and against which budget, what each failure is called, and how often the
sweeps run."""

from __future__ import annotations

import socket
import ssl

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import OperationalError
from django_celery_beat.models import PeriodicTask
from kombu.exceptions import OperationalError as BrokerOperationalError

from grading.errors import JudgeOutputInvalid, JudgeProviderError, JudgeUnreachable
from pipeline.errors import classify
from pipeline.services import retries, schedules
from pipeline.services.retries import Budget, decide
from pipeline.sources.errors import SourceRejected, SourceUnavailable
from pipeline.sources.git import _classify_fetch_error


@pytest.fixture
def budgets(settings):
    settings.SKILLGATE_STEP_MAX_RETRIES = 3
    settings.SKILLGATE_RETRY_BACKOFF_S = 2
    settings.SKILLGATE_INFRA_RETRY_FLOOR_S = 5
    settings.SKILLGATE_INFRA_RETRY_MAX_S = 30
    settings.SKILLGATE_INFRA_WAIT_S = 1800
    return settings


def test_our_database_or_broker_failing_never_spends_the_submissions_retries(budgets):
    budget = Budget(failures=2)
    for exc in (OperationalError("server closed"), BrokerOperationalError("refused")):
        decision = decide(exc, budget, now=1000.0)
        assert decision.retry
        assert decision.budget.failures == 2
        assert decision.budget.waiting_since == 1000.0
        assert 5 <= decision.countdown <= 5


def test_infrastructure_waits_have_a_floor_grow_to_a_cap_and_end_at_the_budget(budgets):
    since = Budget(waiting_since=0.0)
    countdowns = [decide(OperationalError(), since, now=t).countdown for t in (1, 6, 16, 40, 600)]
    assert all(c >= 5 for c in countdowns), "never sooner than the floor"
    assert countdowns[-1] <= 30
    assert max(countdowns) > 10, "the wait grows while the outage lasts"
    assert not decide(OperationalError(), since, now=1800).retry


def test_failures_about_the_submission_count_and_give_up_after_the_budget(budgets):
    budget = Budget()
    waits = []
    for _ in range(3):
        decision = decide(JudgeProviderError("503", status=503), budget, now=0)
        assert decision.retry
        waits.append(decision.countdown)
        budget = decision.budget
    assert [round(w) for w in waits] != [0, 0, 0]
    assert 1 <= waits[0] <= 2 and 2 <= waits[1] <= 4 and 4 <= waits[2] <= 8
    final = decide(JudgeProviderError("503", status=503), budget, now=0)
    assert (final.retry, final.budget.failures) == (False, 4)


def test_a_bug_is_not_retried(budgets):
    assert not decide(ValueError("bad"), Budget(), now=0).retry


def test_the_budget_travels_in_headers_across_retries():
    budget = Budget(failures=2, waiting_since=12.5)
    assert Budget.from_headers(budget.headers()) == budget
    assert Budget.from_headers(None) == Budget()
    assert retries.FAILURES_HEADER in budget.headers()


@pytest.mark.parametrize(
    ("stderr", "error_class"),
    [
        ("fatal: unable to access 'https://h/': Could not resolve host: h", "dns_failure"),
        ("fatal: unable to access 'https://h/': Failed to connect to h port 443 after 0 ms: "
         "Couldn't connect to server", "connection_refused"),
        ("fatal: unable to access 'https://h/': Connection refused", "connection_refused"),
        ("fatal: unable to access 'https://h/': server certificate verification failed. "
         "CAfile: none CRLfile: none", "tls_error"),
        ("fatal: unable to access 'https://h/': gnutls_handshake() failed", "tls_error"),
        ("fatal: unable to access 'https://h/': The requested URL returned error: 502",
         "http_5xx"),
        ("fatal: unable to access 'https://h/': The requested URL returned error: 429",
         "http_4xx"),
        ("fatal: unable to access 'https://h/': Operation timed out after 30000 ms",
         "fetch_timeout"),
        ("fatal: the remote end hung up unexpectedly", "connection_failed"),
    ],
)  # fmt: skip
def test_a_failed_fetch_is_classified_by_what_failed(stderr, error_class):
    error = _classify_fetch_error(stderr, "main")
    assert isinstance(error, SourceUnavailable)
    assert error.error_class == error_class
    assert classify(error, "RECEIVED") == error_class


def test_a_missing_repository_is_the_authors_to_fix_not_a_host_failure():
    error = _classify_fetch_error(
        "fatal: unable to access 'https://h/': The requested URL returned error: 404", "main"
    )
    assert isinstance(error, SourceRejected) and error.field == "repo_url"


def test_an_unreachable_judge_is_classified_by_the_cause_of_the_failure():
    def unreachable(cause: BaseException) -> str:
        try:
            raise RuntimeError("connection error") from cause
        except RuntimeError as wrapped:
            return JudgeUnreachable("cannot reach", cause=wrapped).classification

    assert unreachable(socket.gaierror(-2, "Name or service not known")) == "dns_failure"
    assert unreachable(ConnectionRefusedError(111, "Connection refused")) == "connection_refused"
    assert unreachable(ssl.SSLError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")) == "tls_error"
    assert unreachable(OSError("something else")) == "connection_failed"
    assert JudgeProviderError("HTTP 503", status=503).classification == "http_5xx"
    assert JudgeProviderError("HTTP 400", status=400).classification == "http_4xx"
    assert classify(JudgeOutputInvalid("garbage"), "TIER2_SCANNING") == "judge_invalid_output"


def test_a_step_running_out_of_time_is_named_by_its_step():
    assert classify(SoftTimeLimitExceeded(), "TIER2_SCANNING") == "judge_timeout"
    assert classify(SoftTimeLimitExceeded(), "TIER1_SCANNING") == "scan_timeout"
    assert classify(OperationalError("gone"), "TIER2_SCANNING") == "infrastructure"


@pytest.mark.django_db
def test_the_stuck_sweep_runs_every_third_of_the_threshold_and_follows_the_setting(settings):
    settings.SKILLGATE_STUCK_AFTER_S = 300
    schedules.sync()
    stuck = PeriodicTask.objects.get(task="pipeline.sweeps.recover_stuck")
    assert (stuck.interval.every, stuck.interval.period) == (100, "seconds")
    assert PeriodicTask.objects.filter(task="pipeline.sweeps.reconcile_dead_letters").exists()

    settings.SKILLGATE_STUCK_AFTER_S = 60
    assert schedules.sync() == ["Recover stuck submissions"]
    stuck.refresh_from_db()
    assert stuck.interval.every == 20
    assert schedules.sync() == [], "in step: nothing to change"
