"""Submissions waiting for review, made the way the judge step makes them: its scan results
stored, the TIER2_SCANNING → NEEDS_REVIEW transition and open_review in one transaction.

The Tier 1 report and the judgement are written out here rather than produced by the graders,
so these tests pin down the review rules whatever the scanning rules currently find.
"""

from __future__ import annotations

from django.db import transaction

from grading.records import Thresholds, Tier2Record
from grading.types import Concern, Decision, Finding, Judgement, Severity, Tier1Report
from pipeline.models import ScanResult, Submission
from pipeline.states import State
from pipeline.transitions import Actor, Change, transition
from registry.results import record_tier1, record_tier2
from reviews.models import Review
from reviews.services import open_review
from tests.support.skills import skill_md
from tests.unit.pipeline.factories import submission_in

SCRIPT = (
    "#!/bin/sh\n"
    "find . -type f -printf '%s %p\\n' | sort -rn | head -20\n"
    'rm -rf "$TMPDIR"/disk-tidy-cache\n'
)


def disk_tidy_files(name: str = "disk-tidy") -> dict[str, str]:
    """A high-privilege skill (Bash) with a script that deletes files: a typical review case."""
    return {
        "SKILL.md": skill_md(
            name,
            "Finds large files so the user can decide what to delete.",
            body="Run `scripts/largest.sh` and show the user the list.",
            extra="allowed-tools: Bash\n",
        ),
        "scripts/largest.sh": SCRIPT,
    }


def rm_finding(line: int = 3, severity: Severity = "high") -> Finding:
    return Finding(
        rule_id="destructive.rm-rf",
        category="destructive-commands",
        severity=severity,
        confidence="medium",
        file="scripts/largest.sh",
        line=line,
        column=1,
        snippet='rm -rf "$TMPDIR"/disk-tidy-cache',
        message="Deletes files recursively without asking.",
    )


def awaiting_review(
    author,
    *,
    name: str = "disk-tidy",
    files: dict[str, str] | None = None,
    findings: tuple[Finding, ...] = (),
    concerns: tuple[Concern, ...] = (),
    score: int = 85,
    high_privilege: bool = True,
    privileges: tuple[str, ...] = ("Bash",),
    reasons: tuple[str, ...] | None = None,
) -> Review:
    submission = submission_in(
        State.TIER2_SCANNING, author, files=files or disk_tidy_files(name), name=name
    )
    assert submission.bundle_id is not None
    report = Tier1Report(
        verdict="PASS",
        findings=findings,
        high_privilege=high_privilege,
        privileges=privileges,
        engine_version="rules-test",
        duration_ms=2.0,
        catalogue_version="tier1-test",
    )
    judgement = Judgement(
        score=score,
        verdict="PASS" if score >= 80 else "CONCERNS",
        concerns=concerns,
        criteria={"safety": score, "clarity": 90},
        confidence=0.8,
        provider="heuristic",
        model="heuristic-test",
        prompt_version="p-test",
        judge_version="heuristic/test",
    )
    decision = Decision(
        "review",
        reasons
        or (
            (f"score {score} but high-privilege: {', '.join(privileges)}",)
            if high_privilege
            else (f"score {score} in the review band 60–79",)
        ),
    )
    with transaction.atomic():
        for tier, result in (
            (ScanResult.Tier.TIER1, record_tier1(submission.bundle_id, report)),
            (
                ScanResult.Tier.TIER2,
                record_tier2(
                    submission.bundle_id,
                    report.catalogue_version,
                    Tier2Record(judgement, decision, Thresholds(80, 60)),
                ),
            ),
        ):
            ScanResult.objects.create(submission=submission, tier=tier, result=result)
        transition(
            submission.pk,
            Change(State.TIER2_SCANNING, State.NEEDS_REVIEW, "tier2-concerns", Actor.worker()),
        )
        review = open_review(submission, decision, report, judgement)
    return Review.objects.select_related("submission").get(pk=review.pk)


def state_of(review: Review) -> str:
    return Submission.objects.values_list("state", flat=True).get(pk=review.pk)
