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
from uuid import UUID

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, Q, QuerySet
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
BATCH_SIZE = 20
"""Versions re-scanned per transaction: the database work of a batch is a handful of
statements whatever its size."""
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


def rescan_batch(campaign_id: UUID, size: int = BATCH_SIZE) -> int:
    """Re-scan up to ``size`` pending versions of the campaign in one transaction, and return
    how many were taken: 0 when none is left to take (the campaign is then marked finished once
    no item is pending at all)."""
    with transaction.atomic():
        items = list(
            RescanItem.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("version__bundle", "version__tier1_result", "version__tier2_result")
            .filter(campaign_id=campaign_id, status=RescanItem.Status.PENDING)
            .order_by("id")[:size]
        )
        if not items:
            _finish_if_done(campaign_id)
            return 0
        grader = _Grader([item.version.bundle_id for item in items])
        graded, failed = [], []
        for item in items:
            try:
                graded.append((item, grader.grade(item.version)))
            except RETRY_LATER:
                raise
            except Exception as exc:
                # One version the graders choke on must not stop the campaign: it is recorded
                # as failed, with the error, for operators to look at; the rest goes on.
                logger.exception("re-scan of version %s failed", item.version_id)
                failed.append((item, exc))
        grader.save_new_results()
        _record(campaign_id, graded, failed)
    return len(items)


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


class _Grader:
    """Grades a batch of bundles with today's catalogue and judge, reusing the results that
    already exist for them (one query) and holding the new ones until ``save_new_results``."""

    def __init__(self, bundles: list[str]) -> None:
        self.catalogue = tier1.catalogue_version()
        self.judge = get_judge()
        self.thresholds = Thresholds(
            settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE, settings.SKILLGATE_REVIEW_MIN_SCORE
        )
        self.known: dict[tuple[str, int], GradingResult] = {
            (result.bundle_id, result.tier): result
            for result in GradingResult.objects.filter(
                bundle_id__in=bundles, catalogue_version=self.catalogue
            ).filter(Q(tier=1, judge_version="") | Q(tier=2, judge_version=self.judge.version))
        }
        self.new: list[GradingResult] = []

    def grade(self, version: SkillVersion) -> tuple[GradingResult, GradingResult | None]:
        """The version's Tier 1 result and (unless Tier 1 fails: that is final) Tier 2's."""
        sha256 = version.bundle_id
        files = None
        if (sha256, 1) not in self.known:
            files = version.bundle.as_bundle().scan_input()
            self._add(results.tier1_record(sha256, tier1.scan(files)))
        tier1_result = self.known[(sha256, 1)]
        report = tier1_result.tier1_report
        if report.verdict == "FAIL":
            return tier1_result, None
        if (sha256, 2) not in self.known:
            files = files or version.bundle.as_bundle().scan_input()
            judgement = self.judge.judge(files, report)
            decision = policy.decide(
                report,
                judgement,
                auto_approve_min=self.thresholds.auto_approve_min,
                review_min=self.thresholds.review_min,
            )
            record = Tier2Record(judgement, decision, self.thresholds)
            self._add(results.tier2_record(sha256, self.catalogue, record))
        return tier1_result, self.known[(sha256, 2)]

    def save_new_results(self) -> None:
        results.save_all(self.new)

    def _add(self, result: GradingResult) -> None:
        self.known[(result.bundle_id, result.tier)] = result
        self.new.append(result)


def _record(
    campaign_id: UUID,
    graded: list[tuple[RescanItem, tuple[GradingResult, GradingResult | None]]],
    failed: list[tuple[RescanItem, Exception]],
) -> None:
    """Write the batch's outcomes: items, the versions' current verdicts, the counters; then
    quarantine what is now critical and announce what needs review."""
    now = timezone.now()
    changed = []
    for item, (tier1_result, tier2_result) in graded:
        version = item.version
        item.previous_tier1, item.previous_tier2 = version.tier1_result, version.tier2_result
        item.outcome, reasons = _compare(
            (version.tier1_result, version.tier2_result), tier1_result, tier2_result
        )
        item.tier1_result, item.tier2_result = tier1_result, tier2_result
        item.status, item.finished_at = RescanItem.Status.DONE, now
        version.tier1_result, version.tier2_result = tier1_result, tier2_result
        if item.outcome != RescanItem.Outcome.UNCHANGED:
            changed.append((item, reasons))
    for item, exc in failed:
        item.status, item.finished_at = RescanItem.Status.FAILED, now
        item.error = f"{exc.__class__.__name__}: {exc}"[:2000]
    RescanItem.objects.bulk_update(
        [item for item, _ in graded] + [item for item, _ in failed],
        ["status", "outcome", "previous_tier1", "previous_tier2", "tier1_result",
         "tier2_result", "error", "finished_at"],
    )  # fmt: skip
    SkillVersion.objects.bulk_update(
        [item.version for item, _ in graded], ["tier1_result", "tier2_result"]
    )
    RescanCampaign.objects.filter(pk=campaign_id).update(
        done=F("done") + len(graded),
        changed=F("changed") + len(changed),
        failed=F("failed") + len(failed),
        progressed_at=now,
    )
    for item, reasons in changed:
        if item.outcome == RescanItem.Outcome.CRITICAL and item.version.status != (
            VersionStatus.QUARANTINED
        ):
            lifecycle.quarantine(
                item.version_id,
                lifecycle.Actor.system(f"re-scan {str(campaign_id)[:8]}"),
                "A re-scan with newer rules found critical issues: " + "; ".join(reasons),
            )
        version_needs_review.send(RescanItem, item=item, severity=item.outcome, reasons=reasons)


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


def _finish_if_done(campaign_id: UUID) -> None:
    pending = RescanItem.objects.filter(campaign_id=campaign_id, status=RescanItem.Status.PENDING)
    if not pending.exists():
        RescanCampaign.objects.filter(pk=campaign_id, status=RescanCampaign.Status.RUNNING).update(
            status=RescanCampaign.Status.FINISHED, finished_at=timezone.now()
        )
