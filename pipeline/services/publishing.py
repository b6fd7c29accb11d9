"""Publishing a submission: its version assigned and PUBLISHED, in one transaction.

Used by the pipeline's publish step (automatic and vendor) and by reviewers' approvals. Each
caller names its own audit trigger: who acts does not say why, and a later action by an
operator must not inherit a reviewer's trigger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.db.models import Model

from config.statements import column, insertion, prepared, table
from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import State
from pipeline.transitions import Actor, Change, CompanionWrite, transition
from registry import services as registry
from registry.models import Skill, SkillVersion
from skillformat.skillmd import SkillManifest


@dataclass(frozen=True)
class Verdict:
    """The grading results (ids) that approved a submission, per tier."""

    tier1_result_id: int | None
    tier2_result_id: int | None


def verdict_reads() -> dict[str, str]:
    """The submission's verdict as SQL expressions of its row (aliased ``submission``), for a
    step that reads them with the submission (``start_attempt``'s ``reads``)."""
    return {
        f"tier{int(tier)}_result_id": (
            f"SELECT {column(ScanResult, 'result')} FROM {table(ScanResult)}"
            f" WHERE {column(ScanResult, 'submission')} = submission.id"
            f" AND {column(ScanResult, 'tier')} = {int(tier)}"
            f" AND NOT {column(ScanResult, 'is_late')}"
        )
        for tier in (ScanResult.Tier.TIER1, ScanResult.Tier.TIER2)
    }


def verdict_of(submission: Submission) -> Verdict:
    """The submission's verdict, read on its own (a reviewer's approval)."""
    reads = verdict_reads()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(f'({expression})' for expression in reads.values())}"
            f" FROM {table(Submission)} submission WHERE submission.id = %s",
            [prepared(Submission, "id", submission.pk)],
        )
        return Verdict(*cursor.fetchone())


def publish(
    submission: Submission,
    channel: str,
    actor: Actor,
    trigger: str,
    metadata: dict[str, Any] | None = None,
    also: Sequence[CompanionWrite] = (),
    verdict: Verdict | None = None,
) -> SkillVersion:
    """Assign the version and move to PUBLISHED, audited as ``trigger`` by ``actor``;
    ``metadata`` joins the audit event's, and the writes in ``also`` are made with the
    transition (see ``transition``), as is storing a new version. ``verdict``, when the caller
    read it already, saves a query: a new version starts with it as its current verdict."""
    with transaction.atomic():
        request = publication_request(submission, channel, actor, verdict or verdict_of(submission))
        publication = registry.publish_version(request, caller_stores=True)
        version = publication.version
        stored_with_it = tuple(_Inserted(row) for row in publication.unsaved or ())
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
            also=(*stored_with_it, *also),
        )
    return version


class _Inserted(CompanionWrite):
    """A row stored with the transition, only if it happens: the new version (its id drawn
    with the skill's lock, so the submission can point to it in the same statement) and its
    first event."""

    def __init__(self, row: Model) -> None:
        self.row = row

    def sql(self, moved: str, prelude: str) -> tuple[str, list[Any]]:
        names, expressions, params = insertion(self.row)
        return (
            f"INSERT INTO {table(type(self.row))} ({names}) SELECT {expressions} FROM {moved}",
            params,
        )

    def write(self, submission_id: UUID | str) -> None:
        self.row.save(force_insert=True)

    def written(self) -> None:
        self.row._state.adding = False
        self.row._state.db = connection.alias


def publication_request(
    submission: Submission, channel: str, actor: Actor, verdict: Verdict
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
        tier1_result_id=verdict.tier1_result_id,
        tier2_result_id=verdict.tier2_result_id,
    )


def _published_message(publication: registry.Publication) -> str:
    version = publication.version
    message = f"Published as {version}"
    if not publication.created:
        return f"{message} (identical to the latest version)"
    if version.status == SkillVersion.Status.QUARANTINED:
        return f"{message}, quarantined at once: {version.status_reason}"
    return message
