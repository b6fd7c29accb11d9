"""Reviewing an update as store reviewers do, in the browser: the page compares it with the
skill's published version (what changed, the findings on the changed lines, the version
approving creates), and decisions on identical submissions cannot contradict each other."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import QUEUE, ApiFor, People, Person, log_in, submit_for_review
from tests.support.skills import review_band_files

pytestmark = pytest.mark.e2e

NEW_CRON_LINE = "(crontab -l; echo '0 4 * * * rm -rf ~/.cache/tmp') | crontab -"


def open_review(page: Page, submission_id: str) -> None:
    page.goto(f"{QUEUE}{submission_id}/change/")
    expect(page.locator("#review-state")).to_be_visible()


def assign_and_approve(page: Page, reviewer: Person) -> None:
    expect(page.get_by_label("Assignee")).to_have_value(reviewer.username)
    page.get_by_role("button", name="Assign to a reviewer").click()
    expect(page.locator("#review-state")).to_have_text("TIER3_REVIEW")
    page.get_by_role("button", name="Approve and publish").click()
    expect(page.locator("#review-state")).to_have_text("PUBLISHED")


def test_a_reviewer_approves_an_update_from_its_diff(
    laptop_page: Page, api: ApiFor, people: People, screenshots: Path
):
    page = laptop_page
    author = api(people.author)
    name = f"nightly-{uuid.uuid4().hex[:6]}"
    first = submit_for_review(author, name)
    log_in(page, people.reviewer, then=f"{QUEUE}{first['id']}/change/")
    expect(page.locator("#changes-summary")).to_have_text(
        "the skill's first version: every file is new"
    )
    assign_and_approve(page, people.reviewer)
    owner = first["skill"]["owner"]

    files = review_band_files(name)
    files["scripts/schedule.sh"] += NEW_CRON_LINE + "\n"
    created = author.post("/api/v1/submissions", data={"files": files})
    assert created.status == 201, created.text()
    update = submit_state(author, created.json()["url"])
    assert update["state"] == "NEEDS_REVIEW", update["outcome"]

    open_review(page, update["id"])
    changes = page.locator("#changes")
    expect(page.locator("#changes-base")).to_have_text(f"{owner}/{name}@1.0.0")
    expect(page.locator("#changes-summary")).to_have_text(
        "0 added, 0 removed, 1 changed, 1 unchanged"
    )
    expect(page.locator("#changes-version")).to_contain_text("Approving creates version 1.0.1")
    diff = changes.locator('[data-path="scripts/schedule.sh"]')
    added = diff.locator("tr.diff-added")
    expect(added).to_have_count(1)
    expect(added).to_contain_text(NEW_CRON_LINE)
    new_line = int(added.get_attribute("data-line") or 0)
    on_new_line = [
        f for f in update["scans"]["tier1"]["findings"]
        if f["file"] == "scripts/schedule.sh" and f["line"] == new_line
    ]  # fmt: skip
    assert on_new_line, "the new crontab line has a finding"
    expect(added).to_have_class(re.compile(r"\bflagged\b"))
    marks = diff.locator(f'tr.mark[data-line="{new_line}"]')
    for finding in on_new_line:
        expect(marks.filter(has_text=finding["rule_id"])).to_have_count(1)
    expect(page.locator("#approve-version")).to_have_count(0)  # not assigned yet
    page.screenshot(path=str(screenshots / "diff-01-update.png"), full_page=True)

    expect(page.get_by_label("Assignee")).to_have_value(people.reviewer.username)
    page.get_by_role("button", name="Assign to a reviewer").click()
    expect(page.locator("#approve-version")).to_have_text("Creates version 1.0.1 (after 1.0.0).")
    page.get_by_role("button", name="Approve and publish").click()
    expect(page.locator(".messagelist")).to_contain_text(
        f"Approved {owner}/{name}: published as version 1.0.1."
    )
    skill = api(None).get(f"/api/v1/skills/{owner}/{name}").json()
    assert [v["version"] for v in skill["versions"]] == ["1.0.1", "1.0.0"]


def submit_state(client, url: str) -> dict:
    """The submission once the worker has taken it as far as it goes alone."""
    deadline = time.monotonic() + 90
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["state"] in {"NEEDS_REVIEW", "PUBLISHED", "REJECTED", "TIER1_FAILED"}:
            return body
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not settle: {body.get('state')}")


def test_two_identical_submissions_cannot_end_published_and_rejected(
    laptop_page: Page, api: ApiFor, people: People, screenshots: Path
):
    page = laptop_page
    author = api(people.author)
    name = f"twice-{uuid.uuid4().hex[:6]}"
    first = submit_for_review(author, name)
    second = submit_for_review(author, name)
    owner = first["skill"]["owner"]

    log_in(page, people.reviewer, then=f"{QUEUE}{first['id']}/change/")
    twins = page.locator("#review-twins")
    expect(twins).to_contain_text("wait for review in another submission")
    assign_and_approve(page, people.reviewer)

    # The copy links back; rejecting it is not offered, and says why.
    twins.get_by_role("link", name="another submission").click()
    expect(page).to_have_url(re.compile(f"{second['id']}/change/"))
    expect(twins).to_contain_text(f"are published as {owner}/{name}@1.0.0")
    expect(page.locator("#action-reject")).to_have_count(0)
    expect(page.locator("#action-request_changes")).to_have_count(0)
    expect(page.locator("#held-back-reject")).to_contain_text(
        f"Reject is not offered: These exact files are published as {owner}/{name}@1.0.0"
    )
    page.screenshot(path=str(screenshots / "twins-01-copy.png"), full_page=True)

    # A forged reject is refused by the server, and the submission does not move.
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    forged = page.request.post(
        f"{QUEUE}{second['id']}/act/reject/",
        form={"reject-reason": "rejecting the copy"},
        headers={"X-CSRFToken": csrf, "Referer": page.url},
    )
    assert "Could not reject: cannot reject: these exact files are published" in forged.text()
    refused = api(people.reviewer).post(
        f"/api/v1/reviews/{second['id']}/reject", data={"reason": "no"}
    )
    assert refused.status == 409, refused.text()
    assert author.get(second["url"]).json()["state"] == "NEEDS_REVIEW"

    # Approving it publishes the same files as the same version.
    page.reload()
    assign_and_approve(page, people.reviewer)
    expect(page.locator(".messagelist")).to_contain_text(
        f"Approved {owner}/{name}: published as version 1.0.0."
    )
    ends = [author.get(s["url"]).json() for s in (first, second)]
    assert [e["state"] for e in ends] == ["PUBLISHED", "PUBLISHED"]
    assert {e["version"]["version"] for e in ends} == {"1.0.0"}
