"""Published versions built through the real services, as the pipeline publishes them."""

from __future__ import annotations

from django.contrib.auth.models import Group

from config.roles import SECURITY_GROUP
from pipeline.services.publishing import publish
from pipeline.states import State
from pipeline.transitions import Actor
from registry.models import SkillVersion
from tests.support.skills import benign_files
from tests.unit.pipeline.factories import submission_in


def publish_files(
    author, files: dict[str, str] | None = None, *, name: str = "note-taker", repo_url: str = ""
) -> SkillVersion:
    """Publish ``files`` (a benign skill by default) as ``author`` through the pipeline's publish
    service: an approved submission becomes a version (or reuses one)."""
    submission = submission_in(
        State.AUTO_APPROVED,
        author,
        files=files or benign_files(name),
        name=name,
        repo_url=repo_url,
    )
    return publish(submission, SkillVersion.Channel.AUTOMATIC, Actor.system(), "publish-complete")


def publish_skill(author, name: str = "note-taker", **skill: str) -> SkillVersion:
    """A new version of the benign skill ``name``; vary ``body`` to get a new bundle."""
    return publish_files(author, benign_files(name, **skill), name=name)


def make_security(user):
    user.groups.add(Group.objects.get(name=SECURITY_GROUP))
    return user
