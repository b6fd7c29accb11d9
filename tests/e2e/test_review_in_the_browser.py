"""Tier 3 review, as a reviewer does it: a skill goes through the real pipeline to
NEEDS_REVIEW, a reviewer finds it in the admin queue, reads its findings at their lines,
assigns it to a reviewer (themself) and approves it, and the skill is in the registry.
People outside the review groups, and authors looking at their own skills, cannot act."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from grading.labels import category_label
from tests.e2e.conftest import QUEUE, ApiFor, People, log_in, submit_for_review

pytestmark = pytest.mark.e2e


def test_a_reviewer_finds_assigns_and_approves_a_review_band_skill(
    page: Page, api: ApiFor, people: People, screenshots: Path
):
    author = api(people.author)
    submission = submit_for_review(author, "nightly-tidy")
    owner, name = submission["skill"]["owner"], submission["skill"]["name"]

    log_in(page, people.reviewer)

    # The queue: the flagged skill is listed with its score and its findings' categories, in words.
    tier1, score = submission["scans"]["tier1"], submission["scans"]["tier2"]["score"]
    row = page.locator("#result_list tbody tr", has_text=f"{owner}/{name}")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("NEEDS_REVIEW")
    expect(row.locator("td.field-tier2_score")).to_have_text(str(score))
    for finding in tier1["findings"]:
        expect(row.locator("td.field-flags")).to_contain_text(category_label(finding["category"]))
    page.screenshot(path=str(screenshots / "01-review-queue.png"), full_page=True)

    # Click 1: open the review.
    row.get_by_role("link", name=f"{owner}/{name}").click()
    expect(page.locator("#review-state")).to_have_text("NEEDS_REVIEW")
    for finding in tier1["findings"][:5]:
        location = f"{finding['file']}:{finding['line']} ({finding['rule_id']})"
        expect(page.locator("#review-reasons")).to_contain_text(location)
    expect(page.locator("#tier2 h2")).to_contain_text(f"score {score}")
    expect(page.locator("#audit-trail")).to_contain_text("tier2-concerns")

    # Every Tier 1 finding links to its line, which is flagged and carries the finding.
    findings = page.locator("#tier1-findings tbody tr")
    expect(findings).to_have_count(len(tier1["findings"]))
    assert findings.count() >= 1
    for finding in tier1["findings"]:
        link = page.locator("#tier1-findings a", has_text=f"{finding['file']}:{finding['line']}")
        anchor = link.first.get_attribute("href")
        line = page.locator(f"tr{anchor}")
        expect(line).to_have_class("flagged")
        expect(line.locator("td.ln")).to_have_text(str(finding["line"]))
        mark = page.locator(f"tr{anchor} + tr.mark")
        expect(mark).to_contain_text(finding["rule_id"])
    expect(page.locator("form.review-action button")).to_have_text(
        ["Assign to a reviewer", "Request changes", "Reject"]
    )
    page.screenshot(path=str(screenshots / "02-review-page.png"), full_page=True)

    # Click 2: assign to a reviewer, the assignee preselected as the reviewer themself.
    expect(page.get_by_label("Assignee")).to_have_value(people.reviewer.username)
    page.get_by_role("button", name="Assign to a reviewer").click()
    expect(page.locator(".messagelist")).to_contain_text(
        f"Assigned {owner}/{name} to {people.reviewer.username} for Tier 3 review."
    )
    expect(page.locator("#review-state")).to_have_text("TIER3_REVIEW")
    page.screenshot(path=str(screenshots / "03-in-tier3-review.png"), full_page=True)

    # Click 3: approve.
    page.get_by_role("button", name="Approve and publish").click()
    expect(page.locator(".messagelist")).to_contain_text(
        f"Approved {owner}/{name}: published as version 1.0.0."
    )
    expect(page.locator("#review-state")).to_have_text("PUBLISHED")
    expect(page.locator("#audit-trail")).to_contain_text("reviewer-approved")
    page.screenshot(path=str(screenshots / "04-approved.png"), full_page=True)

    # The public registry has it, with its version, published by review.
    skill = api(None).get(f"/api/v1/skills/{owner}/{name}")
    assert skill.status == 200, skill.text()
    assert [(v["version"], v["channel"]) for v in skill.json()["versions"]] == [("1.0.0", "review")]
    # And the author sees the decision on their submission, from "a reviewer" (names are the
    # site's to show: SKILLGATE_SHOW_REVIEWER_NAMES).
    review = author.get(submission["url"]).json()["review"]
    assert (review["status"], review["decision"]["by"]) == ("approved", "a reviewer")


def test_staff_outside_the_review_groups_cannot_act(
    page: Page, api: ApiFor, people: People, screenshots: Path
):
    submission = submit_for_review(api(people.author), "nightly-tidy-2")
    review_page = f"{QUEUE}{submission['id']}/change/"

    log_in(page, people.outsider, then="/admin/")
    expect(page.get_by_role("link", name="Reviews", exact=True)).to_have_count(0)
    for path in (QUEUE, review_page):
        response = page.goto(path)
        assert response is not None and response.status == 403
    page.screenshot(path=str(screenshots / "05-outsider-forbidden.png"))

    refused = api(people.outsider).post(
        f"/api/v1/reviews/{submission['id']}/assign", data={"assignee": people.outsider.username}
    )
    assert refused.status == 403
    assert api(people.author).get(submission["url"]).json()["state"] == "NEEDS_REVIEW"


def test_an_author_cannot_review_their_own_skill(
    page: Page, api: ApiFor, people: People, screenshots: Path
):
    own = api(people.author_reviewer)
    submission = submit_for_review(own, "own-skill")
    owner, name = submission["skill"]["owner"], submission["skill"]["name"]

    log_in(page, people.author_reviewer)
    page.locator("#result_list tbody tr", has_text=f"{owner}/{name}").get_by_role(
        "link", name=f"{owner}/{name}"
    ).click()
    expect(page.locator("#review-notice")).to_have_text(
        "You submitted this skill: nobody reviews their own submission."
    )
    expect(page.locator("form.review-action")).to_have_count(0)
    page.screenshot(path=str(screenshots / "06-own-skill.png"), full_page=True)

    # A forged form post is refused by the server too, and so is the API.
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    forged = page.request.post(
        f"{QUEUE}{submission['id']}/act/reject/",
        form={"reject-reason": "rejecting my own skill"},
        headers={"X-CSRFToken": csrf, "Referer": page.url},
    )
    assert forged.ok
    assert "Could not reject: you submitted this skill" in forged.text()
    refused = own.post(f"/api/v1/reviews/{submission['id']}/reject", data={"reason": "mine"})
    assert refused.status == 403
    assert own.get(submission["url"]).json()["state"] == "NEEDS_REVIEW"
