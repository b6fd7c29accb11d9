"""Submissions in a given state, built through the real services where it matters."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from django.utils import timezone

from pipeline.models import Submission
from pipeline.states import State
from pipeline.transitions import Actor, record_received
from registry.bundles import Bundle
from registry.models import Namespace
from registry.namespaces import skeleton
from registry.services import store_snapshot
from skillformat.skillmd import parse_manifest
from tests.support.bundles import text_of
from tests.support.skills import benign_files


def submission_in(
    state: State,
    submitter,
    *,
    files: dict[str, str] | None = None,
    name: str = "note-taker",
    repo_url: str = "",
) -> Submission:
    """A submission row placed directly in ``state`` (with its RECEIVED event), for tests of
    what happens *from* that state."""
    now = timezone.now()
    bundle = Bundle.from_texts(files or benign_files(name))
    host = urlsplit(repo_url).hostname or "" if repo_url else ""
    if repo_url:
        held_by(submitter, "someorg", host)
    submission = Submission.objects.create(
        skill_owner=submitter.username.lower() if not repo_url else "someorg",
        skill_name=name,
        source_kind=Submission.SourceKind.GIT if repo_url else Submission.SourceKind.INLINE,
        repo_url=repo_url,
        repo_host=host,
        submitter=submitter,
        bundle=store_snapshot(bundle, parse_manifest(text_of(bundle, "SKILL.md"))),
        deadline_at=now + timedelta(minutes=30),
        state=state,
        state_changed_at=now,
    )
    record_received(submission, "test", Actor.system())
    return submission


def held_by(account, owner: str, host: str) -> Namespace:
    """The git owner's namespace, claimed by ``account`` unless somebody holds it already (as
    the first verified submission from that owner does)."""
    namespace, _ = Namespace.objects.get_or_create(
        name=owner,
        defaults={
            "skeleton": skeleton(owner),
            "kind": Namespace.Kind.GIT,
            "host": host,
            "git_owner": owner,
            "account": account,
            "decided_by": "the tests",
        },
    )
    return namespace
