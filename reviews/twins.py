"""Identical bundles: a submission whose files equal a published version or another submission.

The review page says so and links them. Decisions on the same files of the same skill cannot
contradict each other; the rule chosen is that **the second decision is refused, with the
reason** (not that one decision silently covers the others, which would decide submissions
nobody opened, possibly the decider's own or escalated ones):

- rejecting (or requesting changes) is refused while these files are published as a version of
  this skill (published or yanked): approving reuses that version; withdrawing it is
  Security's quarantine;
- approving is refused while a reviewer's rejection (or request for changes) of these files in
  this skill stands: reject this one too, or the author of that one appeals.

"Same skill" (owner and name) and not "same files anywhere": the files carry the skill's name,
so a copy under another owner is a different question (whose skill it is), which a reviewer
may decide differently; such copies are shown, not bound. Deciding takes a lock on the bundle
(``lock_bundle``), so two reviewers deciding two identical submissions at the same moment are
serialised and the second sees the first's decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from pipeline.models import Submission
from pipeline.outcomes import OutcomeCode
from pipeline.states import REVIEW_STATES, State
from registry.models import BundleSnapshot, SkillVersion, VersionStatus

NEGATIVE_DECISIONS = (OutcomeCode.REVIEWER_REJECTED, OutcomeCode.CHANGES_REQUESTED)
"""Reviewers' decisions against a bundle that bind the decisions on its twins."""
_LISTED = 10
_WAITING = sorted(state.value for state in REVIEW_STATES)


@dataclass(frozen=True)
class Twins:
    """What else holds exactly this submission's files."""

    published: list[SkillVersion]
    """Versions of this skill with these files, published or yanked (they bind)."""
    elsewhere: list[SkillVersion]
    """Versions of other skills with these files, any status (shown, not binding)."""
    waiting: list[Submission]
    """Other submissions of this skill with these files, waiting for review."""
    turned_down: list[Submission]
    """Submissions of this skill with these files that a reviewer rejected or asked to change
    (they bind, unless an appeal granted them since: then they are published)."""

    def __bool__(self) -> bool:
        return bool(self.published or self.elsewhere or self.waiting or self.turned_down)


def twins_of(submission: Submission) -> Twins:
    """Every other record of this submission's files, newest first, a few of each kind."""
    if submission.bundle_id is None:
        return Twins([], [], [], [])
    versions = SkillVersion.objects.filter(bundle_id=submission.bundle_id).select_related("skill")
    same_skill = _same_skill(versions, submission)
    return Twins(
        published=list(
            same_skill.filter(status__in=(VersionStatus.PUBLISHED, VersionStatus.YANKED)).order_by(
                "-pk"
            )[:_LISTED]
        ),
        elsewhere=list(versions.exclude(pk__in=same_skill.values("pk")).order_by("-pk")[:_LISTED]),
        waiting=list(
            _identical(submission).filter(state__in=_WAITING).order_by("-created_at")[:_LISTED]
        ),
        turned_down=list(turned_down(submission)[:_LISTED]),
    )


def turned_down(submission: Submission) -> QuerySet[Submission]:
    """Submissions of this skill with these files whose reviewer's rejection or request for
    changes stands, newest first."""
    return (
        _identical(submission)
        .filter(state=State.REJECTED, outcome_code__in=NEGATIVE_DECISIONS)
        .select_related("review__decided_by")
        .order_by("-created_at")
    )


def published_twin(submission: Submission) -> SkillVersion | None:
    """The newest version of this skill with these files that is published or yanked."""
    if submission.bundle_id is None:
        return None
    return (
        _same_skill(SkillVersion.objects.filter(bundle_id=submission.bundle_id), submission)
        .filter(status__in=(VersionStatus.PUBLISHED, VersionStatus.YANKED))
        .select_related("skill")
        .order_by("-pk")
        .first()
    )


def lock_bundle(submission: Submission) -> None:
    """Serialise decisions on these files until the caller's transaction ends."""
    if submission.bundle_id is not None:
        list(
            BundleSnapshot.objects.select_for_update()
            .filter(pk=submission.bundle_id)
            .values_list("pk", flat=True)
        )


def _identical(submission: Submission) -> QuerySet[Submission]:
    return Submission.objects.filter(
        bundle_id=submission.bundle_id,
        skill_owner=submission.skill_owner,
        skill_name=submission.skill_name,
    ).exclude(pk=submission.pk)


def _same_skill(versions: QuerySet[SkillVersion], submission: Submission) -> QuerySet[SkillVersion]:
    return versions.filter(
        skill__owner=submission.skill_owner.lower(), skill__name=submission.skill_name
    )
