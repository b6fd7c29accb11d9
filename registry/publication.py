"""The reads and writes of a publication, in the order ``services.publish_version`` makes them.

A publication is on the pipeline's hot path (once per published submission), so on PostgreSQL
each of the three parts below is one statement; elsewhere the ORM makes them one by one. Both
give the same rows and the same answers (the tests run both). The rules — which version is
latest, how versions are numbered, what a quarantine means — stay in ``services``; this module
only fetches and stores.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db import connection

from config.statements import (
    column,
    concrete_field_names,
    insertion,
    instance,
    prepared,
    single_statements,
    table,
)
from registry import selectors
from registry.models import Skill, SkillVersion, VersionEvent, VersionStatus


@dataclass(frozen=True)
class LockedSkill:
    """The skill row, locked until the caller's transaction ends, so concurrent publications of
    one skill are serialised."""

    skill: Skill
    created: bool
    """The skill did not exist: it has no versions yet."""
    submission_version_id: int | None
    """The version the publishing submission already created (publish ran before)."""


@dataclass(frozen=True)
class Neighbours:
    """What a new version is compared with and numbered after."""

    latest_id: int | None
    """The latest *available* version (``selectors.latest``)."""
    latest_bundle: str | None
    newest_number: str | None
    """The newest version of any status: numbering continues after it."""
    quarantined_twin_id: int | None
    """A quarantined version, in any skill, of exactly these files."""


def lock_skill(new: Skill, submission_id: uuid.UUID) -> LockedSkill:
    """The skill named like ``new`` (an unsaved row), created from ``new`` on first use."""
    if not single_statements():
        return _lock_skill_one_by_one(new, submission_id)
    fields = concrete_field_names(Skill)
    names, expressions, values = insertion(new)
    owner, name = column(Skill, "owner"), column(Skill, "name")
    sql = (
        f"WITH skill AS (INSERT INTO {table(Skill)} ({names}) VALUES ({expressions})"
        # A no-op update rather than DO NOTHING: it locks an existing row as SELECT … FOR
        # UPDATE would, and RETURNING then gives the row in both cases. xmax is 0 only on a
        # row this statement inserted.
        f" ON CONFLICT ({owner}, {name}) DO UPDATE SET {owner} = EXCLUDED.{owner}"
        f" RETURNING {', '.join(column(Skill, field) for field in fields)}, xmax = 0 AS created)"
        f" SELECT skill.*, (SELECT id FROM {table(SkillVersion)}"
        f" WHERE {column(SkillVersion, 'submission')} = %s) FROM skill"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, prepared(SkillVersion, "submission", submission_id)])
        row = cursor.fetchone()
    return LockedSkill(instance(Skill, fields, row[: len(fields)]), *row[len(fields) :])


def _lock_skill_one_by_one(new: Skill, submission_id: uuid.UUID) -> LockedSkill:
    existing = (
        SkillVersion.objects.filter(submission_id=submission_id)
        .values_list("pk", flat=True)
        .first()
    )
    defaults = {
        field.attname: getattr(new, field.attname)
        for field in Skill._meta.concrete_fields
        if field.name not in ("id", "owner", "name")
    }
    skill, created = Skill.objects.select_for_update().get_or_create(
        owner=new.owner, name=new.name, defaults=defaults
    )
    return LockedSkill(skill, created, existing)


def neighbours(locked: LockedSkill, bundle_sha256: str) -> Neighbours:
    """Read once the skill is locked, so a version another publication just committed is seen."""
    if not single_statements():
        return _neighbours_one_by_one(locked, bundle_sha256)
    versions, skill, status = (
        table(SkillVersion),
        column(SkillVersion, "skill"),
        column(SkillVersion, "status"),
    )
    bundle = column(SkillVersion, "bundle")
    # The same orders as the querysets of the one-by-one path: selectors.latest (available,
    # newest first), newest_first(), and quarantined_with_bundle's default ordering.
    sql = (
        "SELECT latest.id, latest.bundle, newest.number, twin.id FROM (SELECT 1) AS one"
        f" LEFT JOIN LATERAL (SELECT id, {bundle} AS bundle FROM {versions}"
        f" WHERE {skill} = %s AND {status} = %s ORDER BY id DESC LIMIT 1) AS latest ON true"
        f" LEFT JOIN LATERAL (SELECT {column(SkillVersion, 'version')} AS number FROM {versions}"
        f" WHERE {skill} = %s ORDER BY id DESC LIMIT 1) AS newest ON true"
        f" LEFT JOIN LATERAL (SELECT id FROM {versions} WHERE {bundle} = %s AND {status} = %s"
        f" ORDER BY {skill}, id DESC LIMIT 1) AS twin ON true"
    )
    skill_id = locked.skill.pk
    params: list[Any] = [
        skill_id,
        VersionStatus.PUBLISHED.value,
        skill_id,
        bundle_sha256,
        VersionStatus.QUARANTINED.value,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return Neighbours(*cursor.fetchone())


def _neighbours_one_by_one(locked: LockedSkill, bundle_sha256: str) -> Neighbours:
    latest = None if locked.created else selectors.latest(locked.skill)
    newest = None if locked.created else locked.skill.versions.newest_first().first()
    twin = selectors.quarantined_with_bundle(bundle_sha256).values_list("pk", flat=True).first()
    return Neighbours(
        latest.pk if latest else None,
        latest.bundle_id if latest else None,
        newest.version if newest else None,
        twin,
    )


def create_version(version: SkillVersion, first_event: VersionEvent) -> SkillVersion:
    """Store ``version`` (unsaved, its skill set) with ``first_event`` (unsaved) as its trail's
    first entry; returns the stored version."""
    if not single_statements():
        version.save()
        first_event.version = version
        first_event.save()
        return version
    fields = concrete_field_names(SkillVersion)
    names, expressions, params = insertion(version)
    event_names, event_expressions, event_params = insertion(
        first_event, computed={"version": "version.id"}
    )
    sql = (
        f"WITH version AS (INSERT INTO {table(SkillVersion)} ({names}) VALUES ({expressions})"
        f" RETURNING {', '.join(column(SkillVersion, field) for field in fields)}),"
        f" event AS (INSERT INTO {table(VersionEvent)} ({event_names})"
        f" SELECT {event_expressions} FROM version)"
        " SELECT * FROM version"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *event_params])
        stored = instance(SkillVersion, fields, cursor.fetchone())
    stored.skill = version.skill
    return stored
