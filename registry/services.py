"""Registry rules: snapshots, trusted organisations and their publishers, who may publish a name,
version assignment and the archives consumers install from."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction

from registry import archives, lifecycle, publication, selectors, versions
from registry.bundles import Bundle
from registry.models import (
    BundleSnapshot,
    PublisherMembership,
    PublisherMembershipEvent,
    Skill,
    SkillVersion,
    TrustedOrg,
    VersionEvent,
)
from skillformat.skillmd import SkillManifest


class NameTaken(Exception):
    """The skill name, or the owner's namespace, belongs to another publisher."""


def store_snapshot(bundle: Bundle, manifest: SkillManifest) -> BundleSnapshot:
    """Store the bundle once under its sha256 (identical uploads share one snapshot), with the
    manifest parsed from its SKILL.md: every later reader takes that, never parses again."""
    snapshot = BundleSnapshot(
        sha256=bundle.sha256,
        files=bundle.to_json(),
        manifest=manifest.to_json(),
        file_count=len(bundle.files),
        total_bytes=bundle.total_bytes,
    )
    BundleSnapshot.objects.bulk_create([snapshot], ignore_conflicts=True)
    return snapshot


def trusted_org(host: str, owner: str) -> TrustedOrg | None:
    return TrustedOrg.objects.filter(host__iexact=host, name__iexact=owner).first()


def vendor_org_for(host: str, owner: str, account: AbstractBaseUser) -> TrustedOrg | None:
    """The trusted organisation (host, owner) if ``account`` is one of its linked publishers."""
    org = trusted_org(host, owner)
    if org is None or not org.memberships.filter(user_id=account.pk).exists():
        return None
    return org


def check_owner(owner: str, account: AbstractBaseUser) -> None:
    """Only linked publishers publish under a trusted organisation's name, whatever the source
    (its repository, the same name on another host, or an account of that name)."""
    orgs = TrustedOrg.objects.filter(name__iexact=owner)
    if not orgs.exists():
        return
    if not PublisherMembership.objects.filter(org__in=orgs, user_id=account.pk).exists():
        raise NameTaken(
            f"{owner!r} is a verified publisher: only accounts linked to it can publish under "
            "that name"
        )


def check_publisher(
    owner: str, name: str, origin: str, account: AbstractBaseUser, host: str = ""
) -> None:
    """Refuse a submission that would publish into a namespace or name another publisher owns.

    A skill owned by a registry account takes new versions only from that account, a skill from
    git only from the same owner on the same host, and a name first published from git cannot
    be taken over by an inline upload (or vice versa).
    """
    check_owner(owner, account)
    skill = Skill.objects.filter(owner=owner, name=name).first()
    if skill is None:
        return
    if (
        skill.origin != origin
        or (skill.origin == Skill.Origin.ACCOUNT and skill.owner_account_id != account.pk)
        or (skill.origin == Skill.Origin.GIT and skill.host.lower() != host.lower())
    ):
        raise NameTaken(f"the skill {owner}/{name} belongs to another publisher")


def link_publisher(org: TrustedOrg, user: User, actor: str) -> PublisherMembership:
    """Make ``user`` a publisher of ``org`` (audited; linking twice changes nothing)."""
    with transaction.atomic():
        membership, created = PublisherMembership.objects.get_or_create(
            org=org, user=user, defaults={"linked_by": actor}
        )
        if created:
            _audit(org, user, PublisherMembershipEvent.Action.LINKED, actor)
    return membership


def unlink_publisher(membership: PublisherMembership, actor: str) -> None:
    """End a publisher membership (audited)."""
    with transaction.atomic():
        _audit(membership.org, membership.user, PublisherMembershipEvent.Action.UNLINKED, actor)
        membership.delete()


def _audit(org: TrustedOrg, user: AbstractBaseUser, action: str, actor: str) -> None:
    PublisherMembershipEvent.objects.create(
        org=str(org), username=user.get_username(), action=action, actor=actor
    )


@dataclass(frozen=True)
class PublicationRequest:
    """Everything the registry needs to publish a bundle, and nothing of where it came from.

    Built by the pipeline from an approved submission; ``approved_by`` names the reviewer who
    approved it (None when the pipeline approved it on its own), for the version's audit trail.
    """

    owner: str
    name: str
    origin: Skill.Origin
    host: str
    """The git host for a git skill, empty for an account's."""
    bundle_sha256: str
    submission_id: uuid.UUID
    submitter_id: int
    channel: SkillVersion.Channel
    description: str
    declared_version: str | None
    approved_by: str | None = None
    tier1_result_id: int | None = None
    tier2_result_id: int | None = None
    """The grading results that approved the bundle: a new version starts with them as its
    current verdict (a re-scan replaces them later)."""


@dataclass(frozen=True)
class Publication:
    version: SkillVersion
    created: bool
    unsaved: tuple[SkillVersion, VersionEvent] | None = None
    """A new version and its first event, their ids drawn but not stored, when the caller asked
    to store them itself (see ``publish_version``); None once they are stored."""


@dataclass(frozen=True)
class PublicationPreview:
    """What publishing a bundle would do now (read without the skill's lock: a publication
    that commits first can change it; publishing itself reads again under the lock)."""

    version: str
    """The version number the bundle would be published as."""
    creates: bool
    """False when the files equal the latest available version, which is reused."""
    quarantined: bool
    """The files are quarantined elsewhere: the new version would be quarantined at once."""
    latest: SkillVersion | None
    """The skill's latest available version (what the bundle is compared with), if any."""


