"""The pipeline's steps: intake → scan → judge → publish, sent as three messages (intake and
Tier 1 share one: both are fast and deterministic, and a message saved is a broker round trip
saved per submission; both of its edges are applied with one commit).

Each step reads the submission's current state and does nothing unless the submission is
waiting for it, so a redelivered or replayed message is harmless. A step stores its result and
moves the state in one transaction (on PostgreSQL one statement: the grading result, the
compare-and-set, the audit events, the result's link and the attempt's success): a crash
before the commit leaves nothing behind, and of two deliveries racing on the same step exactly
one commits. A result that arrives after the submission was timed out or given up on is stored
marked *late* and changes nothing (seed 002 §4.5).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.statements import column, converted, table
from grading import policy, tier1
from grading.judges import get_judge, judge_reads_files
from grading.labels import category_label
from grading.records import Thresholds, Tier2Record, decode_tier1
from grading.types import Decision, Finding, Judgement, Tier1Report
from pipeline import workflow
from pipeline.error_classes import ErrorClass
from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services.attempts import (
    Started,
    StepContext,
    Succeeded,
    finishing,
    start_attempt,
)
from pipeline.services.intake import take_in
from pipeline.services.publishing import PublicationReads, publication_reads, publish
from pipeline.services.timeouts import record_timeout
from pipeline.signals import submission_needs_review
from pipeline.sources.errors import SourceRejected
from pipeline.states import TERMINAL_STATES, State
from pipeline.transitions import (
    Actor,
    Change,
    CompanionWrite,
    TransitionConflict,
    moved_in_memory,
    transition_through,
)
from registry import results
from registry.bundles import Bundle
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
    submission is read once, and a submission routed to Tier 1 is scanned before anything is
    stored: both edges (routed, then Tier 1's verdict) are applied with one commit."""
    started = start_attempt(submission_id, context, workflow.SCAN.stages, _FILES, _tier1_read())
    if started is None:
        return
    with finishing(started.attempt):
        if started.submission.state == State.TIER1_SCANNING:
            _scan(started, _stored_tier1(started))
            return
        routing = _routing(started)
        if routing is None:
            return
        if routing.timed_out is not None:
            _store_and_apply(started, None, (routing.change, _time_limit(routing.timed_out)))
            return
        if routing.change.to_state != State.TIER1_SCANNING:
            _store_and_apply(started, routing.result, (routing.change,))
            return
        try:
            report = routing.tier1 or _tier1_scan(routing.bundle.scan_input())
        except Tier1TimeLimit as timed_out:
            _store_and_apply(started, None, (routing.change, _time_limit(timed_out)))
            return
        verdict = _verdict(report, vendor_held=routing.vendor_held)
        result = routing.result or _tier1_result(routing.bundle.sha256, report)
        _store_and_apply(started, result, (routing.change, verdict))


class Tier1TimeLimit(Exception):
    """Tier 1 ran into the step's soft time limit. Tier 1 is deterministic: the same files
    would take as long again, so this is a property of the bundle, never retried."""

    def __init__(self, elapsed_s: float) -> None:
        super().__init__(f"Tier 1 stopped at its time limit after {elapsed_s:.1f}s")
        self.elapsed_s = elapsed_s


def _tier1_scan(scan_input: dict[str, str | bytes]) -> Tier1Report:
    started = time.monotonic()
    try:
        return tier1.scan(scan_input)
    except SoftTimeLimitExceeded as exc:
        elapsed = time.monotonic() - started
        record_timeout(ErrorClass.SCAN_TIMEOUT, elapsed * 1000)
        raise Tier1TimeLimit(elapsed) from exc


