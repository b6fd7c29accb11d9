"""Accounts and their roles. An author is an ordinary account, never staff; a role is a group
(Reviewers, Security, Operators, created by migrations) and makes its members staff, because
reviewers and operators work in the admin."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.db import transaction

from config.roles import REVIEWERS_GROUP, SECURITY_GROUP
from pipeline.roles import OPERATORS_GROUP

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


@transaction.atomic
def create_account(username: str, email: str = "", roles: tuple[str, ...] = ()) -> NewAccount:
    """A new account with a random password; staff only when it holds a role."""
    model = get_user_model()
    if model.objects.filter(username__iexact=username).exists():
        raise AccountRefused(f"an account named {username!r} exists already")
    groups = role_groups(roles)
    password = secrets.token_urlsafe(12)
    user = model.objects.create_user(username=username, email=email, password=password)
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
