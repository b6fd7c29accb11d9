"""Creating a submission: validate what can be checked at once, store it, audit it, dispatch it.

An inline upload is validated and snapshotted here, in the request. A git source is only parsed
here (URL, ref and path grammar: a 400 at once when wrong); the fetch itself is the pipeline's
intake step, in a worker, so a slow or hanging git host never holds a web process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from pipeline.models import Submission
from pipeline.services.dispatch import dispatch_after_commit
from pipeline.sources.errors import SourceRejected
from pipeline.sources.git import check_ref, check_skill_path, parse_repo_url
from pipeline.sources.inline import bundle_from_inline
from pipeline.states import State
from pipeline.transitions import Actor, record_received
from registry import namespaces
from registry import services as registry
from registry.bundles import SKILL_FILE, Bundle
from skillformat.skillmd import SkillFileError, SkillManifest, parse_manifest


@dataclass(frozen=True)
class SubmissionRequest:
    """What an author asks for: inline ``files``, or a git ``repo_url`` (+ path and ref)."""

    files: Mapping[str, object] | None = None
    repo_url: str = ""
    skill_path: str = ""
    ref: str = ""


def create_submission(submitter: User, request: SubmissionRequest, *, trigger: str) -> Submission:
    """Validate and store a new submission in RECEIVED, then dispatch it after the commit.

    Raises SourceRejected / ContentTooLarge (the author must fix something). Nothing is stored
    unless all checks pass.
    """
    has_files, has_repo = bool(request.files), bool(request.repo_url.strip())
    if has_files == has_repo:
        raise SourceRejected(
            "non_field_errors",
            "give exactly one source: 'files' for an inline upload or 'repo_url' for git",
        )
    fields = _git_fields(submitter, request) if has_repo else _inline_fields(submitter, request)
    now = timezone.now()
    with transaction.atomic():
        submission = Submission.objects.create(
            submitter=submitter,
            deadline_at=now + timedelta(seconds=settings.SKILLGATE_PIPELINE_DEADLINE_S),
            state=State.RECEIVED,
            state_changed_at=now,
            **fields,
        )
        record_received(submission, trigger, Actor.system())
        dispatch_after_commit(submission.pk, State.RECEIVED)
    return submission


def _git_fields(submitter: User, request: SubmissionRequest) -> dict[str, object]:
    repo = parse_repo_url(request.repo_url)
    ref = check_ref(request.ref)
    skill_path = check_skill_path(request.skill_path)
    # The namespace rule as far as it can be told before the fetch (the verification file is
    # read at intake): a name held by another source or account is refused at once.
    _check_publisher(
        lambda: registry.check_publisher(
            repo.owner, "", namespaces.git(repo.host), submitter, proof=None
        ),
        "repo_url",
    )
    return {
        "source_kind": Submission.SourceKind.GIT,
        "skill_owner": repo.owner,
        "repo_url": repo.url,
        "repo_host": repo.host,
        "skill_path": skill_path,
        "ref": ref,
    }


def _inline_fields(submitter: User, request: SubmissionRequest) -> dict[str, object]:
    if request.skill_path or request.ref:
        raise SourceRejected(
            "non_field_errors", "'skill_path' and 'ref' only apply to a git 'repo_url'"
        )
    bundle = bundle_from_inline(request.files or {})
    manifest = skill_manifest(bundle, "files")
    owner = submitter.get_username().lower()
    _check_publisher(
        lambda: registry.check_publisher(owner, manifest.name, namespaces.ACCOUNT, submitter),
        "name",
    )
    return {
        "source_kind": Submission.SourceKind.INLINE,
        "skill_owner": owner,
        "skill_name": manifest.name,
        "bundle": registry.store_snapshot(bundle, manifest),
    }


def _check_publisher(check: Callable[[], None], field: str) -> None:
    """Run a registry publisher check, its refusal as a 400 on ``field``."""
    try:
        check()
    except registry.NameTaken as exc:
        raise SourceRejected(field, str(exc)) from exc


def skill_manifest(bundle: Bundle, field: str) -> SkillManifest:
    """The manifest of the bundle's SKILL.md, or SourceRejected on ``field`` saying what to fix."""
    skill_file = bundle.get(SKILL_FILE)
    if skill_file is None:
        raise SourceRejected(field, "SKILL.md is missing at the root of the skill")
    if skill_file.text is None:
        raise SourceRejected(field, "SKILL.md is not valid UTF-8 text")
    try:
        return parse_manifest(skill_file.text)
    except SkillFileError as exc:
        raise SourceRejected(field, exc.message) from exc
