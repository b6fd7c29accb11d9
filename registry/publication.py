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
from registry import namespaces, selectors
from registry.models import BundleSnapshot, Skill, SkillVersion, VersionEvent, VersionStatus


@dataclass(frozen=True)
class LockedSkill:
    """The skill row, locked until the caller's transaction ends, so concurrent publications of
    one skill are serialised; the bundle's row is locked too (shared), so a quarantine of these
    files (which locks it exclusively) either sees this publication or is seen by it."""

    skill: Skill
    created: bool
    """The skill did not exist: it has no versions yet."""
    submission_version_id: int | None
    """The version the publishing submission already created (publish ran before)."""
    new_version_id: int | None = None
    """The id a new version of this publication takes, drawn once the lock is held, so a skill's
    versions are numbered in the order their publications take the lock; unused when the
    publication reuses a version (ids have gaps anyway). None on the one-by-one path, where
    the database gives the id when the version is stored."""


@dataclass(frozen=True)
class Neighbours:
    """What a new version is compared with and numbered after, read once the locks are held."""

    same_bundle_id: int | None
    """A published version of this skill with exactly these files (the newest, if several)."""
    numbers: tuple[str, ...]
    """Every version number of the skill, any status: numbering continues after them."""
    quarantined_twin_id: int | None
    """A quarantined version, in any skill, of exactly these files."""
    may_publish: bool
    """The namespace rule (``registry.namespaces``) lets the submitter publish here now."""


def lock_skill(new: Skill, submission_id: uuid.UUID, bundle_sha256: str) -> LockedSkill:
    """The skill named like ``new`` (an unsaved row), created from ``new`` on first use, with
    what is known of the publication before the lock (see ``LockedSkill``)."""
    if not single_statements():
        return _lock_skill_one_by_one(new, submission_id, bundle_sha256)
    fields = concrete_field_names(Skill)
    names, expressions, values = insertion(new)
    owner, name = column(Skill, "owner"), column(Skill, "name")
    sql = (
        f"WITH bundle AS (SELECT 1 FROM {table(BundleSnapshot)} WHERE sha256 = %s FOR SHARE),"
        f" skill AS (INSERT INTO {table(Skill)} ({names}) VALUES ({expressions})"
        # A no-op update rather than DO NOTHING: it locks an existing row as SELECT … FOR
        # UPDATE would, and RETURNING then gives the row in both cases. xmax is 0 only on a
        # row this statement inserted.
        f" ON CONFLICT ({owner}, {name}) DO UPDATE SET {owner} = EXCLUDED.{owner}"
        f" RETURNING {', '.join(column(Skill, field) for field in fields)}, xmax = 0 AS created)"
        f" SELECT skill.*, (SELECT id FROM {table(SkillVersion)}"
        f" WHERE {column(SkillVersion, 'submission')} = %s),"
        # Drawn for the row the insert returned, so after the lock.
        f" {next_id(SkillVersion)} FROM skill WHERE (SELECT count(*) FROM bundle) >= 0"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            sql, [bundle_sha256, *values, prepared(SkillVersion, "submission", submission_id)]
        )
        row = cursor.fetchone()
    skill = instance(Skill, fields, row[: len(fields)])
    created, existing, new_id = row[len(fields) :]
    return LockedSkill(skill, created, existing, new_id)


# The same order as selectors.quarantined_with_bundle's.
_QUARANTINED_TWIN = (
    f"SELECT id FROM {table(SkillVersion)} WHERE {column(SkillVersion, 'bundle')} = %s"
    f" AND {column(SkillVersion, 'status')} = %s"
    f" ORDER BY {column(SkillVersion, 'skill')}, id DESC LIMIT 1"
)


def first_ids(
    owner: str, name: str, bundle: str, *, is_git: str, host: str, account: str
) -> dict[str, str]:
    """SQL expressions, over a row of the caller's (``owner``, ``name`` and ``bundle`` are its
    expressions of the skill's owner and name and the bundle's sha256; ``is_git``, ``host`` and
    ``account`` of where it comes from and who submitted it), drawing the ids of a new skill and
    of its first version when the publication can be the skill's first and nothing more: no
    skill has the name, no version of exactly these files is quarantined (that one takes the
    locking path, which quarantines it at once), and the namespace rule lets the account publish
    there (else the locking path says why not). NULL otherwise, and always on the one-by-one
    path.

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
        f" AND {namespaces.authorised_sql(owner, is_git, host, account)}"
    )
    return {
        "first_skill_id": f"CASE WHEN {first} THEN {next_id(Skill)} END",
        "first_version_id": f"CASE WHEN {first} THEN {next_id(SkillVersion)} END",
    }


def _lock_skill_one_by_one(new: Skill, submission_id: uuid.UUID, bundle_sha256: str) -> LockedSkill:
    # FOR NO KEY UPDATE: Django has no FOR SHARE; it conflicts with a quarantine's FOR UPDATE
    # all the same, and serialising two publications of one bundle costs nothing here.
    BundleSnapshot.objects.select_for_update(no_key=True).filter(sha256=bundle_sha256).exists()
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


def neighbours(
    locked: LockedSkill, bundle_sha256: str, source: namespaces.Source, account_id: int | None
) -> Neighbours:
    """Read once the skill and the bundle are locked (a statement after the lock's, so with a
    fresh snapshot): a version another publication just committed is seen, and so is a
    quarantine of these files committed while this publication waited for the lock."""
    if not single_statements():
        return _neighbours_one_by_one(locked, bundle_sha256, source, account_id)
    versions, skill, status, bundle = (
        table(SkillVersion),
        column(SkillVersion, "skill"),
        column(SkillVersion, "status"),
        column(SkillVersion, "bundle"),
    )
    may_publish, may_publish_params = namespaces.asked(locked.skill.owner, source, account_id)
    sql = (
        f"SELECT (SELECT id FROM {versions} WHERE {skill} = %s AND {bundle} = %s"
        f" AND {status} = %s ORDER BY id DESC LIMIT 1),"
        f" ARRAY(SELECT {column(SkillVersion, 'version')} FROM {versions} WHERE {skill} = %s),"
        f" ({_QUARANTINED_TWIN}), ({may_publish})"
    )
    skill_id = locked.skill.pk
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                skill_id,
                bundle_sha256,
                VersionStatus.PUBLISHED.value,
                skill_id,
                bundle_sha256,
                VersionStatus.QUARANTINED.value,
                *may_publish_params,
            ],
        )
        same_bundle_id, numbers, twin_id, allowed = cursor.fetchone()
    return Neighbours(same_bundle_id, tuple(numbers), twin_id, allowed)


def _neighbours_one_by_one(
    locked: LockedSkill, bundle_sha256: str, source: namespaces.Source, account_id: int | None
) -> Neighbours:
    versions = SkillVersion.objects.filter(skill=locked.skill)
    same = versions.available().filter(bundle_id=bundle_sha256).newest_first().first()
    twin = selectors.quarantined_with_bundle(bundle_sha256).values_list("pk", flat=True).first()
    return Neighbours(
        same.pk if same else None,
        tuple(versions.values_list("version", flat=True)),
        twin,
        namespaces.may_publish(locked.skill.owner, source, account_id),
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