def _time_limit(timed_out: Tier1TimeLimit) -> Change:
    """The bundle is refused (TIER1_FAILED, a verdict on this bundle) with a message that says
    why: it cannot be verified within the limit, and resubmitting it unchanged would not help.
    Chosen over sending it to a person: a reviewer would judge files no rule has read."""
    limit = settings.SKILLGATE_SCAN_TIME_LIMIT_S
    return Change(
        State.TIER1_SCANNING,
        State.TIER1_FAILED,
        "tier1-time-limit",
        Actor.worker(),
        {"elapsed_s": round(timed_out.elapsed_s, 1), "time_limit_s": limit},
        outcome=Outcome.verdict(
            OutcomeCode.TIER1_TIME_LIMIT,
            f"Tier 1 could not finish checking this bundle within its {limit:g}-second limit. "
            "The check is deterministic, so the same files would take as long again: the "
            "bundle is refused unverified. This usually comes from very long runs of repeated "
            "or generated text; remove or shorten them and submit again.",
        ),
    )


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
        routing = _routing(started)
        if routing is not None:
            _store_and_apply(started, routing.result, (routing.change,))


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
    REJECTED. The skill's files are read only for a judge that reads them (the heuristic judge
    weighs Tier 1's findings alone)."""
    reads_files = judge_reads_files()
    started = start_attempt(
        submission_id,
        context,
        workflow.JUDGE.stages,
        _FILES if reads_files else (),
        _tier1_read(),
    )
    if started is None:
        return
    submission = started.submission
    with finishing(started.attempt):
        report = _stored_tier1(started)
        if report is None:
            raise ScanResult.DoesNotExist(f"submission {submission.pk} has no Tier 1 result")
        judgement = get_judge().judge(_scan_input(submission) if reads_files else {}, report)
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
            _Graded(
                ScanResult.Tier.TIER2,
                results.tier2_record(_bundle_sha256(submission), report.catalogue_version, record),
            ),
            (_judge_change(judgement, decision),),
            then=needs_review if decision.outcome == "review" else None,
        )


def run_publish(submission_id: str, context: StepContext) -> None:
    """AUTO_APPROVED / VENDOR_APPROVED → PUBLISHED with its version assigned."""
    started = start_attempt(
        submission_id, context, workflow.PUBLISH.stages, _MANIFEST, publication_reads()
    )
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
                reads=PublicationReads(**started.read),
            )
        except TransitionConflict as conflict:
            logger.info("publish of %s skipped: %s", submission.pk, conflict)


@dataclass(frozen=True)
class Routing:
    """Where intake sends the submission, not yet applied: the edge, the bundle intake took in,
    and for a vendor source the Tier 1 report that chose the route and its result to store."""

    change: Change
    bundle: Bundle
    vendor_held: bool = False
    tier1: Tier1Report | None = None
    result: _Graded | None = None
    timed_out: Tier1TimeLimit | None = None


def _routing(started: Started) -> Routing | None:
    """Take the submission's source in and decide its route (see ``run_intake``); None when the
    source was rejected (that edge is applied here: nothing follows it)."""
    submission = started.submission
    try:
        intake = take_in(submission)
    except SourceRejected as rejected:
        _store_and_apply(started, None, (_source_rejected(submission, rejected),))
        return None
    decided_at = timezone.now()
    if intake.vendor_org is None:
        change = Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "non-vendor-submission",
            Actor.system(),
            metadata=intake.metadata,
            updates=intake.updates,
            decided_at=decided_at,
        )
        return Routing(change, intake.bundle)
    try:
        report = _tier1_scan(intake.bundle.scan_input())
    except Tier1TimeLimit as timed_out:
        change = Change(
            State.RECEIVED,
            State.TIER1_SCANNING,
            "vendor-tier1-time-limit",
            Actor.system(),
            metadata=intake.metadata,
            updates=intake.updates,
            decided_at=decided_at,
        )
        return Routing(change, intake.bundle, vendor_held=True, timed_out=timed_out)
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
            decided_at=decided_at,
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
    return Routing(change, intake.bundle, vendor_held=True, tier1=report, result=result)


def _scan(started: Started, stored: Tier1Report | None) -> None:
    """Tier 1 on a submission waiting in TIER1_SCANNING (see ``run_scan``), or its ``stored``
    report from intake."""
    submission = started.submission
    try:
        report = stored or _tier1_scan(_scan_input(submission))
    except Tier1TimeLimit as timed_out:
        _store_and_apply(started, None, (_time_limit(timed_out),))
        return
    verdict = _verdict(report, vendor_held=submission.vendor_org_id is not None)
    result = None if stored else _tier1_result(_bundle_sha256(submission), report)
    _store_and_apply(started, result, (verdict,))


