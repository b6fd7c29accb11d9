"""The operator's home, in a 1366×768 window: the admin opens on the system's health with the
pipeline section on the first screen, "what failed and why" is answered in two clicks from
there (the failure's class, then the submission, whose page says what the step met), and a
dead letter reached from there and dismissed leaves the home's figures and /metrics.

The failure is real: a submission from a git host that does not resolve fails its fetch on
every attempt, through the worker, as an outage of the host would."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import UNRESOLVABLE_HOST, ApiFor, People, log_in
from tests.e2e.test_dead_letters_in_the_browser import (
    a_dead_letter_the_database_never_saw,
    dlq_depth,
    off_the_event_loop,
)
from tests.support.stack import wait_until

pytestmark = pytest.mark.e2e

HOME = "/admin/"
RESOLVE_ERROR = f"Could not resolve host: {UNRESOLVABLE_HOST}"


def submit_from_a_host_that_does_not_resolve(api: ApiFor, people: People) -> dict:
    author = api(people.author)
    created = author.post(
        "/api/v1/submissions",
        data={"repo_url": f"https://{UNRESOLVABLE_HOST}/acme/tools", "ref": "main"},
    )
    assert created.status == 201, created.text()
    url = created.json()["url"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = author.get(url).json()
        if body["state"] == "REJECTED":
            return body
        time.sleep(0.5)
    raise TimeoutError(f"{url} did not end: {body['state']}")


def link_of(row: Locator) -> str:
    href = row.get_by_role("link").get_attribute("href")
    assert href
    return href


def test_an_operator_answers_what_failed_and_why_in_two_clicks_from_the_admin_home(
    laptop_page: Page, api: ApiFor, people: People, screenshots: Path
):
    failed = submit_from_a_host_that_does_not_resolve(api, people)
    page = laptop_page
    log_in(page, people.operator, then=HOME)

    # The home: the health panel, then the pipeline section, both on the first screen.
    panel = page.locator("#health-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#workers-status")).to_contain_text(re.compile(r"[1-9]\d* alive"))
    expect(panel.locator('tr[data-queue="submission-dlq"]')).to_be_visible()
    pipeline = page.locator(".app-pipeline").first
    box = pipeline.bounding_box()
    assert box is not None and box["y"] < 768, f"the pipeline section starts at {box}"
    first_section = page.locator("#content-main .module[class*='app-']").first
    expect(first_section).to_have_class(re.compile(r"\bapp-pipeline\b"))
    page.screenshot(path=str(screenshots / "operator-01-home.png"))

    # Click 1: the failure's class, from its row with its chart. (Other tests fail in other
    # ways: the row to click is the one whose list holds this failure.)
    failures = panel.locator("#health-failures tr[data-class]")
    expect(failures.first).to_be_visible()
    row = next(
        candidate
        for candidate in failures.all()
        if failed["id"][:8] in page.request.get(link_of(candidate)).text()
    )
    failure_class = row.get_attribute("data-class")
    expect(row.locator("svg.health-chart rect")).not_to_have_count(0)
    row.get_by_role("link").click()
    listing = page.locator("#result_list")
    expect(listing).to_contain_text(RESOLVE_ERROR)
    mine = listing.locator("tbody tr", has_text=failed["id"][:8]).first
    expect(mine).to_contain_text(failure_class or "")
    expect(mine).to_contain_text(RESOLVE_ERROR)
    page.screenshot(path=str(screenshots / "operator-02-failed-attempts.png"), full_page=True)

    # Click 2: the submission: what it was, how it ended, each attempt's error.
    mine.locator("td.field-submission_link a").click()
    expect(page.locator(".field-id .readonly")).to_have_text(failed["id"])
    expect(page.locator(".field-outcome_code .readonly")).to_have_text(failed["outcome"]["code"])
    expect(page.locator("#attempts-group")).to_contain_text(RESOLVE_ERROR)
    page.screenshot(path=str(screenshots / "operator-03-submission.png"), full_page=True)


def open_letters(page: Page) -> int:
    figure = page.locator("#health-figures li", has_text="Dead letters open")
    return int(figure.locator(".health-value").inner_text())


def dlq_waiting(page: Page) -> int:
    return int(page.locator('tr[data-queue="submission-dlq"] td.num').first.inner_text())


def test_a_dead_letter_dismissed_from_the_admin_home_leaves_the_queue_and_the_metric(
    laptop_page: Page, people: People, screenshots: Path, pipeline_worker
):
    """From the home's "Dead letters open" to the letter, dismissed with a reason: the home's
    count, the dead-letter queue's row and its depth on /metrics all drop."""
    _key, submission_id = off_the_event_loop(a_dead_letter_the_database_never_saw)
    page = laptop_page
    log_in(page, people.operator, then=HOME)
    before, depth_before = open_letters(page), dlq_depth(page)
    assert before >= 1 and depth_before >= 1

    page.locator("#health-figures a", has_text="Dead letters open").click()
    row = page.locator("#result_list tbody tr", has=page.locator(f'a[title="{submission_id}"]'))
    expect(row).to_contain_text("Open")
    row.locator("input.action-select").check()
    page.locator('select[name="action"]').select_option("dismiss_selected")
    page.locator('button[name="index"]').click()
    page.get_by_label("Reason").fill("the judge provider's outage; the author was told")
    page.get_by_role("button", name="Dismiss").click()
    expect(page.locator(".messagelist")).to_contain_text("Dismissed 1 of 1 dead letter(s)")

    page.goto(HOME)
    assert open_letters(page) == before - 1
    wait_until(lambda: dlq_depth(page) < depth_before, 30, interval=0.5,
               message="submission-dlq's depth on /metrics to drop")  # fmt: skip

    def queue_row_dropped() -> bool:
        page.goto(HOME)
        return dlq_waiting(page) < depth_before

    wait_until(queue_row_dropped, 30, interval=1, message="the home's DLQ row to drop")
    page.screenshot(path=str(screenshots / "operator-04-dead-letter-dismissed.png"))
