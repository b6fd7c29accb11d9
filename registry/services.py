"""Registry rules: snapshots, trusted organisations and their publishers, who may publish a name,
version assignment."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from registry import versions
from registry.bundles import Bundle
from registry.models import (
    BundleSnapshot,
    PublisherMembership,
    PublisherMembershipEvent,
    Skill,
    SkillVersion,
    TrustedOrg,
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


def link_publisher(org: TrustedOrg, user: AbstractBaseUser, actor: str) -> PublisherMembership:
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
class Publication:
    version: SkillVersion
    created: bool


def publish_version(submission, channel: str) -> Publication:  # type: ignore[no-untyped-def]
    """Give the submission's bundle its version, inside the caller's transaction.

    The skill row is locked, so concurrent publications of one skill are serialised. A bundle
    identical to the latest version creates nothing and reuses that version; a submission that
    already created a version gets it back (publish running twice is harmless). Description and
    declared version come from the manifest stored with the snapshot at intake.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("publish_version must run inside the caller's transaction")
    existing = SkillVersion.objects.filter(submission=submission).first()
    if existing is not None:
        return Publication(existing, created=False)
    manifest = SkillManifest.from_json(submission.bundle.manifest)
    from_git = bool(submission.repo_url)
    skill, _ = Skill.objects.select_for_update().get_or_create(
        owner=submission.skill_owner,
        name=submission.skill_name,
        defaults={
            "origin": Skill.Origin.GIT if from_git else Skill.Origin.ACCOUNT,
            "host": submission.repo_host if from_git else "",
            "owner_account_id": None if from_git else submission.submitter_id,
            "description": manifest.description,
        },
    )
    latest = skill.versions.order_by("-id").first()
    if latest is not None and latest.bundle_id == submission.bundle_id:
        return Publication(latest, created=False)
    version = SkillVersion.objects.create(
        skill=skill,
        version=versions.next_version(latest.version if latest else None, manifest.version),
        bundle_id=submission.bundle_id,
        submission=submission,
        channel=channel,
    )
    if skill.description != manifest.description:
        skill.description = manifest.description
        skill.save(update_fields=["description", "updated_at"])
    return Publication(version, created=True)
