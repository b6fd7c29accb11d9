"""Publishing a submission: its version assigned and PUBLISHED, all or nothing.

Used by the pipeline's publish step (automatic and vendor) and by reviewers' approvals. Each
caller names its own audit trigger: who acts does not say why, and a later action by an
operator must not inherit a reviewer's trigger.

A skill's first publication is one statement: the skill, its first version and the version's
first event are inserted with the compare-and-set that moves the submission to PUBLISHED, their
ids drawn when the submission was read. Any other publication (a new version of a skill, an
identical bundle, files quarantined elsewhere) locks the skill first, in a transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import IntegrityError, connection, transaction
from django.db.models import Model

from config.statements import column, insertion, prepared, table
from pipeline.models import ScanResult, Submission
from pipeline.outcomes import Outcome, OutcomeCode
from pipeline.states import State
from pipeline.transitions import Actor, Change, CompanionWrite, transition
from registry import services as registry
from registry.models import Skill, SkillVersion
from registry.publication import first_ids
from registry.versions import numbering_note
from skillformat.skillmd import SkillManifest


@dataclass(frozen=True)
class PublicationReads:
    """What publishing reads with the submission: the grading results (ids) that approved it,
    per tier (a new version starts with them as its current verdict), and the ids its skill and
    first version take when this can be the skill's first publication (else None)."""

    tier1_result_id: int | None
    tier2_result_id: int | None
    first_skill_id: int | None = None
    first_version_id: int | None = None


def publication_reads() -> dict[str, str]:
    """``PublicationReads`` as SQL expressions of the submission's row (aliased
    ``submission``), for a step that reads them with the submission (``start_attempt``'s
    ``reads``)."""
    return {
        **{
            f"tier{int(tier)}_result_id": (
                f"SELECT {column(ScanResult, 'result')} FROM {table(ScanResult)}"
                f" WHERE {column(ScanResult, 'submission')} = submission.id"
                f" AND {column(ScanResult, 'tier')} = {int(tier)}"
                f" AND NOT {column(ScanResult, 'is_late')}"
            )
            for tier in (ScanResult.Tier.TIER1, ScanResult.Tier.TIER2)
        },
        **first_ids(
            f"submission.{column(Submission, 'skill_owner')}",
            f"submission.{column(Submission, 'skill_name')}",
            f"submission.{column(Submission, 'bundle')}",
        ),
    }


def read_for_publication(submission: Submission) -> PublicationReads:
    """``PublicationReads`` read on their own (a reviewer's approval)."""
    reads = publication_reads()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(f'({expression})' for expression in reads.values())}"
            f" FROM {table(Submission)} submission WHERE submission.id = %s",
            [prepared(Submission, "id", submission.pk)],
        )
        return PublicationReads(*cursor.fetchone())


def publish(
    submission: Submission,
    channel: str,
    actor: Actor,
    trigger: str,
    metadata: dict[str, Any] | None = None,
    also: Sequence[CompanionWrite] = (),
    reads: PublicationReads | None = None,
) -> SkillVersion:
    """Assign the version and move to PUBLISHED, audited as ``trigger`` by ``actor``;
    ``metadata`` joins the audit event's, and the writes in ``also`` are made with the
    transition (see ``transition``), as is storing a new version. ``reads``, when the caller
    read them with the submission already, save a query."""
    reads = reads or read_for_publication(submission)
    request = publication_request(submission, channel, actor, reads)
    if reads.first_skill_id is not None and reads.first_version_id is not None:
        skill, version, first_event = registry.first_publication(
            request, reads.first_skill_id, reads.first_version_id
        )
        try:
            # A failed insert must not abort a caller's transaction (a reviewer's approval);
            # outside one the statement is its own transaction.
            with transaction.atomic() if connection.in_atomic_block else nullcontext():
                return _apply(
                    submission,
                    registry.Publication(version, created=True),
                    (skill, version, first_event),
                    declared_version=request.declared_version,
                    actor=actor,
                    trigger=trigger,
                    metadata=metadata,
                    also=also,
                )
        except IntegrityError:
            pass  # a skill of that name was created meanwhile: publish as a new version of it
    with transaction.atomic():
        publication = registry.publish_version(request, caller_stores=True)
        return _apply(
            submission,
            publication,
            publication.unsaved or (),
            declared_version=request.declared_version,
            actor=actor,
            trigger=trigger,
            metadata=metadata,
            also=also,
        )


def _apply(
    submission: Submission,
    publication: registry.Publication,
    stored_with_it: Sequence[Model],
    *,
    declared_version: str | None,
    actor: Actor,
    trigger: str,
    metadata: dict[str, Any] | None,
    also: Sequence[CompanionWrite],
) -> SkillVersion:
    """The transition to PUBLISHED, storing the publication's unsaved rows with it."""
    version = publication.version
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
                OutcomeCode.PUBLISHED, _published_message(publication, declared_version)
            ),
            updates={"published_version": version},
        ),
        entered_at=submission.state_changed_at,
        also=(*(_Inserted(row) for row in stored_with_it), *also),
    )
    return version


class _Inserted(CompanionWrite):
    """A row stored with the transition, only if it happens: a new skill, version or version
    event, its id drawn beforehand so that other rows can point to it in the same statement."""

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
    submission: Submission, channel: str, actor: Actor, reads: PublicationReads
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
        tier1_result_id=reads.tier1_result_id,
        tier2_result_id=reads.tier2_result_id,
    )


def _published_message(publication: registry.Publication, declared_version: str | None) -> str:
    version = publication.version
    message = f"Published as {version}"
    if not publication.created:
        return f"{message} (identical to the latest version)"
    if version.status == SkillVersion.Status.QUARANTINED:
        return f"{message}, quarantined at once: {version.status_reason}"
    note = numbering_note(version.version, declared_version)
    return f"{message} ({note})" if note else message
