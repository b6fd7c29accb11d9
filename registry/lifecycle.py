"""The lifecycle of a published version: the one way its status changes, and who may change it.

A version's files never change; its status does::

    action      from                    to                              who                 reason
    publish     (none)                  published                       the pipeline        -
    yank        published               yanked                          the skill's owner   optional
    unyank      yanked                  published                       the skill's owner   optional
    quarantine  published, yanked       quarantined                     Security, system    required
    restore     quarantined             what it was before quarantine   Security            required

Every other change is refused. A *yanked* version is never chosen as "latest" but stays
installable by its exact number (as on PyPI); a *quarantined* one is hidden from listings and
its archive refused, and its quarantine is a public advisory. Restoring returns the version to
where it was before the quarantine (published, or yanked if its owner had yanked it), so a
quarantine never undoes an owner's yank. The system (a re-scan campaign) may quarantine; only
people of the Security group restore.

The owner of a skill owned by a registry account is that account. A skill from git is owned by
the holder of its namespace (``registry.namespaces``): the account that proved control of the
repository owner, or the trusted organisation's linked publishers — never merely the account
whose submission created a version.

``change_status`` is a compare-and-set on the status, with its VersionEvent written in the same
transaction: of concurrent attempts exactly one wins, the others get StatusConflict.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from config.roles import SECURITY_GROUP, is_security
from config.text import normalised
from registry import namespaces
from registry.models import BundleSnapshot, Skill, SkillVersion, VersionEvent, VersionStatus
from registry.publication import create_version

Action = VersionEvent.Action
REASON_MAX_LENGTH = 2000

SOURCES: dict[str, frozenset[VersionStatus]] = {
    Action.YANK: frozenset({VersionStatus.PUBLISHED}),
    Action.UNYANK: frozenset({VersionStatus.YANKED}),
    Action.QUARANTINE: frozenset({VersionStatus.PUBLISHED, VersionStatus.YANKED}),
    Action.RESTORE: frozenset({VersionStatus.QUARANTINED}),
}
REASON_REQUIRED = frozenset({Action.QUARANTINE, Action.RESTORE})
SECURITY_ACTIONS = frozenset({Action.QUARANTINE, Action.RESTORE})
OWNER_ACTIONS = frozenset({Action.YANK, Action.UNYANK})


class VersionStatusError(Exception):
    """Base for refused status changes; the API answers these with 409."""


class IllegalStatusChange(VersionStatusError):
    """The action does not apply to the version's current status."""


class StatusConflict(VersionStatusError):
    """The status changed between reading and writing it: someone else acted first."""

    def __init__(self, version: SkillVersion, expected: str, actual: str) -> None:
        super().__init__(
            f"{version} is {actual}, not {expected}: it was changed by someone else; "
            "reload and try again"
        )
        self.expected = expected
        self.actual = actual


class VersionActionForbidden(PermissionDenied):
    """This actor may not take this action on this version (the API answers 403)."""


@dataclass(frozen=True)
class Actor:
    """Who changes a status: an account (checked against the rules) or the system."""

    name: str
    type: str
    user: AbstractBaseUser | AnonymousUser | None = None

    @classmethod
    def account(cls, user: AbstractBaseUser | AnonymousUser) -> Actor:
        return cls(user.get_username(), VersionEvent.ActorType.ACCOUNT, user)

    @classmethod
    def system(cls, name: str = "system") -> Actor:
        """The registry itself, e.g. a re-scan campaign quarantining what now fails."""
        return cls(name, VersionEvent.ActorType.SYSTEM)

    @property
    def is_system(self) -> bool:
        return self.type == VersionEvent.ActorType.SYSTEM


# --- Who may do what -------------------------------------------------------------------------


