"""An expected refusal is one line in the web log, not a traceback."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.fixture
def web_log():
    """What the console handler of the web process writes, captured."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    records: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            for log_filter in handler.filters:
                assert isinstance(log_filter, logging.Filter)  # config.logging's, by LOGGING
                log_filter.filter(record)
            records.append(handler.format(record))

    capture = Capture()
    logging.getLogger().addHandler(capture)
    yield records
    logging.getLogger().removeHandler(capture)


def test_a_403_is_logged_without_a_traceback(make_user, web_log):
    client = Client()
    client.force_login(make_user("someone", staff=True))
    response = client.get("/admin/reviews/review/00000000-0000-0000-0000-000000000000/change/")
    assert response.status_code == 403
    assert web_log, "the refusal is logged"
    assert not any("Traceback" in line for line in web_log), web_log


# --- Sweeps log at INFO only when they act ---------------------------------------------------


def celery_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]


def test_celerys_routine_lines_about_sweeps_are_dropped_and_steps_keep_theirs(caplog):
    from celery.app import trace

    def beat_info(*args: object) -> None:
        """What beat logs as it sends a task (``celery.beat``'s ``info``)."""
        logging.getLogger("celery.beat").info(*args)

    caplog.set_level(logging.INFO)
    for name in ("pipeline.sweeps.dispatch_undelivered", "reviews.sweeps.flag_overdue"):
        trace.info(trace.LOG_RECEIVED, {"name": name, "id": "1", "args": "", "kwargs": ""})
        trace.info(trace.LOG_SUCCESS, {"name": name, "id": "1", "runtime": 0.01, "return_value": 0})
        beat_info("Scheduler: Sending due task %s (%s)", "every 30 s", name)
    assert celery_lines(caplog) == []

    trace.info(
        trace.LOG_SUCCESS,
        {"name": "pipeline.scan", "id": "2", "runtime": 0.1, "return_value": None},
    )
    beat_info("Scheduler: Sending due task %s (%s)", "daily", "registry.report")
    assert len(celery_lines(caplog)) == 2


def test_a_sweep_that_acts_says_what_it_did_and_one_that_finds_nothing_says_nothing(
    make_user, caplog
):
    from django.utils import timezone

    from pipeline.models import Submission
    from pipeline.states import State
    from pipeline.tasks import enforce_deadlines
    from tests.unit.pipeline.factories import submission_in

    caplog.set_level(logging.INFO)
    enforce_deadlines.apply()
    assert [m for m in celery_lines(caplog) if "sweeps" in m] == []

    overdue = submission_in(State.TIER2_SCANNING, make_user())
    Submission.objects.filter(pk=overdue.pk).update(deadline_at=timezone.now())
    enforce_deadlines.apply()
    assert [m for m in celery_lines(caplog) if "sweeps" in m] == [
        "pipeline.sweeps.enforce_deadlines: timed_out 1"
    ]
