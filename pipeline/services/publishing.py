"""Publishing a submission: its version assigned and PUBLISHED, in one transaction.

Used by the pipeline's publish step (automatic and vendor) and by reviewers' approvals.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from pipeline.models import Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import ActorType, State
from pipeline.transitions import Actor, Change, transition
from registry import services as registry
from registry.bundles import SKILL_FILE
from registry.models import Skill, SkillVersion
from registry.skillmd import parse_manifest


def publish(
    submission: Submission,
    channel: str,
    actor: Actor,
    metadata: dict[str, Any] | None = None,
) -> SkillVersion:
    """Assign the version and move to PUBLISHED; ``metadata`` joins the audit event's."""
    with transaction.atomic():
        publication = registry.publish_version(publication_request(submission, channel, actor))
        version = publication.version
        transition(
            submission.pk,
            Change(
                State(submission.state),
                State.PUBLISHED,
                "reviewer-approved" if actor.type == ActorType.ADMIN else "publish-complete",
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
        )
    return version


def publication_request(
    submission: Submission, channel: str, actor: Actor
) -> registry.PublicationRequest:
    """What the registry needs from an approved submission, and no more."""
    skill_file = submission.bundle.as_bundle().get(SKILL_FILE)
    manifest = parse_manifest((skill_file.text or "") if skill_file else "")
    return registry.PublicationRequest(
        owner=submission.skill_owner,
        name=submission.skill_name,
        origin=Skill.Origin.GIT if submission.repo_url else Skill.Origin.ACCOUNT,
        bundle_sha256=submission.bundle_id,
        submission_id=submission.pk,
        submitter_id=submission.submitter_id,
        channel=SkillVersion.Channel(channel),
        description=manifest.description,
        declared_version=manifest.version,
        approved_by=actor.name if actor.type == ActorType.ADMIN else None,
    )


def _published_message(publication: registry.Publication) -> str:
    version = publication.version
    message = f"Published as {version}"
    if not publication.created:
        return f"{message} (identical to the latest version)"
    if version.status == SkillVersion.Status.QUARANTINED:
        return f"{message}, quarantined at once: {version.status_reason}"
    return message
