"""Accounts and their roles. An author is an ordinary account, never staff; a role is a group
(Reviewers, Security, Operators, created by migrations) and makes its members staff, because
reviewers and operators work in the admin.

Every account is named by ``check_new_username`` first, wherever it is made (here,
``manage.py createsuperuser``, the admin): names are unique ignoring case, and an account's
name is the namespace it publishes in, so it must be a valid owner name that no other source
holds and that looks like none held (``registry.namespaces``, SECURITY.md).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.db import IntegrityError, transaction

from config.roles import REVIEWERS_GROUP, SECURITY_GROUP
from pipeline.roles import OPERATORS_GROUP
from registry import namespaces

ROLE_GROUPS = (REVIEWERS_GROUP, SECURITY_GROUP, OPERATORS_GROUP)


class AccountRefused(Exception):
    """The account cannot be made or changed as asked; the message says why."""


@dataclass(frozen=True)
class NewAccount:
    user: User
    password: str
    """Generated; shown once to whoever made the account."""


def role_groups(names: list[str] | tuple[str, ...]) -> list[Group]:
    """The groups named (case-insensitively), or AccountRefused naming the roles there are."""
    found = []
    for name in names:
        matching = [role for role in ROLE_GROUPS if role.lower() == name.lower()]
        if not matching:
            raise AccountRefused(f"no role {name!r}; the roles are {', '.join(ROLE_GROUPS)}")
        found.append(Group.objects.get(name=matching[0]))
    return found


def check_new_username(username: str, account: User | None = None) -> str:
    """``username`` if a new account (or ``account``, renamed) may take it; AccountRefused
    saying why not: another account has it in any case, or it cannot be the account's
    namespace (not a valid owner name, another source holds it, or it looks like a held one)."""
    others = get_user_model().objects.filter(username__iexact=username)
    if account is not None:
        others = others.exclude(pk=account.pk)
    if others.exists():
        raise AccountRefused(
            f"an account named {username!r} exists already (account names are compared "
            "ignoring case)"
        )
    try:
        namespaces.check_available(username, account.pk if account is not None else None)
    except namespaces.NameTaken as taken:
        raise AccountRefused(
            f"{username!r} cannot name an account, because an account publishes under its own "
            f"name: {taken}"
        ) from taken
    return username


@transaction.atomic
def create_account(username: str, email: str = "", roles: tuple[str, ...] = ()) -> NewAccount:
    """A new account with a random password; staff only when it holds a role."""
    model = get_user_model()
    check_new_username(username)
    groups = role_groups(roles)
    password = secrets.token_urlsafe(12)
    try:
        with transaction.atomic():
            user = model.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as clash:
        raise AccountRefused(
            f"an account named {username!r} (ignoring case) was made just now; choose another"
        ) from clash
    if groups:
        add_roles(user, [group.name for group in groups])
    return NewAccount(user, password)


def account(username: str) -> User:
    user = get_user_model().objects.filter(username__iexact=username).first()
    if user is None:
        raise AccountRefused(f"no account named {username!r}")
    return user


@transaction.atomic
def add_roles(user: User, roles: list[str] | tuple[str, ...]) -> None:
    user.groups.add(*role_groups(roles))
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])


@transaction.atomic
def remove_roles(user: User, roles: list[str] | tuple[str, ...]) -> None:
    """Leave the roles; an account left with none stops being staff (superusers stay)."""
    user.groups.remove(*role_groups(roles))
    holds_a_role = user.groups.filter(name__in=ROLE_GROUPS).exists()
    if user.is_staff and not user.is_superuser and not holds_a_role:
        user.is_staff = False
        user.save(update_fields=["is_staff"])
