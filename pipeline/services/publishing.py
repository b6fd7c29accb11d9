"""Publishing a submission: its version assigned and PUBLISHED, in one transaction.

Used by the pipeline's publish step (automatic and vendor) and by reviewers' approvals. Each
caller names its own audit trigger: who acts does not say why, and a later action by an
operator must not inherit a reviewer's trigger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction

from config.statements import column, prepared, table
from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import State
from pipeline.transitions import Actor, Change, CompanionWrite, transition
from registry import services as registry
from registry.models import Skill, SkillVersion
from skillformat.skillmd import SkillManifest


def publish(
    submission: Submission,
    channel: str,
    actor: Actor,
    trigger: str,
    metadata: dict[str, Any] | None = None,
    also: Sequence[CompanionWrite] = (),
) -> SkillVersion:
    """Assign the version and move to PUBLISHED, audited as ``trigger`` by ``actor``;
    ``metadata`` joins the audit event's, and the writes in ``also`` are made with the
    transition (see ``transition``)."""
    with transaction.atomic():
        publication = registry.publish_version(publication_request(submission, channel, actor))
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
                outcome=Outcome.verdict(OutcomeCode.PUBLISHED, _published_message(publication)),
                updates={"published_version": version},
            ),
            entered_at=submission.state_changed_at,
            also=also,
        )
    return version


def publication_request(
    submission: Submission, channel: str, actor: Actor
) -> registry.PublicationRequest:
    """What the registry needs from an approved submission, and no more."""
    bundle = submission.bundle
    assert bundle is not None, "only a submission whose bundle is stored can be published"
    manifest = SkillManifest.from_json(bundle.manifest)
    from_git = bool(submission.repo_url)
    return registry.PublicationRequest(
        owner=submission.skill_owner,
        name=submission.skill_name,
        origin=Skill.Origin.GIT if from_git else Skill.Origin.ACCOUNT,
        host=submission.repo_host if from_git else "",
        bundle_sha256=bundle.sha256,
        submission_id=submission.pk,
        submitter_id=submission.submitter_id,
        channel=SkillVersion.Channel(channel),
        description=manifest.description,
        declared_version=manifest.version,
        approved_by=actor.name if channel == SkillVersion.Channel.REVIEW else None,
    )


def _published_message(publication: registry.Publication) -> str:
    version = publication.version
    message = f"Published as {version}"
    if not publication.created:
        return f"{message} (identical to the latest version)"
    if version.status == SkillVersion.Status.QUARANTINED:
        return f"{message}, quarantined at once: {version.status_reason}"
    return message


def _record_verdict(version: SkillVersion, submission: Submission) -> None:
    """The new version's current verdict is the one its submission received; a re-scan
    replaces it later. One statement: the version points to the submission's results."""

    def result_of(tier: int) -> str:
        return (
            f"(SELECT {column(ScanResult, 'result')} FROM {table(ScanResult)}"
            f" WHERE {column(ScanResult, 'submission')} = %s"
            f" AND {column(ScanResult, 'tier')} = {int(tier)}"
            f" AND NOT {column(ScanResult, 'is_late')})"
        )

    submission_id = prepared(ScanResult, "submission", submission.pk)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table(SkillVersion)}"
            f" SET {column(SkillVersion, 'tier1_result')} = {result_of(ScanResult.Tier.TIER1)},"
            f" {column(SkillVersion, 'tier2_result')} = {result_of(ScanResult.Tier.TIER2)}"
            f" WHERE id = %s",
            [submission_id, submission_id, version.pk],
        )
