"""Registry rules: snapshots, trusted organisations, who may publish a name, version assignment."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from registry import versions
from registry.bundles import SKILL_FILE, Bundle
from registry.models import BundleSnapshot, Skill, SkillVersion, TrustedOrg
from registry.skillmd import parse_manifest


class NameTaken(Exception):
    """The skill name belongs to another publisher."""


def store_snapshot(bundle: Bundle) -> BundleSnapshot:
    """Store the bundle once under its sha256 (identical uploads share one snapshot)."""
    snapshot = BundleSnapshot(
        sha256=bundle.sha256,
        files=bundle.to_json(),
        file_count=len(bundle.files),
        total_bytes=bundle.total_bytes,
    )
    BundleSnapshot.objects.bulk_create([snapshot], ignore_conflicts=True)
    return snapshot


def is_trusted_org(owner: str) -> bool:
    return TrustedOrg.objects.filter(name__iexact=owner).exists()


def check_publisher(owner: str, name: str, origin: str, account: AbstractBaseUser) -> None:
    """Refuse a submission that would publish into a name another publisher owns.

    A skill owned by a registry account takes new versions only from that account, and a name
    first published from git cannot be taken over by an inline upload (or vice versa).
    """
    skill = Skill.objects.filter(owner=owner, name=name).first()
    if skill is None:
        return
    if skill.origin != origin or (
        skill.origin == Skill.Origin.ACCOUNT and skill.owner_account_id != account.pk
    ):
        raise NameTaken(f"the skill {owner}/{name} belongs to another publisher")


@dataclass(frozen=True)
class Publication:
    version: SkillVersion
    created: bool


def publish_version(submission, channel: str) -> Publication:  # type: ignore[no-untyped-def]
    """Give the submission's bundle its version, inside the caller's transaction.

    The skill row is locked, so concurrent publications of one skill are serialised. A bundle
    identical to the latest version creates nothing and reuses that version; a submission that
    already created a version gets it back (publish running twice is harmless).
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("publish_version must run inside the caller's transaction")
    existing = SkillVersion.objects.filter(submission=submission).first()
    if existing is not None:
        return Publication(existing, created=False)
    manifest = parse_manifest(submission.bundle.as_bundle().get(SKILL_FILE).text or "")
    skill, _ = Skill.objects.select_for_update().get_or_create(
        owner=submission.skill_owner,
        name=submission.skill_name,
        defaults={
            "origin": Skill.Origin.GIT if submission.repo_url else Skill.Origin.ACCOUNT,
            "owner_account_id": None if submission.repo_url else submission.submitter_id,
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
