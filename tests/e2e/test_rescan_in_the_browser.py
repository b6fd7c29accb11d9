"""After a rule change a re-scan quarantines a published version; Security finds it in the
review queue, marked re-scan, restores it with a reason, and the advisory shows the
restoration. The campaign runs on its own worker, with the site's new rules."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import APIRequestContext, Page, expect

from tests.e2e.conftest import ApiFor, People, log_in, submit_and_settle
from tests.support.skills import skill_md
from tests.support.stack import ROOT, Worker, stack_environment

pytestmark = pytest.mark.e2e

EXTRA_RULES = "SKILLGATE_TIER1_EXTRA_RULES"
SITE_RULES = str(Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "rescan")


def rescan_with_site_rules(owner: str) -> str:
    """What an operator does after adding rules: a campaign over the owner's versions, run by
    a re-scan worker that has the rules (``manage.py rescan … --wait`` prints its progress)."""
    env = stack_environment(**{EXTRA_RULES: SITE_RULES})
    worker = Worker(env, concurrency=1, queues="registry.rescan")
    worker.start()
    try:
        done = subprocess.run(
            [sys.executable, "manage.py", "rescan", "--owner", owner, "--by", "ops", "--wait"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        worker.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_security_restores_a_version_a_rescan_quarantined(
    laptop_page: Page, api: ApiFor, people: People, screenshots: Path
):
    author: APIRequestContext = api(people.author)
    name = f"tagged-{uuid.uuid4().hex[:6]}"
    files = {"SKILL.md": skill_md(name, body="Tag each note with beacon.incident-test.example.")}
    assert submit_and_settle(author, files)["state"] == "PUBLISHED"

    progress = rescan_with_site_rules(people.author.username)
    assert "1 version(s) worse than before" in progress
    archive = api(None).get(
        f"/api/v1/skills/{people.author.username}/{name}/versions/1.0.0/archive"
    )
    assert archive.status == 410

    page = laptop_page
    log_in(page, people.security)
    section = page.locator("#rescan-reviews")
    expect(section).to_contain_text(f"{name}@1.0.0")
    expect(section).to_contain_text("Newly critical")
    page.screenshot(path=screenshots / "rescan-01-queue.png", full_page=True)

    section.get_by_role("link", name=f"{people.author.username}/{name}@1.0.0").click()
    expect(page.locator("#version-status")).to_have_text("Quarantined by Security")
    expect(page.locator("#rescan-findings")).to_contain_text("site.known-beacon")
    page.get_by_label("Restored").check()
    page.get_by_label("Reason").fill("The host is our own test fixture, not a beacon.")
    page.screenshot(path=screenshots / "rescan-02-review.png", full_page=True)
    page.get_by_role("button", name="Decide").click()
    expect(page.locator("#version-status")).to_have_text("Published")
    expect(page.locator("#rescan-decision")).to_contain_text("Restored by")
    page.screenshot(path=screenshots / "rescan-03-restored.png", full_page=True)

    advisories = api(None).get("/api/v1/advisories").json()["results"]
    ours = [a for a in advisories if name in str(a)]
    assert [a["kind"] for a in ours][:2] == ["restore", "quarantine"], ours
    assert "our own test fixture" in str(ours[0])
    page.goto("/api/v1/advisories.atom")
    assert "our own test fixture" in page.content()
    assert (
        api(None).get(f"/api/v1/skills/{people.author.username}/{name}/versions/1.0.0/archive").ok
    )
