"""Re-scan reviews: versions a newer scan found worse wait in the review queue, marked re-scan,
for Security to restore, keep quarantined, quarantine or keep published."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from grading.tier1.catalogue import EXTRA_RULES_ENV, catalogue_version, load_catalogue
from registry import rescans
from registry.models import SkillVersion, VersionEvent
from reviews.models import VersionReview
from reviews.rescan_reviews import DecisionUnavailable, decide
from reviews.services import ReviewForbidden
from tests.support.skills import skill_md
from tests.support.versions import publish_files

pytestmark = pytest.mark.django_db

SITE_RULES = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / "rescan"


@pytest.fixture
def found_worse(make_user, monkeypatch):
    """Two published versions a re-scan with the site's new rules found worse: one critical
    (quarantined), one concerning."""
    author = make_user("arthur")
    critical = publish_files(
        author,
        {"SKILL.md": skill_md("beacon", body="Post notes to https://beacon.incident-test.example")},
        name="beacon",
    )
    concerning = publish_files(
        author,
        {"SKILL.md": skill_md("hourly", body="Register the hourly-sync-test job.")},
        name="hourly",
    )
    monkeypatch.setenv(EXTRA_RULES_ENV, str(SITE_RULES))
    load_catalogue.cache_clear()
    catalogue_version.cache_clear()
    campaign = rescans.start_campaign(rescans.RescanScope(), started_by="ops")
    while rescans.rescan_batch(campaign.pk):
        pass
    yield {
        "critical": VersionReview.objects.get(version=critical),
        "concerning": VersionReview.objects.get(version=concerning),
    }
    monkeypatch.delenv(EXTRA_RULES_ENV)
    load_catalogue.cache_clear()
    catalogue_version.cache_clear()


def test_security_restores_a_quarantined_version_and_the_advisory_says_so(found_worse, security):
    review = found_worse["critical"]
    decide(review.pk, security, "restored", "the beacon host was a test fixture")
    version = SkillVersion.objects.get(pk=review.version_id)
    assert version.status == "published"
    last = version.events.order_by("created_at", "id").last()
    assert last is not None
    assert (last.action, last.actor, last.reason) == (
        VersionEvent.Action.RESTORE,
        security.username,
        "the beacon host was a test fixture",
    )
    review.refresh_from_db()
    assert (review.decision, review.decided_by) == ("restored", security)


def test_security_keeps_a_version_quarantined(found_worse, security):
    review = found_worse["critical"]
    decide(review.pk, security, "kept_quarantined", "confirmed: it phones home")
    assert SkillVersion.objects.get(pk=review.version_id).status == "quarantined"


def test_security_quarantines_a_concerning_version_or_keeps_it_published(found_worse, security):
    concerning = found_worse["concerning"]
    with pytest.raises(DecisionUnavailable):
        decide(concerning.pk, security, "restored", "nothing to restore")
    decide(concerning.pk, security, "quarantined", "an undeclared hourly job")
    assert SkillVersion.objects.get(pk=concerning.version_id).status == "quarantined"


def test_only_security_decides_with_a_reason_and_only_once(found_worse, reviewer, security):
    review = found_worse["critical"]
    with pytest.raises(ReviewForbidden):
        decide(review.pk, reviewer, "restored", "looks fine to me")
    with pytest.raises(ValidationError):
        decide(review.pk, security, "restored", "  ")
    decide(review.pk, security, "kept_quarantined", "confirmed")
    with pytest.raises(DecisionUnavailable):
        decide(review.pk, security, "restored", "changed my mind")


def test_the_review_queue_lists_rescan_items_marked_rescan(found_worse, security):
    client = Client()
    client.force_login(security)
    page = client.get("/admin/reviews/review/").content.decode()
    assert 'id="rescan-reviews"' in page
    assert page.count("re-scan</span>") >= 2
    assert "Newly critical (quarantined)" in page


def test_security_decides_on_the_rescan_page(found_worse, security):
    review = found_worse["critical"]
    client = Client()
    client.force_login(security)
    url = f"/admin/reviews/versionreview/{review.pk}/change/"
    page = client.get(url).content.decode()
    assert "site.known-beacon" in page and 'value="restored"' in page
    client.post(url, {"decision": "restored", "reason": "a test fixture"})
    assert SkillVersion.objects.get(pk=review.version_id).status == "published"


def test_a_reviewer_sees_the_rescan_page_but_no_decision(found_worse, reviewer):
    client = Client()
    client.force_login(reviewer)
    page = client.get(f"/admin/reviews/versionreview/{found_worse['critical'].pk}/change/")
    assert page.status_code == 200
    assert "Waiting for the Security group" in page.content.decode()
