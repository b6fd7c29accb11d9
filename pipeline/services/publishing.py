"""Publishing a submission: its version assigned and PUBLISHED, in one transaction.

Used by the pipeline's publish step (automatic and vendor) and by reviewers' approvals. Each
caller names its own audit trigger: who acts does not say why, and a later action by an
operator must not inherit a reviewer's trigger.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import State
from pipeline.transitions import Actor, Change, transition
from registry import services as registry
from registry.models import SkillVersion


def publish(
    submission: Submission,
    channel: str,
    actor: Actor,
    trigger: str,
    metadata: dict[str, Any] | None = None,
) -> SkillVersion:
    """Assign the version and move to PUBLISHED, audited as ``trigger`` by ``actor``;
    ``metadata`` joins the audit event's."""
    with transaction.atomic():
        publication = registry.publish_version(submission, channel)
        version = publication.version
        if publication.created:
            _record_verdict(version, submission)
        transition(
            submission.pk,
            Change(
                State(submission.state),
                State.PUBLISHED,
                trigger,
                actor,
                metadata={
                    **(metadata or {}),
                    "version": version.version,
                    "skill_id": version.skill_id,
                    "new_version": publication.created,
                },
                outcome=Outcome.verdict(
                    OutcomeCode.PUBLISHED,
                    f"Published as {submission.skill_owner}/{submission.skill_name}"
                    f"@{version.version}"
                    + ("" if publication.created else " (identical to the latest version)"),
                ),
                updates={"published_version": version},
            ),
            entered_at=submission.state_changed_at,
        )
    return version


def _record_verdict(version: SkillVersion, submission: Submission) -> None:
    """The new version's current verdict is the one its submission received; a re-scan
    replaces it later."""
    current = {
        scan.tier: scan.result_id
        for scan in submission.scans.filter(is_late=False).only("tier", "result")
    }
    SkillVersion.objects.filter(pk=version.pk).update(
        tier1_result_id=current.get(ScanResult.Tier.TIER1),
        tier2_result_id=current.get(ScanResult.Tier.TIER2),
    )
