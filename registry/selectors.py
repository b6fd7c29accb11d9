"""Read-side queries of the public registry.

"Latest" means one thing everywhere: the newest *available* (published) version, from
``latest`` here or the same queryset in ``published_skills``. Yanked versions stay listed and
installable by number; quarantined ones are listed nowhere but answer by their exact number,
with their status and advisory.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import (
    Case,
    Exists,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.http import Http404
from django.shortcuts import get_object_or_404

from config.listing import search_words
from registry.models import Skill, SkillVersion, VersionEvent, VersionStatus

ADVISORY_ACTIONS = (VersionEvent.Action.QUARANTINE, VersionEvent.Action.RESTORE)


def latest(skill: Skill) -> SkillVersion | None:
    """The version a client gets when it names no version: never yanked, never quarantined."""
    return SkillVersion.objects.filter(skill=skill).available().newest_first().first()


def published_skills() -> QuerySet[Skill]:
    """Skills with at least one listed version, annotated with their latest version (None
    when every listed version is yanked)."""
    latest_version = SkillVersion.objects.filter(skill=OuterRef("pk")).available().newest_first()
    return Skill.objects.annotate(
        latest_version=Subquery(latest_version.values("version")[:1]),
        latest_published_at=Subquery(latest_version.values("published_at")[:1]),
    ).filter(Exists(SkillVersion.objects.filter(skill=OuterRef("pk")).listed()))


def search_versions(queryset: QuerySet[SkillVersion], term: str) -> QuerySet[SkillVersion]:
    """Versions matching every word of ``term``: a word that starts with a digit is a version
    number, matched exactly (an index on the number); any other word matches any part of the
    skill's owner or name, ignoring case. Each word's condition stays on one table, so the
    database narrows the skills (or the versions) before it joins them."""
    for word in search_words(term):
        if word[:1].isdigit():
            queryset = queryset.filter(version=word)
        else:
            queryset = queryset.filter(
                Q(skill__owner__icontains=word) | Q(skill__name__icontains=word)
            )
    return queryset


SEARCH_MAX_WORDS = 8
SEARCH_WORD_MAX_CHARS = 64


def search_skills(term: str) -> QuerySet[Skill]:
    """Published skills matching every word of ``term`` in their name, owner or description
    (any part, ignoring case; a trigram index on PostgreSQL), best first: the exact name, then
    names starting with the first word, then names holding it, then the rest, each by owner
    and name. Words past SEARCH_MAX_WORDS, and characters past SEARCH_WORD_MAX_CHARS in a word,
    are ignored."""
    words = [word[:SEARCH_WORD_MAX_CHARS] for word in search_words(term)][:SEARCH_MAX_WORDS]
    queryset = published_skills()
    for word in words:
        queryset = queryset.filter(
            Q(name__icontains=word) | Q(owner__icontains=word) | Q(description__icontains=word)
        )
    if not words:
        return queryset.order_by("owner", "name")
    first = words[0]
    rank = Case(
        When(name__iexact=first, then=Value(0)),
        When(name__istartswith=first, then=Value(1)),
        When(name__icontains=first, then=Value(2)),
        default=Value(3),
        output_field=IntegerField(),
    )
    return queryset.annotate(rank=rank).order_by("rank", "owner", "name")


def skill_by_name(owner: str, name: str) -> Skill:
    """A skill with a listed version; SkillQuarantined when every version is quarantined (the
    name exists, but nothing of it may be given out), 404 when there is no such skill."""
    skill = published_skills().filter(owner=owner.lower(), name=name).first()
    if skill is not None:
        return skill
    hidden = Skill.objects.filter(owner=owner.lower(), name=name).first()
    if hidden is not None and hidden.versions.exists():
        raise SkillQuarantined(hidden, advisories_of(hidden))
    raise Http404


class SkillQuarantined(Exception):
    """Every version of the skill is quarantined: ``advisories`` say why and what to do."""

    def __init__(self, skill: Skill, advisories: list[VersionEvent]) -> None:
        super().__init__(
            f"every version of {skill} is quarantined: none can be installed; see the advisories"
        )
        self.skill = skill
        self.advisories = advisories


def advisories_of(skill: Skill) -> list[VersionEvent]:
    """The quarantines in force on the skill's versions, newest first: for each quarantined
    version the quarantine that put it where it is."""
    latest: dict[int, VersionEvent] = {}
    for event in advisories().filter(
        version__skill=skill,
        version__status=VersionStatus.QUARANTINED,
        action=VersionEvent.Action.QUARANTINE,
    ):
        latest.setdefault(event.version_id, event)
    return list(latest.values())


def listed_versions(skill: Skill) -> QuerySet[SkillVersion]:
    return skill.versions.listed().newest_first()


def skill_version(owner: str, name: str, version: str) -> SkillVersion:
    """One version by its exact number, whatever its status."""
    return get_object_or_404(
        SkillVersion.objects.select_related("skill", "bundle"),
        skill__owner=owner.lower(),
        skill__name=name,
        version=version,
    )


def quarantined_with_bundle(bundle_sha256: str) -> QuerySet[SkillVersion]:
    """Versions of these exact files that are quarantined, in any skill."""
    return SkillVersion.objects.filter(
        bundle_id=bundle_sha256, status=VersionStatus.QUARANTINED
    ).select_related("skill")


# --- Advisories: every quarantine and restoration, newest first -------------------------------


def advisories() -> QuerySet[VersionEvent]:
    return (
        VersionEvent.objects.filter(action__in=ADVISORY_ACTIONS)
        .select_related("version__skill")
        .order_by("-created_at", "-id")
    )


def advisory_for(version: SkillVersion) -> VersionEvent | None:
    """The quarantine that put a quarantined version where it is (None otherwise)."""
    if version.status != VersionStatus.QUARANTINED:
        return None
    return advisories().filter(version=version, action=VersionEvent.Action.QUARANTINE).first()


@dataclass(frozen=True)
class Advice:
    """What a consumer should do about an advisory, as of now."""

    text: str
    replacement: SkillVersion | None


def advice(event: VersionEvent) -> Advice:
    """Remove a quarantined version and install the latest available one instead; nothing to
    do once it was restored. Computed when read, so it names today's safe version."""
    version = event.version
    ref = f"{version.skill}@{version.version}"
    if version.status != VersionStatus.QUARANTINED:
        if event.action == VersionEvent.Action.QUARANTINE:
            return Advice(f"This quarantine was lifted: {ref} was reviewed and restored.", None)
        return Advice(f"{ref} was reviewed and restored; no action is needed.", None)
    if event.action == VersionEvent.Action.RESTORE:
        return Advice(f"{ref} was quarantined again since; see the newer advisory.", None)
    replacement = latest(version.skill)
    if replacement is None:
        return Advice(
            f"Remove {ref} wherever it is installed. No other version of {version.skill} is "
            "available.",
            None,
        )
    return Advice(
        f"Remove {ref} wherever it is installed; install {version.skill}@{replacement.version} "
        "instead.",
        replacement,
    )
