"""Re-scan campaigns: published versions graded again with today's rules and judge, the new
verdict compared with the one each version had, and what turned out bad acted on.

* unchanged (or better): recorded;
* newly concerning (the policy now decides review or rejection): a review item is opened;
* newly critical (Tier 1 now fails): the version is quarantined at once, and a review item is
  opened for Security.

A campaign is resumable by construction: its items are created when it starts, each is done in
one transaction (result, comparison, version pointers, counters, quarantine), and workers take
pending items with ``FOR UPDATE SKIP LOCKED``. A worker killed mid-item leaves the item pending
for the next one; no version is recorded twice and none is skipped. Grading the same bundle with
the same catalogue and judge versions again reuses the stored results (``registry.results``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from grading import policy, tier1
from grading.errors import JudgeError
from grading.judges import get_judge
from grading.records import Thresholds, Tier2Record
from grading.types import Finding
from registry import lifecycle, results
from registry.models import (
    GradingResult,
    RescanCampaign,
    RescanItem,
    SkillVersion,
    VersionStatus,
)
from registry.signals import campaign_started, version_needs_review

logger = logging.getLogger(__name__)

_DECISION_RANK = {"auto_approve": 0, "review": 1, "reject": 2}
RETRY_LATER: tuple[type[Exception], ...] = (JudgeError, OperationalError, InterfaceError)
"""Failures of the world around a re-scan (a judge endpoint, the database): the item stays
pending and the message is retried; anything else fails the one item."""
_ITEM_BATCH = 2_000
_LISTED_FINDINGS = 3


@dataclass(frozen=True)
class RescanScope:
    """Which published (or yanked) versions a campaign re-scans: all of them, one owner's, those
    published since a day, or the ones chosen by id (an admin selection)."""

    owner: str = ""
    since: date | None = None
    version_ids: tuple[int, ...] = field(default=())

    def versions(self) -> QuerySet[SkillVersion]:
        versions = SkillVersion.objects.exclude(status=VersionStatus.QUARANTINED)
        if self.owner:
            versions = versions.filter(skill__owner=self.owner.lower())
        if self.since:
            versions = versions.filter(published_at__date__gte=self.since)
        if self.version_ids:
            versions = versions.filter(pk__in=self.version_ids)
        return versions

    def to_json(self) -> dict[str, Any]:
        scope: dict[str, Any] = {}
        if self.owner:
            scope["owner"] = self.owner.lower()
        if self.since:
            scope["since"] = self.since.isoformat()
        if self.version_ids:
            scope["versions"] = len(self.version_ids)
        return scope or {"all": True}


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    changed: int
    failed: int
    eta: timedelta | None


def start_campaign(scope: RescanScope, started_by: str) -> RescanCampaign:
    """Create the campaign and one pending item per version in scope; its messages are sent
    once the transaction commits (by whoever listens to ``campaign_started``)."""
    with transaction.atomic():
        campaign = RescanCampaign.objects.create(
            scope=scope.to_json(),
            catalogue_version=tier1.catalogue_version(),
            judge_version=get_judge().version,
            started_by=started_by,
        )
        ids = list(scope.versions().order_by("id").values_list("id", flat=True))
        RescanItem.objects.bulk_create(
            (RescanItem(campaign=campaign, version_id=version_id) for version_id in ids),
            batch_size=_ITEM_BATCH,
        )
        campaign.total = len(ids)
        if not ids:
            campaign.status = RescanCampaign.Status.FINISHED
            campaign.finished_at = timezone.now()
        campaign.save(update_fields=["total", "status", "finished_at"])
        campaign_started.send(RescanCampaign, campaign=campaign)
    return campaign


def rescan_next(campaign_id: object) -> bool:
    """Re-scan one pending version of the campaign; False when none is left to take (and the
    campaign is then marked finished once no item is pending at all)."""
    with transaction.atomic():
        item = (
            RescanItem.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("version__bundle", "version__tier1_result", "version__tier2_result")
            .filter(campaign_id=campaign_id, status=RescanItem.Status.PENDING)
            .order_by("id")
            .first()
        )
        if item is None:
            _finish_if_done(campaign_id)
            return False
        try:
            with transaction.atomic():
                _rescan(item)
        except RETRY_LATER:
            raise
        except Exception as exc:
            # One version the graders choke on must not stop the campaign: it is recorded as
            # failed, with the error, for operators to look at; the rest goes on.
            logger.exception("re-scan of version %s failed", item.version_id)
            _record_failure(item, exc)
        return True


def progress(campaign: RescanCampaign, now: datetime | None = None) -> Progress:
    """Done, changed, failed and an estimate of the time left at the rate so far."""
    now = now or timezone.now()
    finished = campaign.done + campaign.failed
    elapsed = (now - campaign.started_at).total_seconds()
    eta = None
    if campaign.status == RescanCampaign.Status.RUNNING and finished and elapsed > 0:
        eta = timedelta(seconds=(campaign.total - finished) * elapsed / finished)
    return Progress(campaign.total, campaign.done, campaign.changed, campaign.failed, eta)


def stalled_campaigns(now: datetime, after: timedelta) -> QuerySet[RescanCampaign]:
    """Running campaigns without progress for ``after``: their messages were lost."""
    return RescanCampaign.objects.filter(
        status=RescanCampaign.Status.RUNNING, progressed_at__lt=now - after
    )


def _rescan(item: RescanItem) -> None:
    version = item.version
    previous = (version.tier1_result, version.tier2_result)
    tier1_result, tier2_result = _grade(version)
    outcome, reasons = _compare(previous, tier1_result, tier2_result)
    now = timezone.now()
    RescanItem.objects.filter(pk=item.pk).update(
        status=RescanItem.Status.DONE,
        outcome=outcome,
        previous_tier1=previous[0],
        previous_tier2=previous[1],
        tier1_result=tier1_result,
        tier2_result=tier2_result,
        finished_at=now,
    )
    SkillVersion.objects.filter(pk=version.pk).update(
        tier1_result=tier1_result, tier2_result=tier2_result
    )
    changed = outcome != RescanItem.Outcome.UNCHANGED
    RescanCampaign.objects.filter(pk=item.campaign_id).update(
        done=F("done") + 1, changed=F("changed") + int(changed), progressed_at=now
    )
    if outcome == RescanItem.Outcome.CRITICAL and version.status != VersionStatus.QUARANTINED:
        lifecycle.quarantine(
            version.pk,
            lifecycle.Actor.system(f"re-scan {str(item.campaign_id)[:8]}"),
            "A re-scan with newer rules found critical issues: " + "; ".join(reasons),
        )
    if changed:
        item.refresh_from_db()
        version_needs_review.send(RescanItem, item=item, severity=outcome, reasons=reasons)


def _grade(version: SkillVersion) -> tuple[GradingResult, GradingResult | None]:
    """Today's Tier 1 and Tier 2 results for the version's bundle, graded only if no result
    of the same catalogue and judge exists yet. A Tier 1 failure is final: no judge then."""
    bundle_sha256 = version.bundle_id
    catalogue = tier1.catalogue_version()
    judge = get_judge()
    tier1_result = GradingResult.objects.filter(
        bundle_id=bundle_sha256, tier=1, catalogue_version=catalogue, judge_version=""
    ).first()
    files = version.bundle.as_bundle().scan_input()
    if tier1_result is None:
        tier1_result = results.record_tier1(bundle_sha256, tier1.scan(files))
    report = tier1_result.tier1_report
    if report.verdict == "FAIL":
        return tier1_result, None
    tier2_result = GradingResult.objects.filter(
        bundle_id=bundle_sha256, tier=2, catalogue_version=catalogue, judge_version=judge.version
    ).first()
    if tier2_result is None:
        thresholds = Thresholds(
            settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE, settings.SKILLGATE_REVIEW_MIN_SCORE
        )
        judgement = judge.judge(files, report)
        decision = policy.decide(
            report,
            judgement,
            auto_approve_min=thresholds.auto_approve_min,
            review_min=thresholds.review_min,
        )
        tier2_result = results.record_tier2(
            bundle_sha256, catalogue, Tier2Record(judgement, decision, thresholds)
        )
    return tier1_result, tier2_result


def _compare(
    previous: tuple[GradingResult | None, GradingResult | None],
    tier1_result: GradingResult,
    tier2_result: GradingResult | None,
) -> tuple[str, list[str]]:
    """Critical when Tier 1 now fails and did not; concerning when the policy now decides worse
    than it did (a version published without a judge counts as auto-approved)."""
    old_tier1, old_tier2 = previous
    report = tier1_result.tier1_report
    if report.verdict == "FAIL":
        if old_tier1 is not None and old_tier1.verdict == "FAIL":
            return RescanItem.Outcome.UNCHANGED, []
        blocking = [f for f in report.findings if f.severity == "critical"]
        return RescanItem.Outcome.CRITICAL, _finding_reasons(blocking)
    assert tier2_result is not None
    old_rank = _DECISION_RANK.get(old_tier2.decision, 0) if old_tier2 else 0
    if _DECISION_RANK.get(tier2_result.decision, 0) <= old_rank:
        return RescanItem.Outcome.UNCHANGED, []
    record = tier2_result.tier2_record
    return RescanItem.Outcome.CONCERNING, [
        *record.decision.reasons,
        *_finding_reasons(list(report.findings)),
    ]


def _finding_reasons(findings: list[Finding]) -> list[str]:
    worst = sorted(findings, key=lambda f: (f.severity != "critical", f.file, f.line))
    return [f"{f.rule_id} at {f.file}:{f.line}" for f in worst[:_LISTED_FINDINGS]]


def _record_failure(item: RescanItem, exc: Exception) -> None:
    now = timezone.now()
    RescanItem.objects.filter(pk=item.pk).update(
        status=RescanItem.Status.FAILED,
        error=f"{exc.__class__.__name__}: {exc}"[:2000],
        finished_at=now,
    )
    RescanCampaign.objects.filter(pk=item.campaign_id).update(
        failed=F("failed") + 1, progressed_at=now
    )


def _finish_if_done(campaign_id: object) -> None:
    pending = RescanItem.objects.filter(campaign_id=campaign_id, status=RescanItem.Status.PENDING)
    if not pending.exists():
        RescanCampaign.objects.filter(pk=campaign_id, status=RescanCampaign.Status.RUNNING).update(
            status=RescanCampaign.Status.FINISHED, finished_at=timezone.now()
        )
