"""The version status machine: which changes exist, who may make them, what each records, and
that of concurrent attempts exactly one wins."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from registry import lifecycle
from registry.lifecycle import (
    Action,
    Actor,
    IllegalStatusChange,
    StatusConflict,
    VersionActionForbidden,
    VersionStatusError,
)
from registry.models import SkillVersion, VersionEvent, VersionStatus
from registry.namespaces import NameTaken
from tests.support.concurrency import at_once
from tests.support.versions import make_security, publish_files, publish_skill

pytestmark = pytest.mark.django_db

PUBLISHED, YANKED, QUARANTINED = (
    VersionStatus.PUBLISHED,
    VersionStatus.YANKED,
    VersionStatus.QUARANTINED,
)


def put_in(version: SkillVersion, status: str, security) -> SkillVersion:
    """Bring a freshly published version to ``status`` through the lifecycle itself."""
    owner = owner_of(version)
    if status == YANKED:
        lifecycle.yank(version.pk, owner)
    elif status == QUARANTINED:
        lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    version.refresh_from_db()
    return version


# --- The machine: every action from every status ------------------------------------------

ALLOWED = {
    (Action.YANK, PUBLISHED): YANKED,
    (Action.UNYANK, YANKED): PUBLISHED,
    (Action.QUARANTINE, PUBLISHED): QUARANTINED,
    (Action.QUARANTINE, YANKED): QUARANTINED,
    (Action.RESTORE, QUARANTINED): PUBLISHED,
}
EVERY_CHANGE = [
    (action, status)
    for action in (Action.YANK, Action.UNYANK, Action.QUARANTINE, Action.RESTORE)
    for status in (PUBLISHED, YANKED, QUARANTINED)
]


def actor_for(action: str, version: SkillVersion, security) -> Actor:
    if action in lifecycle.SECURITY_ACTIONS:
        return Actor.account(security)
    return owner_of(version)


def owner_of(version: SkillVersion) -> Actor:
    """The account that published ``version`` (every version here is published from one)."""
    account = version.skill.owner_account
    assert account is not None
    return Actor.account(account)


@pytest.mark.parametrize(("action", "status"), EVERY_CHANGE)
def test_every_change_the_machine_allows_and_refuses(action, status, version, security):
    version = put_in(version, status, security)
    events_before = version.events.count()

    def change() -> VersionEvent:
        actor = actor_for(action, version, security)
        return lifecycle.change_status(version.pk, action, actor, "a reason")

    if (action, status) in ALLOWED:
        event = change()
        version.refresh_from_db()
        assert version.status == ALLOWED[(action, status)]
        assert (event.from_status, event.to_status, event.action) == (
            status,
            ALLOWED[(action, status)],
            action,
        )
    else:
        with pytest.raises(IllegalStatusChange):
            change()
        version.refresh_from_db()
        assert version.status == status
        assert version.events.count() == events_before


def test_refusals_say_what_is_wrong(version, security, author):
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    with pytest.raises(IllegalStatusChange, match="quarantined: only the Security group"):
        lifecycle.yank(version.pk, Actor.account(author))
    with pytest.raises(IllegalStatusChange, match="already quarantined"):
        lifecycle.quarantine(version.pk, Actor.account(security), "again")
    lifecycle.restore(version.pk, Actor.account(security), "false positive")
    with pytest.raises(IllegalStatusChange, match="not quarantined: there is nothing to restore"):
        lifecycle.restore(version.pk, Actor.account(security), "again")
    with pytest.raises(IllegalStatusChange, match="not yanked"):
        lifecycle.unyank(version.pk, Actor.account(author))


def test_restoring_returns_a_version_to_where_it_was_before_the_quarantine(
    version, security, author
):
    lifecycle.yank(version.pk, Actor.account(author), "superseded")
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    event = lifecycle.restore(version.pk, Actor.account(security), "false positive")

    version.refresh_from_db()
    assert version.status == YANKED, "a quarantine never undoes the owner's yank"
    assert (event.from_status, event.to_status, event.action) == (QUARANTINED, YANKED, "restore")


# --- Who may --------------------------------------------------------------------------------


def test_only_security_or_the_system_quarantines(version, author, stranger, security):
    for somebody in (author, stranger):
        with pytest.raises(VersionActionForbidden, match="only members of the Security group"):
            lifecycle.quarantine(version.pk, Actor.account(somebody), "looks bad")
    event = lifecycle.quarantine(version.pk, Actor.system("rescan 7"), "now fails Tier 1")
    assert (event.actor, event.actor_type) == ("rescan 7", "system")


def test_only_security_restores_not_even_the_system(version, author, security):
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    for actor in (Actor.account(author), Actor.system()):
        with pytest.raises(VersionActionForbidden):
            lifecycle.restore(version.pk, actor, "fine")
    lifecycle.restore(version.pk, Actor.account(security), "reviewed: false positive")


def test_a_superuser_holds_the_security_role(version, make_user):
    admin = make_user("root", staff=True, is_superuser=True)
    lifecycle.quarantine(version.pk, Actor.account(admin), "incident 12")


def test_only_the_owner_yanks_and_unyanks(version, author, stranger, security):
    for somebody in (Actor.account(stranger), Actor.account(security), Actor.system()):
        with pytest.raises(VersionActionForbidden, match="only the owner of arthur/note-taker"):
            lifecycle.yank(version.pk, somebody)
    lifecycle.yank(version.pk, Actor.account(author))
    with pytest.raises(VersionActionForbidden):
        lifecycle.unyank(version.pk, Actor.account(stranger))
    lifecycle.unyank(version.pk, Actor.account(author))


def test_an_inactive_owner_may_not_yank(version, author):
    author.is_active = False
    author.save()
    with pytest.raises(VersionActionForbidden):
        lifecycle.yank(version.pk, Actor.account(author))


def test_a_git_skills_versions_are_yanked_by_the_holder_of_its_namespace(make_user):
    """Not by whoever submitted a version: the account that holds the repository owner's
    namespace (issue 21: a pull request's author could yank the owner's versions)."""
    holder, other = make_user("gita"), make_user("gino")
    repo = "https://github.com/someorg/skills"
    v1 = publish_files(holder, name="git-skill", repo_url=repo)
    with pytest.raises(NameTaken):
        publish_files(
            other,
            {"SKILL.md": "---\nname: git-skill\ndescription: Two.\n---\nTwo."},
            name="git-skill",
            repo_url=repo,
        )
    assert v1.skill.owner_account_id is None

    with pytest.raises(VersionActionForbidden, match="the account that holds its namespace"):
        lifecycle.yank(v1.pk, Actor.account(other))
    lifecycle.yank(v1.pk, Actor.account(holder))


def test_allowed_actions_are_what_the_buttons_offer(version, author, stranger, security):
    assert lifecycle.allowed_actions(version, Actor.account(author)) == ["yank"]
    assert lifecycle.allowed_actions(version, Actor.account(security)) == ["quarantine"]
    assert lifecycle.allowed_actions(version, Actor.account(stranger)) == []
    put_in(version, QUARANTINED, security)
    assert lifecycle.allowed_actions(version, Actor.account(security)) == ["restore"]
    assert lifecycle.allowed_actions(version, Actor.account(author)) == []


# --- Reasons and the audit trail -------------------------------------------------------------


@pytest.mark.parametrize("reason", ["", "   "])
def test_quarantine_and_restore_need_a_reason(version, security, reason):
    with pytest.raises(ValidationError) as refused:
        lifecycle.quarantine(version.pk, Actor.account(security), reason)
    assert "a reason is required to quarantine" in refused.value.message_dict["reason"][0]
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    with pytest.raises(ValidationError):
        lifecycle.restore(version.pk, Actor.account(security), reason)
    version.refresh_from_db()
    assert version.status == QUARANTINED


def test_who_is_checked_before_the_reason_and_the_reason_before_the_status(
    version, stranger, security
):
    with pytest.raises(VersionActionForbidden):
        lifecycle.restore(version.pk, Actor.account(stranger), "")
    with pytest.raises(ValidationError):
        lifecycle.restore(version.pk, Actor.account(security), "")
    with pytest.raises(IllegalStatusChange):
        lifecycle.restore(version.pk, Actor.account(security), "fine")


def test_a_reason_is_optional_to_yank_and_capped_in_length(version, author):
    lifecycle.yank(version.pk, Actor.account(author))
    with pytest.raises(ValidationError, match="at most 2000 characters"):
        lifecycle.unyank(version.pk, Actor.account(author), "x" * 2001)


def test_every_change_is_audited_in_order_with_actor_and_reason(version, author, security):
    lifecycle.yank(version.pk, Actor.account(author), "  superseded by 1.1  ")
    lifecycle.quarantine(version.pk, Actor.system("rescan 3"), "now fails Tier 1")
    lifecycle.restore(version.pk, Actor.account(security), "false positive")
    lifecycle.unyank(version.pk, Actor.account(author))

    trail = [
        (e.action, e.from_status, e.to_status, e.actor, e.actor_type, e.reason)
        for e in version.events.all()
    ]
    assert trail == [
        ("publish", "", "published", "pipeline", "system", ""),
        ("yank", "published", "yanked", "arthur", "account", "superseded by 1.1"),
        ("quarantine", "yanked", "quarantined", "rescan 3", "system", "now fails Tier 1"),
        ("restore", "quarantined", "yanked", "sven", "account", "false positive"),
        ("unyank", "yanked", "published", "arthur", "account", ""),
    ]
    version.refresh_from_db()
    assert (version.status, version.status_reason) == (PUBLISHED, "")


def test_the_version_row_carries_the_latest_reason(version, security):
    lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    version.refresh_from_db()
    assert version.status_reason == "steals tokens"
    assert version.status_changed_at is not None


def test_events_are_append_only_in_python_and_in_the_database(version):
    event = version.events.get()
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        event.delete()
    with pytest.raises(TypeError):
        VersionEvent.objects.filter(pk=event.pk).update(reason="rewritten")
    with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
        cursor.execute("UPDATE registry_versionevent SET reason = 'x' WHERE id = %s", [event.pk])


def test_an_unknown_version_does_not_exist(security):
    with pytest.raises(SkillVersion.DoesNotExist):
        lifecycle.quarantine(999_999, Actor.account(security), "x")


# --- Concurrency ----------------------------------------------------------------------------


def test_a_change_that_loses_the_race_after_reading_is_a_conflict(version, security, monkeypatch):
    """Between reading the status and writing it, someone else quarantines: compare-and-set
    finds the status changed and refuses, writing nothing."""
    target = lifecycle._target

    def someone_else_acts_first(found, action):
        SkillVersion.objects.filter(pk=found.pk).update(status=QUARANTINED)
        return target(found, action)

    monkeypatch.setattr(lifecycle, "_target", someone_else_acts_first)
    with pytest.raises(StatusConflict, match="is quarantined, not published"):
        lifecycle.quarantine(version.pk, Actor.account(security), "steals tokens")
    assert not version.events.filter(action="quarantine").exists()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_of_many_quarantines_at_once_exactly_one_wins(make_user):
    assert connection.vendor == "postgresql", "this concurrency test needs PostgreSQL"
    version = publish_skill(make_user("arthur"))
    people = [make_security(make_user(f"sec{n}", staff=True)) for n in range(8)]
    results = at_once(
        len(people),
        lambda index: lifecycle.quarantine(
            version.pk, Actor.account(people[index]), f"report {index}"
        ),
    )

    winners = [r for r in results if isinstance(r, VersionEvent)]
    losers = [r for r in results if isinstance(r, VersionStatusError)]
    assert len(winners) == 1 and len(losers) == len(people) - 1, results
    assert version.events.filter(action="quarantine").count() == 1
    version.refresh_from_db()
    assert (version.status, version.status_reason) == (QUARANTINED, winners[0].reason)
