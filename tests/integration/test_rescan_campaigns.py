"""Re-scan campaigns on the real stack: versions published by the real pipeline, re-scanned by
real workers after the rule catalogue changed; a worker killed mid-campaign loses nothing.

The rule change is the site's own rules folder (``SKILLGATE_TIER1_EXTRA_RULES``), given to the
workers and to this process (which starts the campaign and records its catalogue version).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.db.models import Count
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.tier1.catalogue import EXTRA_RULES_ENV, catalogue_version, load_catalogue
from pipeline.states import State
from registry import rescans
from registry.models import GradingResult, RescanCampaign, RescanItem, SkillVersion
from reviews.models import VersionReview
from tests.integration.conftest import wait_for_state
from tests.support.cli import skillgate
from tests.support.skills import skill_md
from tests.support.stack import WebServer, stack_environment, wait_until
from tests.support.versions import publish_skill

pytestmark = pytest.mark.integration

SITE_RULES = str(Path(__file__).resolve().parents[1] / "fixtures" / "rules" / "rescan")


@pytest.fixture
def site_rules(monkeypatch):
    """Call it to add the site's rules: to the workers started from then on (they inherit this
    process's environment) and to this process (the campaign records their version)."""

    def add() -> None:
        monkeypatch.setenv(EXTRA_RULES_ENV, SITE_RULES)
        load_catalogue.cache_clear()
        catalogue_version.cache_clear()

    yield add
    monkeypatch.delenv(EXTRA_RULES_ENV, raising=False)
    load_catalogue.cache_clear()
    catalogue_version.cache_clear()


def publish_through_the_pipeline(author, name: str, body: str) -> SkillVersion:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=author)[0].key}")
    response = api.post(
        "/api/v1/submissions", {"files": {"SKILL.md": skill_md(name, body=body)}}, format="json"
    )
    assert response.status_code == 201, response.json()
    submission = wait_for_state(response.json()["id"], [State.PUBLISHED])
    assert submission.published_version_id is not None
    return SkillVersion.objects.get(pk=submission.published_version_id)


def finished(campaign: RescanCampaign, timeout: float = 90) -> RescanCampaign:
    def done() -> RescanCampaign | None:
        campaign.refresh_from_db()
        return campaign if campaign.status == RescanCampaign.Status.FINISHED else None

    return wait_until(done, timeout, message=f"campaign {campaign.pk} to finish")


def test_after_a_rule_change_a_campaign_quarantines_what_fails_and_reviews_what_concerns(
    fleet, author, site_rules, tmp_path
):
    fleet.ensure(1)
    suffix = uuid.uuid4().hex[:6]
    beacon = publish_through_the_pipeline(
        author, f"beacon-{suffix}", "Tag each note with beacon.incident-test.example for search."
    )
    hourly = publish_through_the_pipeline(
        author, f"hourly-{suffix}", "Title the summary hourly-sync-test."
    )
    plain = publish_through_the_pipeline(author, f"plain-{suffix}", "Keep the notes short.")
    assert beacon.tier1_result is not None and beacon.tier2_result is not None

    site_rules()
    fleet.ensure(1, **{EXTRA_RULES_ENV: SITE_RULES})
    scope = rescans.RescanScope(owner=author.username)
    campaign = finished(rescans.start_campaign(scope, started_by="ops"))

    assert (campaign.total, campaign.done, campaign.changed, campaign.failed) == (3, 3, 2, 0)
    statuses = dict(
        SkillVersion.objects.filter(pk__in=[beacon.pk, hourly.pk, plain.pk]).values_list(
            "pk", "status"
        )
    )
    assert statuses == {beacon.pk: "quarantined", hourly.pk: "published", plain.pk: "published"}
    severities = dict(
        VersionReview.objects.filter(version__in=[beacon, hourly]).values_list(
            "version_id", "severity"
        )
    )
    assert severities == {beacon.pk: "critical", hourly.pk: "concerning"}
    archive = f"/api/v1/skills/{author.username}/beacon-{suffix}/versions/1.0.0/archive"
    assert Client().get(archive).status_code == 410

    web = WebServer(stack_environment())
    web.start()
    try:
        refused = skillgate(
            "install", f"{author.username}/beacon-{suffix}@1.0.0", "--dest", str(tmp_path),
            registry=web.url,
        )  # fmt: skip
    finally:
        web.stop()
    assert refused.returncode == 5, refused.stdout + refused.stderr
    assert "quarantined" in (refused.stdout + refused.stderr).lower()
    assert not any(tmp_path.iterdir())


def test_a_worker_killed_mid_campaign_loses_no_version_and_scans_none_twice(
    fleet, author, site_rules
):
    versions = [publish_skill(author, f"notes-{index}") for index in range(150)]
    site_rules()
    fleet.ensure(1, **{EXTRA_RULES_ENV: SITE_RULES}, SKILLGATE_RESCAN_SLICE_S="0.5")
    scope = rescans.RescanScope(owner=author.username)
    campaign = rescans.start_campaign(scope, started_by="ops")

    def some_done() -> bool:
        campaign.refresh_from_db()
        return 10 <= campaign.done < campaign.total

    wait_until(some_done, 60, interval=0.02, message="the campaign to be under way")
    fleet.kill_all()
    campaign.refresh_from_db()
    assert campaign.done < campaign.total, "the kill came too late to prove anything"

    fleet.ensure(1, **{EXTRA_RULES_ENV: SITE_RULES})
    campaign = finished(campaign)

    assert (campaign.done, campaign.failed) == (len(versions), 0)
    items = RescanItem.objects.filter(campaign=campaign)
    assert items.filter(status="done").count() == len(versions)
    assert not items.exclude(status="done").exists()
    per_bundle = (
        GradingResult.objects.filter(
            bundle__in=[v.bundle_id for v in versions], catalogue_version=catalogue_version()
        )
        .values("bundle", "tier")
        .annotate(n=Count("id"))
    )
    assert {row["n"] for row in per_bundle} == {1}
    assert len(per_bundle) == 2 * len(versions)
