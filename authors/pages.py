"""What the author's pages show: their submissions (state, outcome, what decided it, every
finding under its line), their skills (versions, yanks, the advisories that concern them) and
their API tokens. Read-side only; the pages' actions go through ``registry.lifecycle`` and
``accounts.tokens``.

Only the account's own records are ever read here: a submission is found by id *and*
submitter, a skill by owner account or by the versions the account submitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.http import Http404

from pipeline.explanations import Reason, deciding_reasons
from pipeline.models import ScanResult, Submission, SubmissionStateEvent
from pipeline.presentation import event_details
from registry import lifecycle
from registry.models import Namespace, Skill, SkillVersion, VersionEvent
from registry.selectors import ADVISORY_ACTIONS, advice
from reviews.appeals import appealable
from reviews.detail import FileView, annotate_files
from reviews.marks import marks_by_line
from reviews.selectors import event_as_seen_by, review_for_submitter

SUBMISSIONS_PER_PAGE = 50


_LIST_COLUMNS = (
    "id", "state", "skill_owner", "skill_name", "repo_url", "outcome_kind", "outcome_code",
    "outcome_message", "created_at", "updated_at",
)  # fmt: skip


def submissions_of(user: User) -> QuerySet[Submission]:
    """The account's submissions, newest first (the list reads one page at a time)."""
    return (
        Submission.objects.filter(submitter=user)
        .only(*_LIST_COLUMNS)
        .order_by("-created_at", "-id")
    )


@dataclass(frozen=True)
class AuditLine:
    event: dict[str, Any]
    details: list[tuple[str, str]]


@dataclass(frozen=True)
class SubmissionPage:
    submission: Submission
    deciding: list[Reason]
    review: dict[str, Any] | None
    files: list[FileView]
    finding_count: int
    trail: list[AuditLine]
    may_appeal: bool
    """A reviewer rejected it and it has not been appealed yet: the page offers the appeal."""


def submission_page(user: User, submission_id: UUID) -> SubmissionPage:
    submission = (
        Submission.objects.select_related("bundle", "published_version__skill")
        .filter(pk=submission_id, submitter=user)
        .first()
    )
    if submission is None:
        raise Http404("no submission of yours has this id")
    results = {
        scan.tier: scan.result
        for scan in ScanResult.objects.select_related("result").filter(
            submission=submission, is_late=False
        )
    }
    tier1, tier2 = results.get(ScanResult.Tier.TIER1), results.get(ScanResult.Tier.TIER2)
    findings = [f.to_dict() for f in tier1.tier1_report.findings] if tier1 else []
    concerns = [c.to_dict() for c in tier2.tier2_record.judgement.concerns] if tier2 else []
    files = (
        annotate_files(submission.bundle.as_bundle(), marks_by_line(findings, concerns))
        if submission.bundle is not None
        else []
    )
    trail = []
    for event in SubmissionStateEvent.objects.filter(submission=submission).order_by("pk"):
        shown = event_as_seen_by(
            {
                "from_state": event.from_state,
                "to_state": event.to_state,
                "trigger": event.trigger,
                "actor": event.actor,
                "actor_type": event.actor_type,
                "metadata": event.metadata,
                "created_at": event.created_at,
            },
            user,
        )
        trail.append(AuditLine(shown, event_details(shown["metadata"])))
    review = review_for_submitter(submission, user)
    return SubmissionPage(
        submission=submission,
        deciding=deciding_reasons(submission),
        review=review,
        files=files,
        finding_count=len(findings) + len(concerns),
        trail=trail,
        may_appeal=review is not None and review["appeal"] is None and appealable(submission),
    )


@dataclass(frozen=True)
class VersionRow:
    version: SkillVersion
    can_yank: bool
    can_unyank: bool


@dataclass(frozen=True)
class Advisory:
    event: VersionEvent
    what_to_do: str


@dataclass(frozen=True)
class SkillRow:
    skill: Skill
    versions: list[VersionRow]
    advisories: list[Advisory]


def skills_of(user: User) -> list[SkillRow]:
    """The skills the account owns, those in the namespaces it holds and those it published
    versions of, each with every version (quarantined ones too: they are the author's) and its
    advisories."""
    held = Namespace.objects.filter(account=user).values("name")
    skills = (
        Skill.objects.filter(
            Q(owner_account=user) | Q(owner__in=held) | Q(versions__submitter=user)
        )
        .distinct()
        .order_by("owner", "name")
    )
    rows = []
    for skill in skills:
        versions = list(skill.versions.select_related("skill").order_by("-id"))
        # Only the holder of the skill's namespace yanks and unyanks (registry.lifecycle): for a
        # skill from git that is not always whoever submitted one of its versions.
        holder = bool(versions) and lifecycle.is_owner(versions[0], user)
        events = (
            VersionEvent.objects.filter(version__skill=skill, action__in=ADVISORY_ACTIONS)
            .select_related("version__skill")
            .order_by("-created_at", "-id")
        )
        rows.append(
            SkillRow(
                skill=skill,
                versions=[
                    VersionRow(
                        version,
                        can_yank=holder and version.status == SkillVersion.Status.PUBLISHED,
                        can_unyank=holder and version.status == SkillVersion.Status.YANKED,
                    )
                    for version in versions
                ],
                advisories=[Advisory(event, advice(event).text) for event in events],
            )
        )
    return rows


def own_version(user: User, owner: str, name: str, number: str) -> SkillVersion:
    """A version of one of the account's skills (as ``skills_of`` lists them), for its yank
    and unyank buttons; whether the account may take the action is ``registry.lifecycle``'s."""
    held = Namespace.objects.filter(account=user).values("name")
    version = (
        SkillVersion.objects.select_related("skill")
        .filter(skill__owner=owner.lower(), skill__name=name, version=number)
        .filter(Q(skill__owner_account=user) | Q(skill__owner__in=held) | Q(submitter=user))
        .first()
    )
    if version is None:
        raise Http404("no version of your skills has this number")
    return version
