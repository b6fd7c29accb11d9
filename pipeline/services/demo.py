"""The demo ``make run`` shows: an admin, a reviewer, an author with a scoped API token, a few
skills submitted once the whole fleet is up (so Flower sees their tasks), and the banner."""

from __future__ import annotations

import base64
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from celery import current_app
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User

from accounts import tokens
from accounts.models import ApiToken
from config import scopes
from pipeline.models import Submission
from pipeline.services.submissions import SubmissionRequest, create_submission
from pipeline.sources.folder import files_from_folder
from pipeline.states import AUTOMATED_STATES


@dataclass(frozen=True)
class Account:
    user: User
    password: str
    token: str = ""
    """The account's API token (read, submit, yank), when it was asked for one."""


def ensure_account(
    username: str,
    password_file: Path,
    *,
    superuser: bool = False,
    groups: tuple[str, ...] = (),
    token_file: Path | None = None,
) -> Account:
    """The account, created with a random password kept in ``password_file`` on first use;
    an account in ``groups`` is staff (reviewers work in the admin). With ``token_file``, the
    account gets an API token whose key is kept there (the registry keeps only its hash, so
    the file is what lets every banner show it): a new one whenever the key there no longer
    works (first run, a fresh database, revoked, expired)."""
    password = _secret(password_file, lambda: secrets.token_urlsafe(12))
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is None:
        create = (
            user_model.objects.create_superuser if superuser else user_model.objects.create_user
        )
        user = create(username=username, email=f"{username}@example.com", password=password)
    elif not user.check_password(password):
        user.set_password(password)
        user.save(update_fields=["password"])
    if groups:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.groups.add(*Group.objects.filter(name__in=groups))
    key = _api_key(user, token_file) if token_file else ""
    return Account(user=user, password=password, token=key)


def _secret(path: Path, make: Callable[[], str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def _api_key(user: User, token_file: Path) -> str:
    key = token_file.read_text().strip() if token_file.exists() else ""
    found = tokens.find(key) if key else None
    if isinstance(found, ApiToken) and found.user_id == user.pk:
        return key
    issued = tokens.issue(user, "demo", scopes.AUTHOR_SCOPES, days=tokens.MAX_DAYS)
    token_file.unlink(missing_ok=True)
    return _secret(token_file, lambda: issued.key)


def submit_demo_skills(author: User, folder: Path) -> list[Submission]:
    """Submit each skill folder once (skipped when the author already submitted that name)."""
    submitted = []
    for skill_folder in sorted(p for p in folder.iterdir() if p.is_dir()):
        if Submission.objects.filter(submitter=author, skill_name=skill_folder.name).exists():
            continue
        request = SubmissionRequest(files=files_from_folder(skill_folder))
        submitted.append(create_submission(author, request, trigger="demo-submission"))
    return submitted


def demo_outcomes(author: User, folder: Path, timeout_s: float) -> dict[str, str]:
    """Each demo skill's latest state, once none is still moving through the automated
    pipeline (or at ``timeout_s``)."""
    names = sorted(p.name for p in folder.iterdir() if p.is_dir())
    deadline = time.monotonic() + timeout_s
    while True:
        latest: dict[str, str] = {}
        for submission in Submission.objects.filter(submitter=author, skill_name__in=names):
            latest.setdefault(submission.skill_name, submission.state)
        settled = all(state not in AUTOMATED_STATES for state in latest.values())
        if settled or time.monotonic() > deadline:
            return {name: latest.get(name, "not submitted") for name in names}
        time.sleep(0.5)


class FleetNotReady(Exception):
    """A process of ``make run`` did not come up in time; the message says which."""


def wait_for_fleet(
    web_url: str,
    *,
    flower_url: str | None,
    flower_auth: str,
    timeout_s: float,
    log: Callable[[str], None],
) -> None:
    """Block until the web server is ready and — on a broker that carries broadcasts — a worker
    answers and Flower lists it, so nothing submitted from now on escapes Flower."""
    deadline = time.monotonic() + timeout_s
    _until(lambda: _http_ok(f"{web_url}/readyz"), deadline, "the web server (/readyz)")
    log("web ready")
    if flower_url is None:
        return
    _until(lambda: current_app.control.ping(timeout=1.0), deadline, "a Celery worker (ping)")
    log("worker ready")
    _until(lambda: _flower_lists_a_worker(flower_url, flower_auth), deadline, "Flower")
    log("flower ready")


def _until(check: Callable[[], object], deadline: float, what: str) -> None:
    while not check():
        if time.monotonic() > deadline:
            raise FleetNotReady(f"{what} did not come up in time; see its lines in this log")
        time.sleep(0.5)


def _http_ok(url: str, auth: str = "", timeout_s: float = 10) -> bytes | None:
    request = urllib.request.Request(url)
    if auth:
        request.add_header("Authorization", f"Basic {base64.b64encode(auth.encode()).decode()}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.read() if response.status == 200 else None
    except (OSError, urllib.error.URLError):
        return None


def _flower_lists_a_worker(flower_url: str, auth: str) -> bool:
    body = _http_ok(f"{flower_url}/api/workers?refresh=1", auth)
    return bool(body and json.loads(body))
