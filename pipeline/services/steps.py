"""The pipeline's steps: intake → scan → judge → publish, sent as three messages (intake and
Tier 1 share one: both are fast and deterministic, and a message saved is a broker round trip
saved per submission).

Each step reads the submission's current state and does nothing unless the submission is
waiting for it, so a redelivered or replayed message is harmless. A step stores its result and
moves the state in one transaction: a crash before the commit leaves nothing behind, and of
two deliveries racing on the same step exactly one commits. A result that arrives after the
submission was timed out or given up on is stored marked *late* and changes nothing
(seed 002 §4.5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.statements import column, converted, table
from grading import policy, tier1
from grading.judges import get_judge
from grading.records import Thresholds, Tier2Record, decode_tier1
from grading.types import Decision, Finding, Judgement, Tier1Report
from pipeline import workflow
from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.attempts import (
    Started,
    StepContext,
    Succeeded,
    begin_attempt,
    finishing,
    start_attempt,
)
from pipeline.services.intake import take_in
from pipeline.services.publishing import publish
from pipeline.signals import submission_needs_review
from pipeline.sources.errors import SourceRejected
from pipeline.states import TERMINAL_STATES, State
from pipeline.transitions import (
    Actor,
    Change,
    CompanionWrite,
    TransitionConflict,
    moved_in_memory,
    transition,
)
from registry import results
from registry.models import GradingResult, SkillVersion

logger = logging.getLogger(__name__)

_INTAKE = frozenset({State.RECEIVED})
_SCAN = frozenset({State.TIER1_SCANNING})
_TOP_FINDINGS = 3
_VENDOR_HELD = "a verified vendor source with a critical Tier 1 finding: a person decides"


# What each step reads of the bundle, with its submission.
_FILES = ("files",)
_MANIFEST = ("manifest",)


def run_intake_and_scan(submission_id: str, context: StepContext) -> None:
    """The first message: route the submission (vendor or scan), then run Tier 1 on it. The
    submission is read once: the scan goes on from what intake left in memory."""
    started = start_attempt(submission_id, context, workflow.SCAN.stages, _FILES, _tier1_read())
    if started is None:
        return
    if started.submission.state == State.TIER1_SCANNING:
        with finishing(started.attempt):
            _scan(started, _stored_tier1(started))
        return
    with finishing(started.attempt):
        routed = _intake(started)
    if routed is None or started.submission.state != State.TIER1_SCANNING:
        return
    scanning = begin_attempt(started.submission, context)
    with finishing(scanning.attempt):
        _scan(scanning, routed.tier1)


def run_intake(submission_id: str, context: StepContext) -> None:
    """RECEIVED → VENDOR_APPROVED for a verified vendor source whose Tier 1 scan finds nothing
    critical, else → TIER1_SCANNING; → REJECTED (error outcome) when a git source cannot be used.

    The vendor route is decided here because the state machine has no edge from TIER1_SCANNING
    to VENDOR_APPROVED: a vendor bundle is scanned by Tier 1 before the route is chosen, and the
    result is stored like everyone else's. A critical finding sends it down the normal path,
    held for a person: Tier 1 passes it on whatever its verdict, and the judge step sends it to
    review whatever the score.
    """
    started = start_attempt(submission_id, context, _INTAKE, _FILES)
    if started is None:
        return
    with finishing(started.attempt):
        _intake(started)


def run_scan(submission_id: str, context: StepContext) -> None:
    """Tier 1: TIER1_SCANNING → TIER2_SCANNING on PASS, → TIER1_FAILED (final) on FAIL. A
    vendor submission held at intake was already scanned and always goes on to the judge."""
    started = start_attempt(submission_id, context, _SCAN, _FILES, _tier1_read())
    if started is None:
        return
    with finishing(started.attempt):
        _scan(started, _stored_tier1(started))


def run_judge(submission_id: str, context: StepContext) -> None:
    """Tier 2: the judge's score and the decision policy pick AUTO_APPROVED, NEEDS_REVIEW or
    REJECTED."""
    started = start_attempt(submission_id, context, workflow.JUDGE.stages, _FILES, _tier1_read())
    if started is None:
        return
    submission = started.submission
    with finishing(started.attempt):
        report = _stored_tier1(started)
        if report is None:
            raise ScanResult.DoesNotExist(f"submission {submission.pk} has no Tier 1 result")
        judgement = get_judge().judge(_scan_input(submission), report)
        thresholds = Thresholds(
            settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE, settings.SKILLGATE_REVIEW_MIN_SCORE
        )
        decision = policy.decide(
            report,
            judgement,
            auto_approve_min=thresholds.auto_approve_min,
            review_min=thresholds.review_min,
        )
        if submission.vendor_org_id is not None:
            decision = Decision("review", (_VENDOR_HELD, *decision.reasons))
        record = Tier2Record(judgement, decision, thresholds)

        def needs_review() -> None:
            submission_needs_review.send(
                Submission,
                submission=submission,
                decision=decision,
                tier1=report,
                judgement=judgement,
            )

        _store_and_apply(
            started,
            PendingResult(
                ScanResult.Tier.TIER2,
                lambda: results.record_tier2(
                    _bundle_sha256(submission), report.catalogue_version, record
                ),
            ),
            _judge_change(judgement, decision),
            then=needs_review if decision.outcome == "review" else None,
        )


def run_publish(submission_id: str, context: StepContext) -> None:
    """AUTO_APPROVED / VENDOR_APPROVED → PUBLISHED with its version assigned."""
    started = start_attempt(submission_id, context, workflow.PUBLISH.stages, _MANIFEST)
    if started is None:
        return
    submission = started.submission
    channel = (
        SkillVersion.Channel.VENDOR
        if submission.state == State.VENDOR_APPROVED
        else SkillVersion.Channel.AUTOMATIC
    )
    with finishing(started.attempt):
        try:
            publish(
                submission,
                channel,
                Actor.system(),
                "publish-complete",
                also=(Succeeded(started.attempt),),
            )
        except TransitionConflict as conflict:
            logger.info("publish of %s skipped: %s", submission.pk, conflict)


@dataclass(frozen=True)
class Routed:
    """Where intake sent the submission, and the Tier 1 report it already made (vendor
    sources are scanned before they are routed)."""

    tier1: Tier1Report | None = None


def _intake(started: Started) -> Routed | None:
    """Route the submission (see ``run_intake``); None when it did not move. On success the
    submission in memory is the one stored."""
    submission = started.submission
    try:
        intake = take_in(submission)
    except SourceRejected as rejected:
        _store_and_apply(started, None, _source_rejected(submission, rejected))
        return None
    if intake.vendor_org is None:
        change = Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "non-vendor-submission",
            Actor.system(),
            metadata=intake.metadata,
            updates=intake.updates,
        )
        return Routed() if _store_and_apply(started, None, change) else None
    report = tier1.scan(intake.bundle.scan_input())
    critical = [f for f in report.findings if f.severity == "critical"]
    metadata = {**intake.metadata, "tier1_findings": len(report.findings)}
    if critical:
        change = Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "vendor-tier1-critical",
            Actor.system(),
            metadata={**metadata, "critical": _summaries(critical)},
            updates=intake.updates,
        )
    else:
        change = Change(
            State.RECEIVED,
            State.VENDOR_APPROVED,
            "vendor-auto-verify",
            Actor.system(),
            metadata=metadata,
            updates=intake.updates,
        )
    result = _tier1_result(intake.bundle.sha256, report)
    return Routed(report) if _store_and_apply(started, result, change) else None


def _scan(started: Started, stored: Tier1Report | None) -> None:
    """Tier 1 on the submission (see ``run_scan``), or its ``stored`` report from intake."""
    submission = started.submission
    report = stored or tier1.scan(_scan_input(submission))
    metadata = {"findings": len(report.findings), "duration_ms": round(report.duration_ms, 1)}
    if submission.vendor_org_id is not None:
        change = Change(
            State.TIER1_SCANNING,
            State.TIER2_SCANNING,
            "tier1-vendor-held",
            Actor.worker(),
            metadata,
        )
    elif report.verdict == "PASS":
        change = Change(
            State.TIER1_SCANNING, State.TIER2_SCANNING, "tier1-pass", Actor.worker(), metadata
        )
    else:
        change = Change(
            State.TIER1_SCANNING,
            State.TIER1_FAILED,
            "tier1-fail",
            Actor.worker(),
            {**metadata, "critical": _summaries(_blocking(report.findings))},
            outcome=Outcome.verdict(OutcomeCode.TIER1_FAILED, _tier1_message(report)),
        )
    result = None if stored else _tier1_result(_bundle_sha256(submission), report)
    _store_and_apply(started, result, change)


def _bundle_sha256(submission: Submission) -> str:
    """The bundle a step past intake grades: intake stores it with the move to scanning, so a
    submission without one in a later state is a broken invariant, not a case to handle."""
    if submission.bundle_id is None:
        raise _without_bundle(submission)
    return submission.bundle_id


def _scan_input(submission: Submission) -> dict[str, str | bytes]:
    if submission.bundle is None:
        raise _without_bundle(submission)
    return submission.bundle.as_bundle().scan_input()


def _without_bundle(submission: Submission) -> ValueError:
    return ValueError(f"submission {submission.pk} reached {submission.state} without a bundle")


def _tier1_read() -> dict[str, str]:
    """The submission's stored Tier 1 report (by intake for a vendor source, by the scan for the
    judge), read with the submission when the step starts."""
    return {
        "tier1_report": f"SELECT r.{column(GradingResult, 'report')}"
        f" FROM {table(ScanResult)} s JOIN {table(GradingResult)} r"
        f" ON r.id = s.{column(ScanResult, 'result')}"
        f" WHERE s.{column(ScanResult, 'submission')} = submission.id"
        f" AND s.{column(ScanResult, 'tier')} = {ScanResult.Tier.TIER1.value}"
        f" AND NOT s.{column(ScanResult, 'is_late')}"
    }


def _stored_tier1(started: Started) -> Tier1Report | None:
    report = started.read["tier1_report"]
    return None if report is None else decode_tier1(converted(GradingResult, "report", report))


@dataclass(frozen=True)
class PendingResult:
    """A tier's result to record for the submission with the step's transition."""

    tier: int
    record: Callable[[], GradingResult]


class _Linked(CompanionWrite):
    """The submission's link to its tier's grading result, written with the transition."""

    def __init__(self, tier: int, result: GradingResult) -> None:
        self.tier = tier
        self.result = result
        self.created_at = timezone.now()

    def sql(self, moved: str) -> tuple[str, list[Any]]:
        names = ("submission_id", "tier", "result_id", "is_late", "created_at")
        return (
            f"INSERT INTO {table(ScanResult)}"
            f" ({', '.join(column(ScanResult, name) for name in names)})"
            f" SELECT id, %s, %s, false, %s FROM {moved}",
            [self.tier, self.result.pk, self.created_at],
        )

    def write(self, submission_id: UUID | str) -> None:
        ScanResult.objects.create(submission_id=submission_id, tier=self.tier, result=self.result)


def _store_and_apply(
    started: Started,
    result: PendingResult | None,
    change: Change,
    then: Callable[[], object] | None = None,
) -> bool:
    """Move the state with the result's link and the attempt's success, running ``then`` in the
    same transaction; keep a late result when the submission was timed out or given up on in
    the meantime. True when the submission moved (and is updated in memory).

    The grading result itself is recorded first, on its own: it is a fact about the bundle,
    shared by every submission of it, not part of this submission's transition.
    """
    submission = started.submission
    graded = result.record() if result is not None else None
    link = _Linked(result.tier, graded) if result is not None and graded is not None else None
    also = [*([link] if link else []), Succeeded(started.attempt)]
    try:
        with transaction.atomic() if then is not None else nullcontext():
            event = transition(
                submission.pk, change, entered_at=submission.state_changed_at, also=also
            )
            if then is not None:
                then()
    except IntegrityError:
        if link is None:
            raise
        stored_by_another_delivery = ScanResult.objects.filter(
            submission=submission, tier=link.tier, is_late=False
        ).exists()
        if not stored_by_another_delivery:
            raise
        logger.info("%s skipped: tier %s result already stored", change.trigger, link.tier)
        return False
    except TransitionConflict as conflict:
        if link is not None and conflict.actual in TERMINAL_STATES:
            ScanResult.objects.create(
                submission=submission, tier=link.tier, result=link.result, is_late=True
            )
            logger.info("stored a late tier %s result for %s", link.tier, submission.pk)
        else:
            logger.info("%s skipped: %s", change.trigger, conflict)
        return False
    moved_in_memory(submission, change, event)
    return True


def _source_rejected(submission: Submission, rejected: SourceRejected) -> Change:
    """A git source that cannot be used ends the submission with an error outcome: it is not a
    verdict on the skill, and the message says what to fix before resubmitting."""
    return Change(
        State.RECEIVED,
        State.REJECTED,
        "source-rejected",
        Actor.system(),
        metadata={"field": rejected.field},
        outcome=Outcome.error(
            OutcomeCode.SOURCE_REJECTED,
            f"The git source could not be used ({rejected.field}): {rejected.message}. "
            "Fix it and submit again.",
        ),
    )


def _tier1_result(bundle_sha256: str, report: Tier1Report) -> PendingResult:
    return PendingResult(ScanResult.Tier.TIER1, lambda: results.record_tier1(bundle_sha256, report))


def _judge_change(judgement: Judgement, decision: Decision) -> Change:
    metadata: dict[str, Any] = {
        "score": judgement.score,
        "model": judgement.model,
        "provider": judgement.provider,
        "reasons": list(decision.reasons),
    }
    if decision.outcome == "auto_approve":
        return Change(
            State.TIER2_SCANNING, State.AUTO_APPROVED, "tier2-pass", Actor.worker(), metadata
        )
    if decision.outcome == "review":
        return Change(
            State.TIER2_SCANNING,
            State.NEEDS_REVIEW,
            "tier2-concerns",
            Actor.worker(),
            {**metadata, "concerns": len(judgement.concerns)},
        )
    return Change(
        State.TIER2_SCANNING,
        State.REJECTED,
        "tier2-fail",
        Actor.worker(),
        metadata,
        outcome=Outcome.verdict(
            OutcomeCode.SCORE_TOO_LOW,
            f"The judge scored this skill {judgement.score}/100, below the "
            f"{settings.SKILLGATE_REVIEW_MIN_SCORE} needed for review. Main concerns: "
            + (
                "; ".join(f"{c.category} in {c.file}" for c in judgement.concerns[:_TOP_FINDINGS])
                or "none listed"
            ),
        ),
    )


def _blocking(findings: tuple[Finding, ...]) -> list[Finding]:
    return [f for f in findings if f.severity == "critical" and f.confidence == "high"]


def _summaries(findings: list[Finding]) -> list[str]:
    return [f"{f.rule_id} at {f.file}:{f.line}" for f in findings[:_TOP_FINDINGS]]


def _tier1_message(report: Tier1Report) -> str:
    blocking = _blocking(report.findings)
    return (
        f"Tier 1 found {len(blocking)} critical issue(s): {', '.join(_summaries(blocking))}. "
        "This verdict is final for this bundle."
    )
