"""The reads and writes of a publication, in the order ``services.publish_version`` makes them.

A publication is on the pipeline's hot path (once per published submission), so on PostgreSQL
each of the three parts below is at most one statement, and the last one none when the caller
stores the new version with a write of its own (the pipeline: with the submission's transition;
the lock draws the version's id for that); elsewhere the ORM makes them one by one. Both give
the same rows and the same answers (the tests run both). The rules — which version is latest,
how versions are numbered, what a quarantine means — stay in ``services``; this module only
fetches and stores.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import connection

from config.statements import (
    column,
    concrete_field_names,
    insertion,
    instance,
    next_id,
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
    quarantined_twin_id: int | None
    """A quarantined version, in any skill, of exactly the files being published."""
    new_version_id: int | None = None
    """The id a new version of this publication takes, drawn once the lock is held, so a skill's
    versions are numbered in the order their publications take the lock; unused when the
    publication reuses a version (ids have gaps anyway). None on the one-by-one path, where
    the database gives the id when the version is stored."""


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


def lock_skill(new: Skill, submission_id: uuid.UUID, bundle_sha256: str) -> LockedSkill:
    """The skill named like ``new`` (an unsaved row), created from ``new`` on first use, with
    what is known of the publication before the lock (see ``LockedSkill``)."""
    if not single_statements():
        return _lock_skill_one_by_one(new, submission_id, bundle_sha256)
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
        f" WHERE {column(SkillVersion, 'submission')} = %s), ({_QUARANTINED_TWIN}),"
        # Drawn for the row the insert returned, so after the lock.
        f" {next_id(SkillVersion)} FROM skill"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                *values,
                prepared(SkillVersion, "submission", submission_id),
                bundle_sha256,
                VersionStatus.QUARANTINED.value,
            ],
        )
        row = cursor.fetchone()
    return LockedSkill(instance(Skill, fields, row[: len(fields)]), *row[len(fields) :])


# The same order as selectors.quarantined_with_bundle's.
_QUARANTINED_TWIN = (
    f"SELECT id FROM {table(SkillVersion)} WHERE {column(SkillVersion, 'bundle')} = %s"
    f" AND {column(SkillVersion, 'status')} = %s"
    f" ORDER BY {column(SkillVersion, 'skill')}, id DESC LIMIT 1"
)


def first_ids(owner: str, name: str, bundle: str) -> dict[str, str]:
    """SQL expressions, over a row of the caller's (``owner``, ``name`` and ``bundle`` are its
    expressions of the skill's owner and name and the bundle's sha256), drawing the ids of a new
    skill and of its first version when the publication can be the skill's first and nothing
    more: no skill has the name, and no version of exactly these files is quarantined (that one
    takes the locking path, which quarantines it at once). NULL otherwise, and always on the
    one-by-one path.

    With them a first publication needs no lock: its skill, version and first event are
    inserted in one statement (``services.first_publication``), and a skill of that name
    created meanwhile makes the insert fail on the unique name, for the caller to take the
    locking path. A skill's first version is its first whatever its id, and every later one
    draws its id under the lock, after it."""
    if not single_statements():
        return {"first_skill_id": "NULL", "first_version_id": "NULL"}
    first = (
        f"NOT EXISTS (SELECT 1 FROM {table(Skill)} WHERE {column(Skill, 'owner')} = {owner}"
        f" AND {column(Skill, 'name')} = {name})"
        f" AND NOT EXISTS (SELECT 1 FROM {table(SkillVersion)}"
        f" WHERE {column(SkillVersion, 'bundle')} = {bundle}"
        f" AND {column(SkillVersion, 'status')} = '{VersionStatus.QUARANTINED.value}')"
    )
    return {
        "first_skill_id": f"CASE WHEN {first} THEN {next_id(Skill)} END",
        "first_version_id": f"CASE WHEN {first} THEN {next_id(SkillVersion)} END",
    }


def _lock_skill_one_by_one(new: Skill, submission_id: uuid.UUID, bundle_sha256: str) -> LockedSkill:
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
    twin = selectors.quarantined_with_bundle(bundle_sha256).values_list("pk", flat=True).first()
    return LockedSkill(skill, created, existing, twin)


def neighbours(locked: LockedSkill) -> Neighbours:
    """Read once the skill is locked, so a version another publication just committed is seen;
    a skill the lock created has no versions, and nothing is read."""
    if locked.created:
        return Neighbours(None, None, None, locked.quarantined_twin_id)
    if not single_statements():
        return _neighbours_one_by_one(locked)
    versions, skill, status = (
        table(SkillVersion),
        column(SkillVersion, "skill"),
        column(SkillVersion, "status"),
    )
    # The same orders as the querysets of the one-by-one path: selectors.latest (available,
    # newest first) and newest_first().
    sql = (
        "SELECT latest.id, latest.bundle, newest.number FROM (SELECT 1) AS one"
        f" LEFT JOIN LATERAL (SELECT id, {column(SkillVersion, 'bundle')} AS bundle"
        f" FROM {versions} WHERE {skill} = %s AND {status} = %s ORDER BY id DESC LIMIT 1)"
        " AS latest ON true"
        f" LEFT JOIN LATERAL (SELECT {column(SkillVersion, 'version')} AS number FROM {versions}"
        f" WHERE {skill} = %s ORDER BY id DESC LIMIT 1) AS newest ON true"
    )
    skill_id = locked.skill.pk
    with connection.cursor() as cursor:
        cursor.execute(sql, [skill_id, VersionStatus.PUBLISHED.value, skill_id])
        latest_id, latest_bundle, newest_number = cursor.fetchone()
    return Neighbours(latest_id, latest_bundle, newest_number, locked.quarantined_twin_id)


def _neighbours_one_by_one(locked: LockedSkill) -> Neighbours:
    latest = selectors.latest(locked.skill)
    newest = locked.skill.versions.newest_first().first()
    return Neighbours(
        latest.pk if latest else None,
        latest.bundle_id if latest else None,
        newest.version if newest else None,
        locked.quarantined_twin_id,
    )


def create_version(version: SkillVersion, first_event: VersionEvent) -> SkillVersion:
    """Store ``version`` (unsaved, its skill set) with ``first_event`` (unsaved) as its trail's
    first entry; returns the stored version. (A caller that stores them with a write of its own
    instead is given them by ``services.publish_version``.)"""
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
