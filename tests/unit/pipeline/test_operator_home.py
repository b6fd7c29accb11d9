"""The admin home is the operator's health panel: workers and queues (the dead-letter queue
included), stale, stuck and open dead letters, failures by class over 24 hours with a small
chart each, SLA breaches and the oldest waiting review, every figure linking to its list; the
pipeline section comes first. People who do not operate the pipeline see the usual index."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from pipeline.models import DeadLetter, ProcessingAttempt, Submission
from pipeline.operator_home import bars, failures_by_class
from pipeline.roles import OPERATORS_GROUP
from pipeline.services.timeouts import record_timeout
from pipeline.states import State
from reviews.roles import REVIEWERS_GROUP
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db

HOME = reverse("admin:index")


@pytest.fixture(autouse=True)
def fresh_fleet(settings):
    """Every request asks the broker and the workers anew."""
    settings.SKILLGATE_WORKER_STATUS_TTL_S = 0
    settings.SKILLGATE_WORKER_PING_TIMEOUT_S = 0.2


@pytest.fixture
def operator(make_user):
    user = make_user("otto", staff=True)
    user.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    return user


def browse(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def failed_attempt(submission: Submission, error_class: str, message: str) -> ProcessingAttempt:
    now = timezone.now()
    record_timeout(error_class, 30_000, now)
    return ProcessingAttempt.objects.create(
        submission=submission,
        stage=submission.state,
        task_name="pipeline.scan",
        status=ProcessingAttempt.Status.FAILED,
        error_class=error_class,
        error_message=message,
        started_at=now,
        finished_at=now,
    )


def test_an_operator_opens_the_admin_on_the_health_panel_with_the_pipeline_first(operator):
    page = browse(operator).get(HOME).content.decode()
    assert 'id="health-panel"' in page
    panel, apps = page.split('id="health-panel"', 1)[1], page.split('class="app-', 1)[1]
    assert apps.startswith("pipeline "), "the pipeline section is the first one listed"
    assert page.index('id="health-panel"') < page.index('class="app-pipeline')
    for queue in ("submission-pipeline.scan", "submission-pipeline.judge", "submission-dlq"):
        assert f'data-queue="{queue}"' in panel
    for label in ("Stale", "Stuck", "Dead letters open", "SLA timeouts (24 h)", "Overdue reviews"):
        assert label in panel
    assert "<script" not in panel


def test_people_who_do_not_operate_the_pipeline_get_the_usual_index(make_user):
    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name=REVIEWERS_GROUP))
    page = browse(reviewer).get(HOME).content.decode()
    assert 'id="health-panel"' not in page


def test_without_workers_the_panel_says_so_and_counts_none_per_queue(operator):
    page = browse(operator).get(HOME).content.decode()
    assert re.search(r'id="workers-status">0 alive · down<', page)
    scan_row = page.split('data-queue="submission-pipeline.scan"', 1)[1].split("</tr>", 1)[0]
    assert scan_row.split('class="num">')[2].startswith("0<")  # consumers
    assert scan_row.split('class="num">')[3].startswith("0<")  # workers


def test_failures_by_class_link_to_the_failed_attempts_that_say_why(operator, make_user):
    author = make_user("ann")
    first = submission_in(State.TIER1_SCANNING, author, name="fetch-one")
    second = submission_in(State.TIER1_SCANNING, author, name="fetch-two")
    failed_attempt(first, "fetch_timeout", "git fetch: Could not resolve host: skills.invalid")
    failed_attempt(second, "fetch_timeout", "git fetch: Could not resolve host: skills.invalid")
    failed_attempt(second, "judge_timeout", "the judge did not answer within 60 s")

    client = browse(operator)
    page = client.get(HOME).content.decode()
    rows = re.findall(
        r'<tr data-class="([a-z_]+)">.*?href="([^"]+)".*?class="num">(\d+)<', page, re.S
    )
    assert [(name, int(count)) for name, _, count in rows] == [
        ("fetch_timeout", 2),
        ("judge_timeout", 1),
    ]
    chart = page.split('data-class="fetch_timeout"', 1)[1].split("</svg>", 1)[0]
    assert chart.count("<rect ") == 1, "one hour had failures: one bar"

    listing = client.get(rows[0][1].replace("&amp;", "&")).content.decode()
    assert "Could not resolve host: skills.invalid" in listing
    assert "fetch-one" in listing and "fetch-two" in listing
    assert "the judge did not answer" not in listing


def test_each_figure_links_to_the_list_behind_it(operator, make_user):
    author = make_user("ann")
    stuck = submission_in(State.TIER2_SCANNING, author, name="stuck-one")
    Submission.objects.filter(pk=stuck.pk).update(
        state_changed_at=timezone.now() - timedelta(minutes=30)
    )
    DeadLetter.objects.create(
        submission=stuck,
        task_name="pipeline.judge",
        reason=DeadLetter.Reason.RETRIES_EXHAUSTED,
        error_class="judge_timeout",
        error_message="the judge did not answer",
    )
    client = browse(operator)
    page = client.get(HOME).content.decode()
    figures = dict(
        (label, (int(value), url))
        for url, value, label in re.findall(
            r'<a href="([^"]+)"><strong class="health-value">(\d+)</strong> ([^<]+)</a>', page
        )
    )
    assert figures["Stale"][0] == 1 and figures["Stuck"][0] == 1
    assert figures["Dead letters open"][0] == 1
    for label in ("Stale", "Stuck", "Dead letters open", "SLA timeouts (24 h)"):
        listing = client.get(figures[label][1].replace("&amp;", "&"))
        assert listing.status_code == 200, label
    stuck_list = client.get(figures["Stuck"][1].replace("&amp;", "&")).content.decode()
    assert "stuck-one" in stuck_list
    letters = client.get(figures["Dead letters open"][1].replace("&amp;", "&")).content.decode()
    assert "judge_timeout" in letters
    dlq = page.split('data-queue="submission-dlq"', 1)[1].split("</tr>", 1)[0]
    assert f'href="{figures["Dead letters open"][1]}"' in dlq


def test_hourly_bars_scale_to_the_busiest_hour_and_show_every_hour_with_failures():
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    hours = [now - timedelta(hours=23 - index) for index in range(24)]
    values = [0] * 24
    values[3], values[10], values[23] = 1, 100, 50
    drawn = bars(values, hours)
    assert [bar.height for bar in drawn if bar.height] == [1, 18, 9]
    assert all(bar.y + bar.height == 20 for bar in drawn)
    assert drawn[10].label == f"{hours[10]:%H}:00 UTC: 100"


def test_failures_older_than_a_day_are_not_counted():
    now = timezone.now()
    record_timeout("provider_error", 10, now - timedelta(hours=30))
    record_timeout("provider_error", 10, now - timedelta(minutes=5))
    (only,) = failures_by_class(now)
    assert (only.name, only.total) == ("provider_error", 1)