def _verdict(report: Tier1Report, *, vendor_held: bool) -> Change:
    """Tier 1's edge: on to the judge (always, for a vendor source held at intake), or the
    final TIER1_FAILED."""
    metadata = {"findings": len(report.findings), "duration_ms": round(report.duration_ms, 1)}
    if vendor_held:
        return Change(
            State.TIER1_SCANNING,
            State.TIER2_SCANNING,
            "tier1-vendor-held",
            Actor.worker(),
            metadata,
        )
    if report.verdict == "PASS":
        return Change(
            State.TIER1_SCANNING, State.TIER2_SCANNING, "tier1-pass", Actor.worker(), metadata
        )
    return Change(
        State.TIER1_SCANNING,
        State.TIER1_FAILED,
        "tier1-fail",
        Actor.worker(),
        {**metadata, "critical": _summaries(_blocking(report.findings))},
        outcome=Outcome.verdict(OutcomeCode.TIER1_FAILED, _tier1_message(report)),
    )


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


class _Graded(CompanionWrite):
    """A tier's grading result, recorded with the step's transition, and the submission's link
    to it, written only if the transition happens. The result is recorded either way: it is
    a fact about the bundle, shared by every submission of it, and a late one is kept."""

    def __init__(self, tier: int, record: GradingResult) -> None:
        self.tier = tier
        self.record = record
        self.created_at = timezone.now()

    def prelude(self) -> tuple[str, list[Any]]:
        return results.upsert(self.record)

    def sql(self, moved: str, prelude: str) -> tuple[str, list[Any]]:
        names = ("submission_id", "tier", "result_id", "is_late", "created_at")
        return (
            f"INSERT INTO {table(ScanResult)}"
            f" ({', '.join(column(ScanResult, name) for name in names)})"
            f" SELECT {moved}.id, %s, {prelude}.id, false, %s FROM {moved}, {prelude}",
            [self.tier, self.created_at],
        )

    def write(self, submission_id: UUID | str) -> None:
        self.keep(submission_id, is_late=False)

    def keep(self, submission_id: UUID | str, *, is_late: bool) -> None:
        """Record the result (or take the stored one) and link the submission to it."""
        ScanResult.objects.create(
            submission_id=submission_id,
            tier=self.tier,
            result=results.recorded(self.record),
            is_late=is_late,
        )


def _store_and_apply(
    started: Started,
    graded: _Graded | None,
    changes: tuple[Change, ...],
    then: Callable[[], object] | None = None,
) -> bool:
    """Move the state through ``changes`` with the grading result, its link and the attempt's
    success, running ``then`` in the same transaction; keep a late result when the submission
    was timed out or given up on in the meantime. True when the submission moved (and is
    updated in memory)."""
    submission = started.submission
    last = changes[-1]
    also = [*([graded] if graded else []), Succeeded(started.attempt)]
    try:
        with transaction.atomic() if then is not None else nullcontext():
            events = transition_through(
                submission.pk, changes, entered_at=submission.state_changed_at, also=also
            )
            if then is not None:
                then()
    except IntegrityError:
        if graded is None:
            raise
        stored_by_another_delivery = ScanResult.objects.filter(
            submission=submission, tier=graded.tier, is_late=False
        ).exists()
        if not stored_by_another_delivery:
            raise
        logger.info("%s skipped: tier %s result already stored", last.trigger, graded.tier)
        return False
    except TransitionConflict as conflict:
        if graded is not None and conflict.actual in TERMINAL_STATES:
            graded.keep(submission.pk, is_late=True)
            logger.info("stored a late tier %s result for %s", graded.tier, submission.pk)
        else:
            logger.info("%s skipped: %s", last.trigger, conflict)
        return False
    for change, event in zip(changes, events, strict=True):
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


def _tier1_result(bundle_sha256: str, report: Tier1Report) -> _Graded:
    return _Graded(ScanResult.Tier.TIER1, results.tier1_record(bundle_sha256, report))


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
            + (_main_concerns(judgement) or "none listed"),
        ),
    )


def _main_concerns(judgement: Judgement) -> str:
    """The judge's first few concerns, each (category, file) once: a skill with five
    credential reads in one file has one concern there, not five copies of it."""
    seen: dict[tuple[str, str], int] = {}
    for concern in judgement.concerns:
        key = (category_label(concern.category), concern.file or "the skill")
        seen[key] = seen.get(key, 0) + 1
    return "; ".join(
        f"{category} in {file}" + (f" ({count}×)" if count > 1 else "")
        for (category, file), count in list(seen.items())[:_TOP_FINDINGS]
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
