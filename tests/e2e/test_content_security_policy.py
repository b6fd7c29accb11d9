"""Issue 21 item 11: every page carries a Content-Security-Policy, and the pages people use work
under it — the landing page, the API docs (Swagger UI, rendered), the admin login, the admin
pages of operators, reviewers and Security, and the author pages (sign in, my submissions and a
finding under its line, my skills with a yank, API tokens with a new key shown once) — with no
violation in the browser's console."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import QUEUE, ApiFor, People, log_in, submit_and_settle
from tests.support.skills import benign_files, tier1_failing_files

pytestmark = pytest.mark.e2e

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture
def watched(page: Page) -> Iterator[tuple[Page, list[str]]]:
    """The page, and every CSP complaint of the console and of the DOM events on it."""
    complaints: list[str] = []
    page.add_init_script(RECORD_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            complaints.append(message.text)
            if "Content Security Policy" in message.text
            or "Content-Security-Policy" in message.text
            else None
        ),
    )
    yield page, complaints


def visit(page: Page, complaints: list[str], path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.ok, path
    policy = response.headers.get("content-security-policy", "")
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
    page.wait_for_load_state("networkidle")
    complaints.extend(page.evaluate("window.__cspViolations || []"))
    assert complaints == [], f"{path}: {complaints}"


def test_the_landing_page_and_the_api_docs_work_under_the_policy(watched):
    page, complaints = watched
    visit(page, complaints, "/")
    visit(page, complaints, "/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for()
    assert "Skillgate API" in page.locator(".swagger-ui .info .title").inner_text()
    page.locator(".opblock-tag").first.click()
    assert complaints == []


def test_the_admin_works_under_the_policy(watched, people: People, api: ApiFor):
    page, complaints = watched
    published = submit_and_settle(api(people.author), benign_files("csp-check"))
    visit(page, complaints, "/admin/login/")
    log_in(page, people.operator, then="/admin/")
    for path in (
        "/admin/",
        "/admin/pipeline/submission/",
        f"/admin/pipeline/submission/{published['id']}/change/",
        "/admin/registry/skillversion/",
        "/admin/registry/trustedorg/",
        "/admin/pipeline/deadletter/",
    ):
        visit(page, complaints, path)
    page.context.clear_cookies()
    log_in(page, people.security, then=QUEUE)
    visit(page, complaints, QUEUE)
    visit(page, complaints, "/admin/registry/skillversion/")
    page.locator("#result_list tbody a").first.click()
    page.locator("#version-status-actions").wait_for()
    page.wait_for_load_state("networkidle")
    complaints.extend(page.evaluate("window.__cspViolations || []"))
    assert complaints == []


def test_the_author_pages_work_under_the_policy(watched, people: People, api: ApiFor):
    page, complaints = watched
    author = api(people.author)
    published = submit_and_settle(author, benign_files("csp-author"))
    rejected = submit_and_settle(author, tier1_failing_files("csp-fetch-and-run"))
    assert (published["state"], rejected["state"]) == ("PUBLISHED", "TIER1_FAILED")

    visit(page, complaints, "/account/login/")
    page.get_by_label("Username").fill(people.author.username)
    page.get_by_label("Password").fill(people.author.password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/account/submissions/")
    for path in (
        "/account/submissions/",
        f"/account/submissions/{rejected['id']}/",
        "/account/skills/",
        "/account/tokens/",
        "/account/password/",
    ):
        visit(page, complaints, path)

    # The forms post and the pages they lead to render under the policy too.
    visit(page, complaints, "/account/skills/")
    section = page.locator("section.skill", has_text=published["skill"]["name"])
    section.get_by_label("reason").first.fill("checking the policy")
    section.get_by_role("button", name="Yank 1.0.0").click()
    page.locator(".messages").wait_for()
    visit(page, complaints, "/account/tokens/")
    page.get_by_label("Name").fill("csp-check")
    page.get_by_role("button", name="Make the token").click()
    page.locator("#new-token-key").wait_for()
    page.wait_for_load_state("networkidle")
    complaints.extend(page.evaluate("window.__cspViolations || []"))
    assert complaints == []
