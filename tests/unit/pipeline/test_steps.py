"""The steps, run in-process: what each does from its state, and that repeats are harmless."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pipeline.models import ScanResult, SubmissionStateEvent
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from pipeline.states import State
from pipeline.transitions import Actor, Change, transition
from registry.models import BundleSnapshot, SkillVersion
from tests.support.skills import rejected_files, tier1_failing_files
from tests.unit.pipeline.factories import held_by, submission_in

pytestmark = pytest.mark.django_db


def ctx(task: str, task_id: str = "t-1") -> StepContext:
    return StepContext(task_name=task, task_id=task_id, worker="test@host")


def run_all(submission_id) -> None:
    for name, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission_id), ctx(name, f"{name}-id"))


def trail(submission) -> list[tuple[str | None, str, str]]:
    return [(e.from_state, e.to_state, e.trigger) for e in submission.events.all()]


def test_a_benign_inline_skill_goes_all_the_way_to_published(make_user):
    submission = submission_in(State.RECEIVED, make_user("alice"))
    run_all(submission.pk)
    submission.refresh_from_db()
    assert trail(submission) == [
        (None, "RECEIVED", "test"),
        ("RECEIVED", "TIER1_SCANNING", "non-vendor-submission"),
        ("TIER1_SCANNING", "TIER2_SCANNING", "tier1-pass"),
        ("TIER2_SCANNING", "AUTO_APPROVED", "tier2-pass"),
        ("AUTO_APPROVED", "PUBLISHED", "publish-complete"),
    ]
    assert submission.published_version is not None
    assert submission.published_version.version == "1.0.0"
    assert submission.outcome is not None
    assert submission.outcome.code == OutcomeCode.PUBLISHED
    assert [a.status for a in submission.attempts.order_by("started_at")] == ["succeeded"] * 4


def test_a_tier1_failure_is_final_and_explains_itself(make_user):
    submission = submission_in(State.RECEIVED, make_user(), files=tier1_failing_files())
    run_all(submission.pk)
    submission.refresh_from_db()
    assert submission.state == State.TIER1_FAILED
    assert submission.outcome is not None
    assert submission.outcome.kind == "verdict"
    assert "SKILL.md:" in submission.outcome.message
    assert not submission.scans.filter(tier=2).exists()


def test_a_trusted_owner_name_alone_does_not_open_the_vendor_path(make_user):
    """The vendor path needs a source verified at intake (tests/unit/pipeline/
    test_vendor_path.py), not an owner that happens to be a trusted organisation's name."""
    author = make_user()
    submission = submission_in(State.RECEIVED, author, repo_url="https://github.com/x/y")
    submission.skill_owner = "openai"
    submission.save(update_fields=["skill_owner"])
    held_by(author, "openai", "github.com")
    run_all(submission.pk)
    submission.refresh_from_db()
    assert [e[1] for e in trail(submission)][:3] == ["RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING"]
    assert submission.published_version is not None
    assert submission.published_version.channel == SkillVersion.Channel.AUTOMATIC


def test_inline_submissions_never_take_the_vendor_path(make_user):
    submission = submission_in(State.RECEIVED, make_user("anthropics"))
    steps.run_intake(str(submission.pk), ctx("pipeline.scan"))
    submission.refresh_from_db()
    assert submission.state == State.TIER1_SCANNING