def preview_publication(
    owner: str, name: str, bundle_sha256: str, declared_version: str | None
) -> PublicationPreview:
    """The version ``publish_version`` would give these files in this skill, by its rules."""
    skill = Skill.objects.filter(owner=owner.lower(), name=name).first()
    latest = selectors.latest(skill) if skill is not None else None
    if latest is not None and latest.bundle_id == bundle_sha256:
        return PublicationPreview(latest.version, False, False, latest)
    newest = skill.versions.newest_first().first() if skill is not None else None
    return PublicationPreview(
        versions.next_version(newest.version if newest else None, declared_version),
        True,
        selectors.quarantined_with_bundle(bundle_sha256).exists(),
        latest,
    )


def publish_version(request: PublicationRequest, *, caller_stores: bool = False) -> Publication:
    """Give the request's bundle its version, inside the caller's transaction.

    The skill row is locked, so concurrent publications of one skill are serialised. A request
    that already created a version gets it back (publish running twice is harmless). A bundle
    identical to the latest *available* version creates nothing and reuses that version.
    Otherwise a new version is created, numbered after the newest version of any status, so:

    - re-publishing the bundle of a yanked version creates a new version (the yank stands);
    - a bundle that is quarantined anywhere in the registry (same sha256) gets its new version
      quarantined at once by the system, citing the original quarantine: a quarantine cannot be
      bypassed by submitting the same files again. Security restores it like any other.

    With ``caller_stores``, a new version that needs nothing more than storing is left to the
    caller in ``Publication.unsaved``, to store with its own next write (one statement instead
    of two: the pipeline stores it with the submission's transition to PUBLISHED), in the same
    transaction. Where ids are not drawn in advance (the one-by-one path) it is stored here.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("publish_version must run inside the caller's transaction")
    locked = publication.lock_skill(
        _new_skill(request), request.submission_id, request.bundle_sha256
    )
    if locked.submission_version_id is not None:
        return Publication(_version(locked.submission_version_id), created=False)
    around = publication.neighbours(locked)
    if around.latest_id is not None and around.latest_bundle == request.bundle_sha256:
        return Publication(_version(around.latest_id), created=False)
    version, first_event = _new_version(
        request,
        locked.skill,
        versions.next_version(around.newest_number, request.declared_version),
        locked.new_version_id,
    )
    if around.quarantined_twin_id is not None:
        version = publication.create_version(version, first_event)
        twin = _version(around.quarantined_twin_id)
        reason = f"its files are identical to {twin}, which is quarantined: {twin.status_reason}"
        lifecycle.quarantine(
            version.pk, lifecycle.Actor.system(), reason[: lifecycle.REASON_MAX_LENGTH]
        )
        version.refresh_from_db()
        return Publication(version, created=True)
    if locked.skill.description != request.description:
        locked.skill.description = request.description
        locked.skill.save(update_fields=["description", "updated_at"])
    if caller_stores and version.pk is not None:
        return Publication(version, created=True, unsaved=(version, first_event))
    return Publication(publication.create_version(version, first_event), created=True)


def first_publication(
    request: PublicationRequest, skill_id: int, version_id: int
) -> tuple[Skill, SkillVersion, VersionEvent]:
    """The rows of the skill's first publication, unsaved, their ids drawn beforehand
    (``publication.first_ids``): the skill, its first version and the version's first event,
    for the caller to insert in one statement with its own write. Inserting the skill fails on
    its unique name if another publication created it meanwhile: ``publish_version`` then."""
    skill = _new_skill(request, skill_id)
    version, first_event = _new_version(
        request, skill, versions.next_version(None, request.declared_version), version_id
    )
    return skill, version, first_event


def _new_version(
    request: PublicationRequest, skill: Skill, number: str, version_id: int | None
) -> tuple[SkillVersion, VersionEvent]:
    """A new version of ``skill`` numbered ``number`` and its first event, unsaved."""
    version = SkillVersion(
        pk=version_id,
        skill=skill,
        version=number,
        bundle_id=request.bundle_sha256,
        submission_id=request.submission_id,
        submitter_id=request.submitter_id,
        channel=request.channel,
        tier1_result_id=request.tier1_result_id,
        tier2_result_id=request.tier2_result_id,
    )
    first_event = lifecycle.publication_event(
        lifecycle.Actor.system("pipeline")
        if request.approved_by is None
        else lifecycle.Actor(request.approved_by, VersionEvent.ActorType.ACCOUNT)
    )
    first_event.version = version
    return version, first_event


def _new_skill(request: PublicationRequest, skill_id: int | None = None) -> Skill:
    """The skill row a first publication under this name creates."""
    return Skill(
        pk=skill_id,
        owner=request.owner,
        name=request.name,
        origin=request.origin,
        host=request.host,
        owner_account_id=(request.submitter_id if request.origin == Skill.Origin.ACCOUNT else None),
        description=request.description,
    )


def _version(version_id: int) -> SkillVersion:
    return SkillVersion.objects.select_related("skill").get(pk=version_id)


class VersionQuarantined(Exception):
    """The version is quarantined: its archive is refused; ``advisory`` says why."""

    def __init__(self, version: SkillVersion, advisory: VersionEvent | None) -> None:
        super().__init__(
            f"{version} is quarantined and cannot be downloaded"
            + (f": {advisory.reason}" if advisory else "")
        )
        self.version = version
        self.advisory = advisory


def download(version: SkillVersion) -> archives.Archive:
    """The archive a consumer installs; yanked versions still download by their exact number,
    quarantined ones never (VersionQuarantined carries the advisory)."""
    if version.status == SkillVersion.Status.QUARANTINED:
        raise VersionQuarantined(version, selectors.advisory_for(version))
    return archives.build(version.bundle.as_bundle())
