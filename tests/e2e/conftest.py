"""The browser tier: headless Chromium drives the real admin served by gunicorn, while a real
Celery worker runs the pipeline on RabbitMQ, all against pytest-django's PostgreSQL test
database. Nothing skips: a missing server or browser fails the tier.

The people of a run are created before the browser starts: Playwright's synchronous API keeps
an event loop running in this thread, and Django refuses ORM calls beside one. From then on the
tests touch the system only the way people do, through the browser and the HTTP API.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from playwright.sync_api import (
    APIRequestContext,
    Browser,
    Page,
    Playwright,
    ViewportSize,
    sync_playwright,
)
from rest_framework.authtoken.models import Token

from config.celery import MAINTENANCE_QUEUE, STEP_QUEUES
from reviews.roles import REVIEWERS_GROUP, SECURITY_GROUP
from tests.support.skills import review_band_files
from tests.support.stack import ARTIFACTS, WebServer, Worker, stack_environment

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAPTOP: ViewportSize = {"width": 1366, "height": 768}
"""The smallest screen the admin is laid out for."""
QUEUE = "/admin/reviews/review/"
SETTLED = {"NEEDS_REVIEW", "PUBLISHED", "REJECTED", "TIER1_FAILED"}
UNRESOLVABLE_HOST = "skills.invalid"
"""A git host that is allowed but does not resolve (``.invalid`` never does): a submission from it
fails its fetch on every attempt, as a real outage would, for the operators' pages to show."""
STACK_ENV = {
    "SKILLGATE_GIT_ALLOWED_HOSTS": f"github.com,gitlab.com,codeberg.org,bitbucket.org,"
    f"{UNRESOLVABLE_HOST}",
}


@dataclass(frozen=True)
class Person:
    username: str
    password: str
    token: str


@dataclass(frozen=True)
class People:
    author: Person
    reviewer: Person
    outsider: Person
    author_reviewer: Person
    operator: Person
    security: Person


ApiFor = Callable[["Person | None"], APIRequestContext]


@pytest.fixture(scope="session")
def run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="session")
def screenshots(run_id: str) -> Path:
    """Where this run's screenshots go: test-artifacts/screenshots/<run id>/."""
    folder = ARTIFACTS / "screenshots" / run_id
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def people(live_db, run_id: str) -> People:
    """An author, a reviewer, a staff user in no review group, a reviewer who also writes
    skills, and an operator (a superuser); names are unique per run because the database is
    never flushed."""
    suffix = run_id.rsplit("-", 1)[-1]
    reviewers = Group.objects.get(name=REVIEWERS_GROUP)
    security = Group.objects.get(name=SECURITY_GROUP)

    def person(
        role: str, *, staff: bool, reviewer: bool, superuser: bool = False, guard: bool = False
    ) -> Person:
        password = secrets.token_urlsafe(12)
        user = get_user_model().objects.create_user(
            f"{role}-{suffix}", password=password, is_staff=staff, is_superuser=superuser
        )
        if reviewer:
            user.groups.add(reviewers)
        if guard:
            user.groups.add(security)
        return Person(user.username, password, Token.objects.create(user=user).key)

    return People(
        author=person("author", staff=False, reviewer=False),
        reviewer=person("rita", staff=True, reviewer=True),
        outsider=person("olga", staff=True, reviewer=False),
        author_reviewer=person("ada", staff=True, reviewer=True),
        operator=person("otto", staff=True, reviewer=False, superuser=True),
        security=person("sven", staff=True, reviewer=False, guard=True),
    )


@pytest.fixture(scope="session")
def pipeline_worker(fleet) -> Worker:
    """One Celery worker with the default, offline heuristic judge, on every queue but the
    re-scans' (as in production: campaigns have their own worker)."""
    return fleet.ensure(1, queues=",".join((*STEP_QUEUES, MAINTENANCE_QUEUE)), **STACK_ENV)[0]


@pytest.fixture(scope="session")
def web(broker) -> Iterator[WebServer]:
    server = WebServer(stack_environment(**STACK_ENV))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def playwright(people: People, pipeline_worker: Worker, web: WebServer) -> Iterator[Playwright]:
    """Started last, after every ORM call of the session (see the module docstring)."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser: Browser, web: WebServer) -> Iterator[Page]:
    context = browser.new_context(base_url=web.url, viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def laptop_page(browser: Browser, web: WebServer) -> Iterator[Page]:
    """A page in a 1366×768 window."""
    context = browser.new_context(base_url=web.url, viewport=LAPTOP)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def api(playwright: Playwright, web: WebServer) -> Iterator[ApiFor]:
    """HTTP clients of the running server: ``api(person)`` authenticates with the person's
    token, ``api(None)`` is anonymous, as the public registry's readers are."""
    contexts: list[APIRequestContext] = []

    def client(person: Person | None) -> APIRequestContext:
        headers = {"Authorization": f"Token {person.token}"} if person else {}
        context = playwright.request.new_context(base_url=web.url, extra_http_headers=headers)
        contexts.append(context)
        return context

    yield client
    for context in contexts:
        context.dispose()


def submit_and_settle(client: APIRequestContext, files: dict[str, str]) -> dict:
    """Submit over HTTP and wait until the worker has taken it as far as it goes alone."""
    created = client.post("/api/v1/submissions", data={"files": files})
    assert created.status == 201, created.text()
    url = created.json()["url"]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["state"] in SETTLED:
            return body
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not settle: {body['state']}")


def submit_for_review(client: APIRequestContext, name: str) -> dict:
    """Submit a skill of the review band and wait until it waits for review."""
    body = submit_and_settle(client, review_band_files(name))
    trail = [e["to_state"] for e in client.get(f"{body['url']}/events").json()]
    assert body["state"] == "NEEDS_REVIEW", f"expected review, got {trail}: {body['outcome']}"
    assert trail == ["RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING", "NEEDS_REVIEW"]
    return body


def log_in(page: Page, person: Person, then: str = QUEUE) -> None:
    page.goto(f"/admin/login/?next={then}")
    page.get_by_label("Username").fill(person.username)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Log in").click()
