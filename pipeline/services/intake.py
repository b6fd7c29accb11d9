"""Intake: the submission's source made into a snapshot, and whether it is a vendor's.

A git source is fetched here, in the pipeline's first step, once: a slow git host costs a
worker's time, never a web request's. A version comes only from the current tip of a branch or
tag of the repository itself — never a pull request's head or a raw commit, which a host serves
through the repository for anyone's fork — and only from the account that holds the repository
owner's namespace (``registry.namespaces``: claimed here with the verification file read at
that tip, when free). The vendor fast path is open only when, besides, the repository (host,
owner) is a trusted organisation and the submitting account is one of its linked publishers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.models import Submission
from pipeline.services.submissions import skill_manifest
from pipeline.sources.errors import SourceRejected
from pipeline.sources.git import FetchedSkill, fetch_skill
from registry import namespaces
from registry import services as registry
from registry.bundles import Bundle
from registry.models import TrustedOrg


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
    if not fetched.is_tip_of_branch_or_tag:
        raise SourceRejected(
            "ref",
            f"{fetched.ref.kind} {fetched.ref.name or submission.ref} is not a branch or tag of "
            "the repository: versions are published only from the current tip of a branch or "
            "tag of the repository itself (not a pull request's head, not a raw commit)",
        )
    manifest = skill_manifest(fetched.bundle, "skill_path")
    try:
        registry.check_publisher(
            fetched.repo.owner,
            manifest.name,
            namespaces.git(fetched.repo.host),
            submission.submitter,
            proof=fetched.owner_claim,
            proof_location=f"{fetched.repo.url} {fetched.ref.name} {fetched.commit}",
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
    org = registry.vendor_org_for(host, owner, submission.submitter)
    if org is None:
        return None, "the submitting account is not a linked publisher of the organisation"
    return org, ""
