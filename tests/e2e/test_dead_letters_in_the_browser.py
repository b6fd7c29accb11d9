"""An operator closes a dead letter from the admin, in a 1366×768 window: dismissing it asks
for a reason, says what it did, and the dead-letter queue's depth on /metrics drops with it (the
alert clears)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.utils import timezone
from playwright.sync_api import Page, expect

from pipeline.models import DeadLetter
from pipeline.services import dead_letter_queue
from pipeline.services.failures import GiveUp
from pipeline.states import State
from tests.e2e.conftest import People, log_in
from tests.e2e.test_admin_pages import DEAD_LETTERS, check_page
from tests.support.stack import wait_until
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.e2e

T = TypeVar("T")
DLQ_DEPTH = re.compile(r'^skillgate_queue_depth\{queue="submission-dlq"\} (\d+)', re.MULTILINE)


def dlq_depth(page: Page) -> int:
    """submission-dlq's depth as /metrics reports it (read with the operator's session)."""
    match = DLQ_DEPTH.search(page.request.get("/metrics").text())
    assert match, "no submission-dlq depth on /metrics"
    return int(float(match.group(1)))


def off_the_event_loop(work: Callable[[], T]) -> T:
    """Run database work in a thread of its own: Playwright's event loop runs in this one, and
    Django refuses to touch the database from it."""

    def run() -> T:
        try:
            return work()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def a_dead_letter_the_database_never_saw() -> tuple[str, str]:
    """A give-up published into submission-dlq while the database was down, then recorded by
    a reconciliation pass; its key and its submission's id."""
    author = get_user_model().objects.create_user(f"dl-author-{uuid.uuid4().hex[:8]}")
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
    dead_letter_queue.publish(give_up)

    def recorded() -> bool:
        dead_letter_queue.reconcile()  # skipped while a worker's pass holds the lock
        return DeadLetter.objects.filter(message_key=give_up.key).exists()

    wait_until(recorded, 30, interval=0.5, message="the dead letter on the record")
    return give_up.key, str(waiting.pk)


def test_an_operator_dismisses_a_dead_letter_and_the_dlq_metric_drops(
    laptop_page: Page, people: People, screenshots, pipeline_worker
):
    page = laptop_page
    key, submission_id = off_the_event_loop(a_dead_letter_the_database_never_saw)

    log_in(page, people.operator, then=f"{DEAD_LETTERS}?status__exact=open")
    before = dlq_depth(page)
    assert before >= 1
    row = page.locator("#result_list tbody tr", has=page.locator(f'a[title="{submission_id}"]'))
    expect(row).to_contain_text("http_5xx")
    row.locator("input.action-select").check()
    page.locator('select[name="action"]').select_option("dismiss_selected")
    page.locator('button[name="index"]').click()

    expect(page.get_by_text("Say why; the reason is kept with each.")).to_be_visible()
    check_page(page, screenshots, "admin-dead-letter-dismiss")
    page.get_by_label("Reason").fill("the judge provider's outage; the author was told")
    page.get_by_role("button", name="Dismiss").click()

    expect(page.locator(".messagelist")).to_contain_text("Dismissed 1 of 1 dead letter(s)")
    status = off_the_event_loop(
        lambda: DeadLetter.objects.values_list("status", "closed_by").get(message_key=key)
    )
    assert status == ("dismissed", people.operator.username)
    wait_until(lambda: dlq_depth(page) < before, 30, interval=0.5,
               message="the dead-letter queue's depth to drop")  # fmt: skip
