"""Read-side queries of the public registry: only published skills and versions exist here."""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from registry.models import Skill, SkillVersion


def published_skills() -> QuerySet[Skill]:
    latest = SkillVersion.objects.filter(skill=OuterRef("pk")).order_by("-id")
    return Skill.objects.annotate(
        latest_version=Subquery(latest.values("version")[:1]),
        latest_published_at=Subquery(latest.values("published_at")[:1]),
    ).filter(latest_version__isnull=False)


def skill_by_name(owner: str, name: str) -> Skill:
    return get_object_or_404(published_skills(), owner=owner.lower(), name=name)


def skill_version(owner: str, name: str, version: str) -> SkillVersion:
    return get_object_or_404(
        SkillVersion.objects.select_related("skill", "bundle"),
        skill__owner=owner.lower(),
        skill__name=name,
        version=version,
    )
