"""Intake: the submission's source made into a snapshot, and whether it is a vendor's.

A git source is fetched here, in the pipeline's first step, once: a slow git host costs a
worker's time, never a web request's. The vendor fast path is open only when every condition
holds: the repository (host, owner) is a trusted organisation, the fetched commit is the current
tip of a branch or tag of that repository (not a pull request's head, not a raw commit), and the
submitting account is a linked publisher of the organisation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.models import Submission
from pipeline.services.submissions import skill_manifest
from pipeline.sources.errors import SourceRejected
from pipeline.sources.git import FetchedSkill, fetch_skill
from registry import services as registry
from registry.bundles import Bundle
from registry.models import Skill, TrustedOrg


@dataclass(frozen=True)
class Intake:
    """The bundle to route, the vendor organisation when the source is verified as its, and
    the submission fields to store with the routing transition."""

    bundle: Bundle
    vendor_org: TrustedOrg | None = None
    updates: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)


def take_in(submission: Submission) -> Intake:
    """The submission's bundle, fetching a git source first. Raises SourceRejected (the source
    cannot be used: the message says what to fix) or SourceUnavailable (retry later)."""
    if submission.bundle is not None:  # no query when bundle_id is None
        return Intake(bundle=submission.bundle.as_bundle())
    fetched = fetch_skill(submission.repo_url, submission.skill_path, submission.ref)
    manifest = skill_manifest(fetched.bundle, "skill_path")
    try:
        registry.check_publisher(
            fetched.repo.owner,
            manifest.name,
            Skill.Origin.GIT,
            submission.submitter,
            host=fetched.repo.host,
        )
    except registry.NameTaken as exc:
        raise SourceRejected("name", str(exc)) from exc
    org, refusal = _vendor_org(submission, fetched)
    metadata: dict[str, Any] = {"commit": fetched.commit, "ref": fetched.ref.name}
    if org is not None:
        metadata["org"] = str(org)
    elif refusal:
        metadata["vendor_path_refused"] = refusal
    return Intake(
        bundle=fetched.bundle,
        vendor_org=org,
        updates={
            "bundle": registry.store_snapshot(fetched.bundle, manifest),
            "skill_name": manifest.name,
            "resolved_commit": fetched.commit,
            "resolved_ref": fetched.ref.name,
            "vendor_org": org,
        },
        metadata=metadata,
    )


def _vendor_org(submission: Submission, fetched: FetchedSkill) -> tuple[TrustedOrg | None, str]:
    """The verified vendor organisation, or None and (for a trusted organisation's repository)
    the reason the fast path is closed, for the audit trail."""
    host, owner = fetched.repo.host, fetched.repo.owner
    if registry.trusted_org(host, owner) is None:
        return None, ""
    if not fetched.is_tip_of_branch_or_tag:
        return None, (
            f"the fetched commit is not the tip of a branch or tag ({fetched.ref.kind} "
            f"{fetched.ref.name or submission.ref})"
        )
    org = registry.vendor_org_for(host, owner, submission.submitter)
    if org is None:
        return None, "the submitting account is not a linked publisher of the organisation"
    return org, ""