def test_every_step_run_twice_changes_nothing_the_second_time(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    run_all(submission.pk)
    events_before = SubmissionStateEvent.objects.filter(submission=submission).count()
    run_all(submission.pk)
    assert SubmissionStateEvent.objects.filter(submission=submission).count() == events_before
    assert ScanResult.objects.filter(submission=submission).count() == 2
    assert SkillVersion.objects.filter(submission=submission).count() == 1


def test_a_result_after_a_timeout_is_kept_as_late_and_changes_no_state(make_user, monkeypatch):
    submission = submission_in(State.TIER1_SCANNING, make_user())
    real_scan = steps.tier1.scan

    def scan_then_time_out(files):
        report = real_scan(files)
        transition(
            submission.pk,
            Change(
                State.TIER1_SCANNING,
                State.REJECTED,
                "sla-timeout",
                Actor.system(),
                outcome=Outcome.error(OutcomeCode.SLA_TIMEOUT, "deadline passed"),
            ),
        )
        return report

    monkeypatch.setattr(steps.tier1, "scan", scan_then_time_out)
    steps.run_scan(str(submission.pk), ctx("pipeline.scan"))
    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    assert [(s.tier, s.is_late) for s in submission.scans.all()] == [(1, True)]


def test_a_skill_in_the_review_band_opens_a_review(make_user, settings):
    settings.SKILLGATE_AUTO_APPROVE_MIN_SCORE = 101
    submission = submission_in(State.RECEIVED, make_user())
    run_all(submission.pk)
    submission.refresh_from_db()
    assert submission.state == State.NEEDS_REVIEW
    assert submission.review.reasons


def test_a_low_score_is_rejected_with_a_verdict(make_user):
    """A rejection is a claim of malice (issue 22): it needs corroborated evidence, not only a
    score under the review threshold."""
    submission = submission_in(State.RECEIVED, make_user(), files=rejected_files())
    run_all(submission.pk)
    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("verdict", "SCORE_TOO_LOW")


def test_the_first_message_routes_and_scans_with_one_commit(make_user):
    """Both edges are audited, each at the time it was decided; one attempt covers the message."""
    submission = submission_in(State.RECEIVED, make_user())

    steps.run_intake_and_scan(str(submission.pk), ctx("pipeline.scan"))

    submission.refresh_from_db()
    assert submission.state == State.TIER2_SCANNING
    routed, scanned = submission.events.order_by("created_at", "id")[1:]
    assert (routed.trigger, scanned.trigger) == ("non-vendor-submission", "tier1-pass")
    assert routed.created_at < scanned.created_at == submission.state_changed_at
    assert [(a.stage, a.status) for a in submission.attempts.all()] == [("RECEIVED", "succeeded")]
    assert ScanResult.objects.filter(submission=submission, tier=ScanResult.Tier.TIER1).exists()


def test_a_crash_in_tier1_after_routing_leaves_nothing_but_the_failed_attempt(
    make_user, monkeypatch
):
    submission = submission_in(State.RECEIVED, make_user())

    def crash(files):
        raise RuntimeError("worker died mid-scan")

    monkeypatch.setattr(steps.tier1, "scan", crash)
    with pytest.raises(RuntimeError):
        steps.run_intake_and_scan(str(submission.pk), ctx("pipeline.scan"))
    submission.refresh_from_db()
    assert submission.state == State.RECEIVED
    assert submission.events.count() == 1
    assert not ScanResult.objects.filter(submission=submission).exists()
    assert [a.status for a in submission.attempts.all()] == ["failed"]

    monkeypatch.undo()
    steps.run_intake_and_scan(str(submission.pk), ctx("pipeline.scan", "t-2"))
    submission.refresh_from_db()
    assert submission.state == State.TIER2_SCANNING


def test_a_published_version_starts_with_the_results_that_approved_it(make_user):
    submission = submission_in(State.RECEIVED, make_user())
    run_all(submission.pk)
    submission.refresh_from_db()
    version = submission.published_version
    assert version is not None
    results = dict(
        ScanResult.objects.filter(submission=submission).values_list("tier", "result_id")
    )
    assert (version.tier1_result_id, version.tier2_result_id) == (
        results[ScanResult.Tier.TIER1],
        results[ScanResult.Tier.TIER2],
    )


def test_the_heuristic_judge_step_does_not_load_the_files(make_user, settings):
    settings.SKILLGATE_JUDGE = "heuristic"
    submission = submission_in(State.RECEIVED, make_user())
    steps.run_intake_and_scan(str(submission.pk), ctx("pipeline.scan"))

    with CaptureQueriesContext(connection) as captured:
        steps.run_judge(str(submission.pk), ctx("pipeline.judge"))

    submission.refresh_from_db()
    assert submission.state == State.AUTO_APPROVED
    bundles = BundleSnapshot._meta.db_table
    assert not [q["sql"] for q in captured.captured_queries if bundles in q["sql"]]
