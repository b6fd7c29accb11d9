"""What the registry signs about a version: its verdict and its status (SECURITY.md).

Both are in-toto Statements (v1) in DSSE envelopes signed by the registry's current key
(``registry.signing``), with the version's archive as the subject, so a client that checks the
signature knows exactly which bytes the statement is about:

- the **verdict**: which skill and version the archive is, which source holds its namespace
  (a registry account, or a git owner on a host), the bundle's sha256, how it was
  approved (channel, Tier 1 verdict, Tier 2 score and decision, reviewer) with the rule
  catalogue and judge versions, and when it was published. It never changes;
- the **status**: published, yanked or quarantined, the reason and the advisory, and when the
  statement was issued and until when it may be relied on. It is signed when asked, so it is
  always fresh: a mirror that keeps serving an old "published" cannot hide a quarantine from a
  client that refuses statuses older than their validity.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from registry import archives, selectors, signing
from registry.models import SkillVersion

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VERDICT_PREDICATE = "https://skillgate.dev/attestations/verdict/v1"
STATUS_PREDICATE = "https://skillgate.dev/attestations/status/v1"


def verdict(version: SkillVersion) -> dict[str, Any]:
    """The version's signed verdict (a DSSE envelope)."""
    tier1, tier2 = version.tier1_result, version.tier2_result
    return _signed(
        version,
        VERDICT_PREDICATE,
        {
            "skill": str(version.skill),
            "version": version.version,
            "namespace": {
                "kind": version.skill.origin,
                "host": version.skill.host,
                "owner": version.skill.owner,
            },
            "bundle_sha256": version.bundle_id,
            "outcome": {
                "channel": version.channel,
                "tier1_verdict": tier1.verdict if tier1 else None,
                "tier2_score": tier2.score if tier2 else None,
                "tier2_decision": tier2.decision if tier2 else None,
                "approved_by": _approver(version),
            },
            "catalogue_version": tier1.catalogue_version if tier1 else None,
            "judge_version": tier2.judge_version if tier2 else None,
            "published_at": version.published_at.isoformat(),
        },
    )


def status(version: SkillVersion) -> dict[str, Any]:
    """The version's status now, signed and timestamped (a DSSE envelope)."""
    issued = timezone.now()
    advisory = selectors.advisory_for(version)
    return _signed(
        version,
        STATUS_PREDICATE,
        {
            "skill": str(version.skill),
            "version": version.version,
            "status": version.status,
            "reason": version.status_reason,
            "advisory": advisory.pk if advisory else None,
            "issued_at": issued.isoformat(),
            "valid_until": (
                issued + timedelta(seconds=settings.SKILLGATE_STATUS_VALIDITY_S)
            ).isoformat(),
        },
    )


def _signed(
    version: SkillVersion, predicate_type: str, predicate: dict[str, Any]
) -> dict[str, Any]:
    skill = version.skill
    statement = {
        "_type": STATEMENT_TYPE,
        "subject": [
            {
                "name": f"{skill.owner}/{skill.name}@{version.version}{archives.SUFFIX}",
                "digest": {"sha256": archives.sha256_of(version.bundle.as_bundle())},
            }
        ],
        "predicateType": predicate_type,
        "predicate": predicate,
    }
    payload = json.dumps(statement, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return signing.keyring().sign(signing.IN_TOTO_PAYLOAD_TYPE, payload)


def _approver(version: SkillVersion) -> str | None:
    if version.channel != SkillVersion.Channel.REVIEW:
        return None
    return version.events.order_by("id").values_list("actor", flat=True).first()
