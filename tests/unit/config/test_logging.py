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
