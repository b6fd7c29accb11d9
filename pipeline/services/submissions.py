"""Creating a submission: fetch the bundle once, validate it, store it, audit it, dispatch it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from pipeline.models import Submission
from pipeline.services.dispatch import dispatch_after_commit
from pipeline.sources.errors import SourceRejected
from pipeline.sources.git import fetch_skill
from pipeline.sources.inline import bundle_from_inline
from pipeline.states import State
from pipeline.transitions import Actor, record_received
from registry import services as registry
from registry.bundles import SKILL_FILE, Bundle
from registry.models import Skill
from registry.skillmd import SkillFileError, SkillManifest, parse_manifest


@dataclass(frozen=True)
class SubmissionRequest:
    """What an author asks for: inline ``files``, or a git ``repo_url`` (+ path and ref)."""

    files: Mapping[str, object] | None = None
    repo_url: str = ""
    skill_path: str = ""
    ref: str = ""


def create_submission(
    submitter: AbstractBaseUser, request: SubmissionRequest, *, trigger: str
) -> Submission:
    """Validate and store a new submission in RECEIVED, then dispatch it after the commit.

    Raises SourceRejected / ContentTooLarge (the author must fix something), SourceUnavailable
    (the git host failed us) or registry NameTaken. Nothing is stored unless all checks pass.
    """
    has_files, has_repo = bool(request.files), bool(request.repo_url.strip())
    if has_files == has_repo:
        raise SourceRejected(
            "non_field_errors",
            "give exactly one source: 'files' for an inline upload or 'repo_url' for git",
        )
    if has_repo:
        fetched = fetch_skill(request.repo_url, request.skill_path, request.ref)
        bundle, owner, commit = fetched.bundle, fetched.repo.owner, fetched.commit
        origin, field = Skill.Origin.GIT, "skill_path"
    else:
        if request.skill_path or request.ref:
            raise SourceRejected(
                "non_field_errors", "'skill_path' and 'ref' only apply to a git 'repo_url'"
            )
        bundle = bundle_from_inline(request.files or {})
        owner, commit = submitter.get_username().lower(), ""
        origin, field = Skill.Origin.ACCOUNT, "files"
    manifest = _manifest(bundle, field)
    try:
        registry.check_publisher(owner, manifest.name, origin, submitter)
    except registry.NameTaken as exc:
        raise SourceRejected("name", str(exc)) from exc

    now = timezone.now()
    with transaction.atomic():
        submission = Submission.objects.create(
            skill_owner=owner,
            skill_name=manifest.name,
            source_kind=Submission.SourceKind.GIT if has_repo else Submission.SourceKind.INLINE,
            repo_url=request.repo_url.strip(),
            skill_path=request.skill_path,
            ref=request.ref,
            resolved_commit=commit,
            submitter=submitter,
            bundle=registry.store_snapshot(bundle),
            deadline_at=now + timedelta(seconds=settings.SKILLGATE_PIPELINE_DEADLINE_S),
            state=State.RECEIVED,
            state_changed_at=now,
        )
        record_received(submission, trigger, Actor.system())
        dispatch_after_commit(submission.pk, State.RECEIVED)
    return submission


def _manifest(bundle: Bundle, field: str) -> SkillManifest:
    skill_file = bundle.get(SKILL_FILE)
    if skill_file is None:
        raise SourceRejected(field, "SKILL.md is missing at the root of the skill")
    if skill_file.text is None:
        raise SourceRejected(field, "SKILL.md is not valid UTF-8 text")
    try:
        return parse_manifest(skill_file.text)
    except SkillFileError as exc:
        raise SourceRejected(field, str(exc)) from exc