def is_owner(version: SkillVersion, user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """The skill's owner account, or for a skill from git the holder of its namespace."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    skill = version.skill
    if skill.origin == Skill.Origin.ACCOUNT:
        return skill.owner_account_id == user.pk
    return namespaces.may_publish(skill.owner, namespaces.git(skill.host), user.pk)


def check_permitted(action: str, version: SkillVersion, actor: Actor) -> None:
    """Raise VersionActionForbidden unless ``actor`` may take ``action`` on ``version``."""
    if action == Action.QUARANTINE and (actor.is_system or is_security(actor.user)):
        return
    if action == Action.RESTORE and not actor.is_system and is_security(actor.user):
        return
    if action in OWNER_ACTIONS and not actor.is_system and is_owner(version, actor.user):
        return
    if action in SECURITY_ACTIONS:
        raise VersionActionForbidden(
            f"only members of the {SECURITY_GROUP} group can {action} a version"
        )
    raise VersionActionForbidden(
        f"only the owner of {version.skill} can {action} its versions (for a skill from git, "
        "the account that holds its namespace)"
    )


def allowed_actions(version: SkillVersion, actor: Actor) -> list[str]:
    """The actions ``actor`` may take on ``version`` in its current status (for buttons)."""
    allowed: list[str] = []
    for action in (Action.YANK, Action.UNYANK, Action.QUARANTINE, Action.RESTORE):
        if version.status not in SOURCES[action]:
            continue
        try:
            check_permitted(action, version, actor)
        except VersionActionForbidden:
            continue
        allowed.append(action)
    return allowed


# --- Changing the status ---------------------------------------------------------------------


def quarantine(version_id: int, actor: Actor, reason: str) -> VersionEvent:
    """Hide the version and refuse its archive (Security, or the system); publishes an
    advisory."""
    return change_status(version_id, Action.QUARANTINE, actor, reason)


def restore(version_id: int, actor: Actor, reason: str) -> VersionEvent:
    """Lift a quarantine after review (Security); publishes an advisory."""
    return change_status(version_id, Action.RESTORE, actor, reason)


def yank(version_id: int, actor: Actor, reason: str = "") -> VersionEvent:
    """The owner withdraws a version: never "latest" again, still installable by number."""
    return change_status(version_id, Action.YANK, actor, reason)


def unyank(version_id: int, actor: Actor, reason: str = "") -> VersionEvent:
    """The owner takes a yank back."""
    return change_status(version_id, Action.UNYANK, actor, reason)


def change_status(version_id: int, action: str, actor: Actor, reason: str = "") -> VersionEvent:
    """The one way a version's status changes; returns the audit event.

    Checks in the order a caller can fix them: who (VersionActionForbidden), the reason
    (ValidationError on ``reason``), then the status (IllegalStatusChange, or StatusConflict
    when another change won the race). Raises SkillVersion.DoesNotExist for an unknown id.
    Runs inside the caller's transaction when there is one.

    A quarantine or a restoration is a decision about the files: it covers every other version
    with the same bundle, in any skill (each with its own event citing this one). The bundle's
    row is locked for it, so a publication of the same files running meanwhile is either seen
    here or sees this (``registry.publication``).
    """
    with transaction.atomic():
        version = SkillVersion.objects.select_related("skill").get(pk=version_id)
        check_permitted(action, version, actor)
        reason = clean_reason(action, reason)
        covers_files = action in SECURITY_ACTIONS
        if covers_files:
            BundleSnapshot.objects.select_for_update().filter(sha256=version.bundle_id).exists()
        event = _change(version, action, actor, reason)
        if covers_files:
            _cover_twins(version, action, actor, reason)
        return event


def _change(version: SkillVersion, action: str, actor: Actor, reason: str) -> VersionEvent:
    source = VersionStatus(version.status)
    if source not in SOURCES[action]:
        raise IllegalStatusChange(_unavailable(version, action))
    target = _target(version, action)
    changed = SkillVersion.objects.filter(pk=version.pk, status=source).update(
        status=target, status_reason=reason, status_changed_at=timezone.now()
    )
    if changed == 0:
        actual = SkillVersion.objects.filter(pk=version.pk).values_list("status", flat=True)
        raise StatusConflict(version, source, actual.first() or "gone")
    return VersionEvent.objects.create(
        version=version,
        from_status=source,
        to_status=target,
        action=action,
        actor=actor.name,
        actor_type=actor.type,
        reason=reason,
    )


def _cover_twins(version: SkillVersion, action: str, actor: Actor, reason: str) -> None:
    """Quarantine (or restore) every other version of the same files, read after the lock."""
    done = "quarantined" if action == Action.QUARANTINE else "restored"
    why = f"its files are identical to {version}, which was {done}: {reason}"
    twins = (
        SkillVersion.objects.select_related("skill")
        .filter(bundle_id=version.bundle_id, status__in=SOURCES[action])
        .exclude(pk=version.pk)
        .order_by("id")
    )
    for twin in twins:
        _change(twin, action, actor, why[:REASON_MAX_LENGTH])


def born_quarantined(version: SkillVersion, first_event: VersionEvent, reason: str) -> SkillVersion:
    """Store a new version (unsaved, with its unsaved publication event) of files that are
    quarantined elsewhere: it is stored quarantined, its trail the publication and, at once, the
    system's quarantine. Called by the publication with the bundle's row locked."""
    version.status = VersionStatus.QUARANTINED
    version.status_reason = reason
    version.status_changed_at = timezone.now()
    stored = create_version(version, first_event)
    system = Actor.system()
    VersionEvent.objects.create(
        version=stored,
        from_status=VersionStatus.PUBLISHED,
        to_status=VersionStatus.QUARANTINED,
        action=Action.QUARANTINE,
        actor=system.name,
        actor_type=system.type,
        reason=reason,
    )
    return stored


def publication_event(actor: Actor) -> VersionEvent:
    """The first event of every version (none → published), stored with the version by
    ``registry.publication.create_version``."""
    return VersionEvent(
        from_status="",
        to_status=VersionStatus.PUBLISHED,
        action=Action.PUBLISH,
        actor=actor.name,
        actor_type=actor.type,
    )


def clean_reason(action: str, reason: str) -> str:
    """The reason as stored: trimmed, free of control characters (``config.text``: it is shown
    in advisories, feeds and the ``skillgate`` client), within its length."""
    try:
        reason = normalised((reason or "").strip())
    except ValidationError as invalid:
        raise ValidationError({"reason": invalid.messages}) from invalid
    if len(reason) > REASON_MAX_LENGTH:
        raise ValidationError({"reason": [f"at most {REASON_MAX_LENGTH} characters"]})
    if action in REASON_REQUIRED and not reason:
        raise ValidationError(
            {"reason": [f"a reason is required to {action} a version: say why, for the advisory"]}
        )
    return reason


def _target(version: SkillVersion, action: str) -> VersionStatus:
    if action == Action.YANK:
        return VersionStatus.YANKED
    if action == Action.QUARANTINE:
        return VersionStatus.QUARANTINED
    if action == Action.UNYANK:
        return VersionStatus.PUBLISHED
    quarantined = (
        version.events.filter(action=Action.QUARANTINE)
        .order_by("-created_at", "-id")
        .values_list("from_status", flat=True)
        .first()
    )
    return VersionStatus(quarantined or VersionStatus.PUBLISHED)


def _unavailable(version: SkillVersion, action: str) -> str:
    status = version.status
    if status == VersionStatus.QUARANTINED and action != Action.QUARANTINE:
        return f"{version} is quarantined: only the {SECURITY_GROUP} group can restore it"
    if action == Action.RESTORE:
        return f"{version} is {status}, not quarantined: there is nothing to restore"
    if action == Action.UNYANK:
        return f"{version} is {status}, not yanked: there is nothing to unyank"
    return f"{version} is already {status}"
