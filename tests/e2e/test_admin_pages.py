"""The admin pages operators and reviewers live in, read in a 1366×768 window: nothing overflows
its panel, records are not forms, ids are short with the full id on hover, categories and
flags are words, and no page cites the documents the product was built from.

Each page is photographed into test-artifacts/screenshots/<run>/ as it is checked.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Producer
from playwright.sync_api import Page, expect

from config.celery import PIPELINE_EXCHANGE, SCAN_QUEUE
from grading.labels import category_label
from tests.e2e.conftest import (
    QUEUE,
    ApiFor,
    People,
    log_in,
    submit_and_settle,
    submit_for_review,
)
from tests.support.skills import benign_files

pytestmark = pytest.mark.e2e

SUBMISSIONS = "/admin/pipeline/submission/"
DEAD_LETTERS = "/admin/pipeline/deadletter/"
SAVE_BUTTONS = 'input[name="_save"], input[name="_continue"], input[name="_addanother"]'
SOURCE_CITATION = re.compile(r"\bseeds?\b", re.IGNORECASE)

# Everything on the page within the window's width, and every table within its panel.
LAYOUT_PROBLEMS = """() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth) {
    problems.push(`page is ${root.scrollWidth}px wide in a ${window.innerWidth}px window`);
  }
  for (const table of document.querySelectorAll("#content table")) {
    const panel = table.parentElement;
    if (table.scrollWidth > panel.clientWidth) {
      const name = table.id || table.closest("[id]")?.id || table.className;
      problems.push(`table ${name} is ${table.scrollWidth}px in a ${panel.clientWidth}px panel`);
    }
  }
  for (const cell of document.querySelectorAll("td.nowrap, td[class*='_at']")) {
    if (cell.scrollWidth > cell.clientWidth) {
      problems.push(`date cell ${cell.className} is clipped: ${cell.textContent.trim()}`);
    }
  }
  return problems;
}"""


def check_page(page: Page, screenshots: Path, name: str) -> str:
    """The checks every page passes; returns the page's visible text."""
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(screenshots / f"{name}.png"), full_page=True)
    assert page.evaluate(LAYOUT_PROBLEMS) == [], name
    expect(page.locator("#site-name")).to_have_text("Skillgate administration")
    text = page.locator("body").inner_text()
    assert not SOURCE_CITATION.search(text), f"{name} cites a source document"
    return text


def send_unknown_task_about(submission_id: str) -> str:
    """A message no worker can run, naming a submission: the worker dead-letters it and an
    operator finds it, linked to that submission, among the dead letters."""
    task_id = str(uuid.uuid4())
    with Connection(settings.CELERY_BROKER_URL) as conn:
        producer = Producer(conn.default_channel, exchange=Exchange(PIPELINE_EXCHANGE.name))
        producer.publish(
            json.dumps([[submission_id], {}, {}]),
            routing_key=SCAN_QUEUE,
            content_type="application/json",
            content_encoding="utf-8",
            headers={
                "task": "pipeline.retired_step",
                "id": task_id,
                "lang": "py",
                "argsrepr": repr((submission_id,)),
            },
        )
    return task_id


def test_the_operator_and_reviewer_pages_read_well_on_a_laptop(
    laptop_page: Page, api: ApiFor, people: People, screenshots: Path
):
    page = laptop_page
    author = api(people.author)
    published = submit_and_settle(author, benign_files(f"laptop-{uuid.uuid4().hex[:6]}"))
    assert published["state"] == "PUBLISHED", published["outcome"]
    flagged = [submit_for_review(author, f"laptop-review-{n}") for n in (1, 2)]
    full_id = published["id"]
    send_unknown_task_about(full_id)
    log_in(page, people.operator, then=SUBMISSIONS)

    # The submissions: short ids, the full id on hover, dates on one line.
    expect(page.locator("#result_list")).to_be_visible()
    id_cell = page.locator(f'#result_list span[title="{full_id}"]')
    expect(id_cell).to_have_text(full_id[:8])
    assert full_id not in page.locator("#result_list").inner_text()
    check_page(page, screenshots, "admin-01-submissions")

    # A submission's page: a record, with its full id, readable details, words for flags.
    id_cell.click()
    expect(page.locator("#content h1")).to_have_text("View submission")
    expect(page.locator(SAVE_BUTTONS)).to_have_count(0)
    expect(page.get_by_role("button", name=re.compile("save", re.IGNORECASE))).to_have_count(0)
    expect(page.locator(".field-id .readonly")).to_have_text(full_id)
    expect(page.locator(".field-late p")).to_have_text(["no", "no"])
    expect(page.locator('img[src*="icon-no"], img[src*="icon-yes"]')).to_have_count(0)
    expect(page.locator(".field-stage p").first).not_to_be_empty()
    audit = page.locator("#events-group")
    expect(audit.locator("h2")).to_have_text("Audit trail")
    expect(audit).to_contain_text("PUBLISHED (verdict): Published as")
    assert "{" not in audit.inner_text()
    check_page(page, screenshots, "admin-02-submission")

    # The review queue: categories in words, the footer counts reviews.
    page.goto(QUEUE)
    row = page.locator("#result_list tbody tr", has_text=flagged[0]["skill"]["name"])
    expect(row).to_have_count(1)
    for finding in flagged[0]["scans"]["tier1"]["findings"]:
        expect(row.locator("td.field-flags")).to_contain_text(category_label(finding["category"]))
    expect(row.locator("td.field-flags")).not_to_contain_text("_")
    expect(page.locator(".paginator")).to_contain_text(re.compile(r"\b\d+ reviews\b"))
    expect(page.locator(".paginator")).not_to_contain_text("review queue")
    check_page(page, screenshots, "admin-03-review-queue")

    # A review page: categories in words, the audit trail as text, actions named apart.
    row.get_by_role("link").first.click()
    expect(page.locator("#review-state")).to_have_text("NEEDS_REVIEW")
    categories = page.locator("#tier1-findings tbody td:nth-child(3)")
    for finding in flagged[0]["scans"]["tier1"]["findings"]:
        expect(categories.filter(has_text=category_label(finding["category"]))).not_to_have_count(0)
    expect(page.locator("form.review-action button")).to_have_text(
        ["Assign to a reviewer", "Request changes", "Reject"]
    )
    trail = page.locator("#audit-trail")
    expect(trail.locator(".event-detail").first).to_be_visible()
    assert "{" not in trail.inner_text() and "[" not in trail.inner_text()
    check_page(page, screenshots, "admin-04-review")

    # The dead letters: the unknown message is listed against its submission, replayable.
    deadline = time.monotonic() + 30
    letter = page.locator(f'#result_list a[title="{full_id}"]')
    while True:
        page.goto(DEAD_LETTERS)
        if letter.count() or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    expect(letter).to_have_count(1)
    expect(letter).to_contain_text(full_id[:8])
    assert full_id not in page.locator("#result_list").inner_text()
    expect(page.locator('select[name="action"] option[value="replay_selected"]')).to_have_count(1)
    check_page(page, screenshots, "admin-05-dead-letters")

    letter_row = page.locator("#result_list tbody tr", has=page.locator(f'a[title="{full_id}"]'))
    letter_row.locator("input.action-select").check()
    page.locator('select[name="action"]').select_option("replay_selected")
    page.locator('button[name="index"]').click()
    expect(page.locator(".messagelist")).to_contain_text("nothing left to run")
