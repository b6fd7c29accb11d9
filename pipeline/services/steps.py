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
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from grading import policy, tier1
from grading.judges import get_judge
from grading.records import Thresholds, Tier2Record
from grading.types import Decision, Finding, Judgement, Tier1Report
from pipeline import workflow
from pipeline.models import ProcessingAttempt, ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.attempts import StepContext, succeed_with, tracked_attempt
from pipeline.services.intake import take_in
from pipeline.services.publishing import publish
from pipeline.signals import submission_needs_review
from pipeline.sources.errors import SourceRejected
from pipeline.states import TERMINAL_STATES, State
from pipeline.transitions import Actor, Change, TransitionConflict, transition
from registry import results
from registry.models import GradingResult, SkillVersion

logger = logging.getLogger(__name__)

_INTAKE = frozenset({State.RECEIVED})
_SCAN = frozenset({State.TIER1_SCANNING})
_TOP_FINDINGS = 3
_VENDOR_HELD = "a verified vendor source with a critical Tier 1 finding: a person decides"


def run_intake_and_scan(submission_id: str, context: StepContext) -> None:
    """The first message: route the submission (vendor or scan), then run Tier 1 on it."""
    run_intake(submission_id, context)
    run_scan(submission_id, context)


def run_intake(submission_id: str, context: StepContext) -> None:
    """RECEIVED → VENDOR_APPROVED for a verified vendor source whose Tier 1 scan finds nothing
    critical, else → TIER1_SCANNING; → REJECTED (error outcome) when a git source cannot be used.

    The vendor route is decided here because the state machine has no edge from TIER1_SCANNING
    to VENDOR_APPROVED: a vendor bundle is scanned by Tier 1 before the route is chosen, and the
    result is stored like everyone else's. A critical finding sends it down the normal path,
    held for a person: Tier 1 passes it on whatever its verdict, and the judge step sends it to
    review whatever the score.
    """
    submission = _waiting_for(submission_id, context, _INTAKE)
    if submission is None:
        return
    with tracked_attempt(submission, context) as attempt:
        try:
            intake = take_in(submission)
        except SourceRejected as rejected:
            _apply(submission, _source_rejected(submission, rejected), attempt)
            return
        if intake.vendor_org is None:
            change = Change(
                State.RECEIVED,
                State.TIER1_SCANNING,
                "non-vendor-submission",
                Actor.system(),
                metadata=intake.metadata,
                updates=intake.updates,
            )
            _apply(submission, change, attempt)
            return
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
        _store_and_apply(submission, _tier1_result(intake.bundle.sha256, report), change, attempt)


def run_scan(submission_id: str, context: StepContext) -> None:
    """Tier 1: TIER1_SCANNING → TIER2_SCANNING on PASS, → TIER1_FAILED (final) on FAIL. A
    vendor submission held at intake was already scanned and always goes on to the judge."""
    submission = _waiting_for(submission_id, context, _SCAN)
    if submission is None:
        return
    with tracked_attempt(submission, context) as attempt:
        stored = (
            submission.scans.select_related("result")
            .filter(tier=ScanResult.Tier.TIER1, is_late=False)
            .first()
        )
        report = (
            stored.result.tier1_report
            if stored
            else tier1.scan(submission.bundle.as_bundle().scan_input())
        )
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
        result = None if stored else _tier1_result(submission.bundle_id, report)
        _store_and_apply(submission, result, change, attempt)


def run_judge(submission_id: str, context: StepContext) -> None:
    """Tier 2: the judge's score and the decision policy pick AUTO_APPROVED, NEEDS_REVIEW or
    REJECTED."""
    submission = _waiting_for(submission_id, context, workflow.JUDGE.stages)
    if submission is None:
        return
    with tracked_attempt(submission, context) as attempt:
        report = tier1_report(submission)
        judgement = get_judge().judge(submission.bundle.as_bundle().scan_input(), report)
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
            submission,
            PendingResult(
                ScanResult.Tier.TIER2,
                lambda: results.record_tier2(
                    submission.bundle_id, report.catalogue_version, record
                ),
            ),
            _judge_change(judgement, decision),
            attempt,
            then=needs_review if decision.outcome == "review" else None,
        )


def run_publish(submission_id: str, context: StepContext) -> None:
    """AUTO_APPROVED / VENDOR_APPROVED → PUBLISHED with its version assigned."""
    submission = _waiting_for(submission_id, context, workflow.PUBLISH.stages)
    if submission is None:
        return
    channel = (
        SkillVersion.Channel.VENDOR
        if submission.state == State.VENDOR_APPROVED
        else SkillVersion.Channel.AUTOMATIC
    )
    with tracked_attempt(submission, context):
        try:
            publish(submission, channel, Actor.system(), "publish-complete")
        except TransitionConflict as conflict:
            logger.info("publish of %s skipped: %s", submission.pk, conflict)


def tier1_report(submission: Submission) -> Tier1Report:
    """The stored Tier 1 report of the submission, as the judge and the reviewers see it."""
    scan = submission.scans.select_related("result").get(tier=ScanResult.Tier.TIER1, is_late=False)
    return scan.result.tier1_report


def _waiting_for(
    submission_id: str, context: StepContext, stages: frozenset[State]
) -> Submission | None:
    """The submission if it waits for this step, else None (already done, or moved on)."""
    submission = Submission.objects.select_related("bundle").filter(pk=submission_id).first()
    if submission is None:
        logger.warning("%s: submission %s does not exist", context.task_name, submission_id)
        return None
    if submission.state not in stages:
        logger.info(
            "%s: submission %s is %s, nothing to do",
            context.task_name,
            submission_id,
            submission.state,
        )
        return None
    return submission


def _apply(submission: Submission, change: Change, attempt: ProcessingAttempt) -> None:
    try:
        with transaction.atomic():
            transition(submission.pk, change, entered_at=submission.state_changed_at)
            succeed_with(attempt)
    except TransitionConflict as conflict:
        logger.info("%s skipped: %s", change.trigger, conflict)


@dataclass(frozen=True)
class PendingResult:
    """A tier's result to record for the submission in the step's own transaction."""

    tier: int
    record: Callable[[], GradingResult]

    def link(self, submission: Submission, *, is_late: bool = False) -> ScanResult:
        return ScanResult.objects.create(
            submission=submission, tier=self.tier, result=self.record(), is_late=is_late
        )


def _store_and_apply(
    submission: Submission,
    result: PendingResult | None,
    change: Change,
    attempt: ProcessingAttempt,
    then: Callable[[], object] | None = None,
) -> None:
    """Record the result (if there is a new one), transition and run ``then`` together; keep a
    late result when the submission was timed out or given up on in the meantime."""
    try:
        with transaction.atomic():
            if result is not None:
                result.link(submission)
            transition(submission.pk, change, entered_at=submission.state_changed_at)
            if then is not None:
                then()
            succeed_with(attempt)
    except IntegrityError:
        if result is None:
            raise
        stored_by_another_delivery = ScanResult.objects.filter(
            submission=submission, tier=result.tier, is_late=False
        ).exists()
        if not stored_by_another_delivery:
            raise
        logger.info("%s skipped: tier %s result already stored", change.trigger, result.tier)
    except TransitionConflict as conflict:
        if result is not None and conflict.actual in TERMINAL_STATES:
            result.link(submission, is_late=True)
            logger.info("stored a late tier %s result for %s", result.tier, submission.pk)
        else:
            logger.info("%s skipped: %s", change.trigger, conflict)


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
