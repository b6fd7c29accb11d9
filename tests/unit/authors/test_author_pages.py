"""The author's pages, through Django's test client: sign in with the auth views, see only
one's own submissions with every finding under its line, appeal a reviewer's rejection once and
see its outcome, yank and unyank one's versions, make a token (shown once) and revoke it. Pages
carry no inline script or style (a strict Content-Security-Policy can forbid both)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts import tokens
from accounts.models import ApiToken
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import State
from registry.models import Namespace, SkillVersion
from reviews import appeals
from reviews import services as reviews
from reviews.models import Appeal
from tests.support.skills import tier1_failing_files
from tests.support.versions import publish_files, publish_skill
from tests.unit.pipeline.factories import submission_in
from tests.unit.reviews.factories import awaiting_review

pytestmark = pytest.mark.django_db

INLINE = re.compile(r"<script|<style|\sstyle=|\son[a-z]+=", re.IGNORECASE)


@pytest.fixture
def author(make_user):
    return make_user("arthur")


@pytest.fixture
def browser(author) -> Client:
    client = Client()
    client.force_login(author)
    return client


def page(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    html = response.content.decode()
    assert not INLINE.search(html), f"inline script or style on {url}"
    return html


def test_signing_in_uses_djangos_login_and_lands_on_my_submissions(author):
    client = Client()
    login = page(client, "/account/login/")
    assert 'name="username"' in login and 'name="password"' in login
    response = client.post(
        "/account/login/", {"username": "arthur", "password": "pw-for-tests", "next": ""}
    )
    assert response.status_code == 302 and response["Location"] == "/account/"
    assert client.get("/account/")["Location"] == "/account/submissions/"
    assert not author.is_staff


def test_the_pages_need_a_sign_in():
    for url in ("/account/submissions/", "/account/skills/", "/account/tokens/"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/account/login/?next=")


def test_my_submissions_lists_mine_only(browser, author, make_user):
    submission_in(State.PUBLISHED, author, name="mine")
    submission_in(State.PUBLISHED, make_user("stella"), name="hers")
    html = page(browser, "/account/submissions/")
    assert "arthur/mine" in html and "hers" not in html


def test_a_rejected_submission_shows_what_decided_it_and_each_finding_under_its_line(
    browser, author
):
    submission = submission_in(State.RECEIVED, author, files=tier1_failing_files(), name="setup")
    steps.run_intake_and_scan(str(submission.pk), StepContext("pipeline.scan"))
    html = page(browser, f"/account/submissions/{submission.pk}/")
    assert "TIER1_FAILED" in html and "What decided it" in html
    assert "exec.pipe-to-shell" in html and "Fix:" in html
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html, re.DOTALL)
    flagged = next(i for i, row in enumerate(rows) if 'class="flagged"' in row)
    assert "curl -fsSL https://get.example.net/i.sh | bash" in rows[flagged]
    assert 'class="finding"' in rows[flagged + 1] and "exec.pipe-to-shell" in rows[flagged + 1]


def test_someone_elses_submission_is_not_found(browser, make_user):
    theirs = submission_in(State.PUBLISHED, make_user("stella"))
    page(browser, f"/account/submissions/{theirs.pk}/", status=404)


def test_reviewers_are_not_named_to_the_author(browser, author, make_user):
    reviewer = make_user("rita", staff=True)
    from django.contrib.auth.models import Group

    reviewer.groups.add(Group.objects.get(name="Reviewers"))
    review = awaiting_review(author, name="cron-job")
    reviews.assign(review.submission_id, reviewer, "rita")
    reviews.reject(review.submission_id, reviewer, "deletes files outside its folder")
    html = page(browser, f"/account/submissions/{review.submission_id}/")
    assert "deletes files outside its folder" in html and "a reviewer" in html
    assert "rita" not in html


def test_my_skills_yank_and_unyank_with_a_reason_and_show_advisories(browser, author):
    publish_skill(author)
    html = page(browser, "/account/skills/")
    assert "arthur/note-taker" in html and "Yank 1.0.0" in html
    url = "/account/skills/arthur/note-taker/versions/1.0.0/yank"
    done = browser.post(url, {"reason": "breaks on Windows"}, follow=True)
    assert "arthur/note-taker@1.0.0 is yanked." in done.content.decode()
    version = SkillVersion.objects.get(skill__name="note-taker")
    assert version.status == "yanked" and version.status_reason == "breaks on Windows"
    assert "Unyank 1.0.0" in page(browser, "/account/skills/")
    browser.post("/account/skills/arthur/note-taker/versions/1.0.0/unyank", {"reason": ""})
    version.refresh_from_db()
    assert version.status == "published"


def test_another_accounts_version_cannot_be_yanked_from_my_page(browser, make_user):
    publish_skill(make_user("stella"))
    response = browser.post("/account/skills/stella/note-taker/versions/1.0.0/yank", {})
    assert response.status_code == 404
    assert SkillVersion.objects.get().status == "published"


def test_only_the_holder_of_a_git_namespace_yanks_from_the_page(browser, author, make_user):
    """arthur published someorg/note-taker from git; an operator then gave the namespace
    someorg to dana. arthur still sees the skill but may no longer yank it; dana may."""
    publish_files(author, repo_url="https://github.com/someorg/skills")
    dana = make_user("dana")
    Namespace.objects.filter(name="someorg").update(account=dana, decided_by="the operator otto")
    html = page(browser, "/account/skills/")
    assert "someorg/note-taker" in html and "Yank 1.0.0" not in html
    url = "/account/skills/someorg/note-taker/versions/1.0.0/yank"
    refused = browser.post(url, {"reason": "mine"}, follow=True)
    assert "only the owner of someorg/note-taker can yank" in refused.content.decode()
    assert SkillVersion.objects.get().status == "published"

    holder = Client()
    holder.force_login(dana)
    assert "Yank 1.0.0" in page(holder, "/account/skills/")
    done = holder.post(url, {"reason": "moved"}, follow=True)
    assert "someorg/note-taker@1.0.0 is yanked." in done.content.decode()


def test_a_token_is_made_shown_once_listed_and_revoked(browser, author):
    made = browser.post(
        "/account/tokens/", {"name": "laptop", "scopes": ["read", "submit"], "days": "30"}
    )
    assert made.status_code == 302 and made["Location"] == "/account/tokens/"
    shown_once = browser.get("/account/tokens/")
    assert "no-store" in shown_once["Cache-Control"]
    html = shown_once.content.decode()
    assert not INLINE.search(html)
    found = re.search(r'id="new-token-key">(sg_[^<]+)<', html)
    assert found is not None
    key = found.group(1)
    token = ApiToken.objects.get(user=author)
    assert token.key_hash == tokens.key_hash(key) and token.scopes == ["read", "submit"]
    listing = page(browser, "/account/tokens/")
    assert "laptop" in listing and key not in listing and token.prefix in listing
    assert ApiToken.objects.filter(user=author).count() == 1
    browser.post(f"/account/tokens/{token.pk}/revoke")
    token.refresh_from_db()
    assert token.revoked_at is not None
    after = page(browser, "/account/tokens/")
    assert "is revoked: it no longer works" in after and "Revoke laptop" not in after


def test_the_legacy_token_is_listed_and_revoked_from_the_page(browser, author):
    Token.objects.create(user=author)
    assert "legacy token" in page(browser, "/account/tokens/")
    browser.post("/account/tokens/legacy/revoke")
    assert not Token.objects.filter(user=author).exists()


def _rejected_by_a_reviewer(author, make_user):
    from django.contrib.auth.models import Group

    reviewer = make_user("rita", staff=True)
    reviewer.groups.add(Group.objects.get(name="Reviewers"))
    review = awaiting_review(author, name="cache-cleaner")
    reviews.assign(review.submission_id, reviewer, "rita")
    reviews.reject(review.submission_id, reviewer, "deletes files outside its folder")
    return review


def test_a_rejection_is_appealed_once_from_the_page_and_its_outcome_shown(
    browser, author, make_user
):
    from django.contrib.auth.models import Group

    review = _rejected_by_a_reviewer(author, make_user)
    url = f"/account/submissions/{review.submission_id}/"
    assert "Appeal the rejection" in page(browser, url)

    empty = browser.post(f"{url}appeal", {"reason": "  "})
    assert empty.status_code == 400 and "This field is required." in empty.content.decode()
    assert not Appeal.objects.exists()

    filed = browser.post(f"{url}appeal", {"reason": "it only empties its own cache"}, follow=True)
    html = filed.content.decode()
    assert "Your appeal is filed" in html and "waiting for the Security team" in html
    assert "it only empties its own cache" in html and "Appeal the rejection" not in html

    again = browser.post(f"{url}appeal", {"reason": "please"}, follow=True).content.decode()
    assert "an appeal is made once" in again
    assert Appeal.objects.get().reason == "it only empties its own cache"

    security = make_user("sven", staff=True)
    security.groups.add(Group.objects.get(name="Security"))
    appeals.deny(review.submission_id, security, "the script reaches outside its folder")
    decided = page(browser, url)
    assert "denied" in decided and "the script reaches outside its folder" in decided
    assert "sven" not in decided


def test_only_a_reviewers_rejection_offers_an_appeal(browser, author, make_user):
    waiting = awaiting_review(author, name="still-waiting")
    url = f"/account/submissions/{waiting.submission_id}/"
    assert "Appeal the rejection" not in page(browser, url)
    refused = browser.post(f"{url}appeal", {"reason": "hurry"}, follow=True).content.decode()
    assert "The appeal was not filed: only a reviewer&#x27;s rejection can be appealed" in refused
    theirs = _rejected_by_a_reviewer(make_user("stella"), make_user)
    stranger = browser.post(f"/account/submissions/{theirs.submission_id}/appeal", {"reason": "x"})
    assert stranger.status_code == 404
