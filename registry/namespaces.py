"""The namespace rule: every owner name belongs to exactly one source, decided once.

A skill is addressed ``owner/name``. The ``owner`` is a namespace (``registry.models.Namespace``)
held by one source only:

- an **account** namespace is a registry account's username, lower-cased. It is claimed when the
  account is created (or, for accounts older than namespaces, when it first publishes), and
  only that account publishes inline skills in it;
- a **git** namespace is a repository owner on one host (``github.com/alice``). It is claimed
  once, by the first account that proves control of a repository of that owner — a
  verification file ``.skillgate/owner`` at the tip of the branch or tag it submits, naming the
  account — or given by an operator (the admin, or a trusted organisation's publisher links).
  Only that account, or a linked publisher of the trusted organisation (host, owner), publishes
  git skills in it.

So account ``alice`` and the git owner ``alice`` on any host never share ``alice/…``: whichever
claimed the name first holds it, and the other is refused with a message that says so. Owner
names are plain ASCII (letters, digits, ``.``, ``_``, ``-``), and a name that looks like a held
one — the same after folding case, ``0``→``o``, ``1``/``i``→``l``, ``rn``→``m``, ``vv``→``w``
and dropping ``.``, ``_`` and ``-`` — is refused: ``paypa1`` cannot sit beside ``paypal``.

``authorise`` is the check (and the claim) at submission and at intake, with the fetched proof;
``authorised_sql`` is the same rule as SQL, read where the version is stored — under the skill's
lock, or with a first publication's one statement — and by ``may_publish`` (who may yank).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction

from config.statements import table
from registry.models import Namespace, PublisherMembership, Skill, TrustedOrg

VERIFICATION_FILE = ".skillgate/owner"
"""At a repository's root, at the tip of the branch or tag submitted: the account names (one a
line, ``#`` comments) allowed to claim the repository owner's namespace."""

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
_FOLDS = (
    ("rn", "m"),
    ("vv", "w"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),
    ("_", ""),
    (".", ""),
    ("-", ""),
)


class NameTaken(Exception):
    """The skill name, or the owner's namespace, belongs to another publisher."""


def skeleton(name: str) -> str:
    """``name`` with look-alike characters folded: two names with one skeleton look the same."""
    folded = name.lower()
    for look_alike, plain in _FOLDS:
        folded = folded.replace(look_alike, plain)
    return folded


def check_name(name: str) -> str:
    """``name`` lower-cased, or NameTaken when it cannot be an owner name."""
    lowered = name.lower()
    if not _NAME.fullmatch(lowered) or not lowered.isascii():
        raise NameTaken(
            f"{name!r} cannot be an owner name: use plain ASCII letters, digits, '.', '_' and "
            "'-', starting with a letter or digit"
        )
    return lowered


@dataclass(frozen=True)
class Source:
    """Where a publication comes from: an account's own upload, or a git repository's owner."""

    origin: str
    host: str = ""

    @property
    def is_git(self) -> bool:
        return self.origin == Skill.Origin.GIT


ACCOUNT = Source(Skill.Origin.ACCOUNT)


def git(host: str) -> Source:
    return Source(Skill.Origin.GIT, host.lower())


def check_available(name: str, account_id: int | None = None) -> str:
    """For whatever makes or renames an account: ``name`` lower-cased if the account (new, or
    ``account_id``) may take it as its namespace; NameTaken saying why not (not a valid owner
    name, held by another, or looks like a held one)."""
    lowered = check_name(name)
    held = (
        Namespace.objects.filter(skeleton=skeleton(lowered))
        .exclude(kind=Namespace.Kind.ACCOUNT, account_id=account_id)
        .first()
        if account_id is not None
        else Namespace.objects.filter(skeleton=skeleton(lowered)).first()
    )
    if held is not None:
        same = held.name == lowered
        raise NameTaken(
            f"{describe(held)}" if same else f"{name!r} looks like the namespace {held.name!r}"
        )
    return lowered


def claim_for_account(account: AbstractBaseUser) -> Namespace | None:
    """Claim the account's username as its namespace when it is free and distinguishable (a new
    account); None otherwise — the account is refused, with the reason, when it publishes."""
    try:
        return _claim_account(account)
    except NameTaken:
        return None


def authorise(
    owner: str,
    source: Source,
    account: AbstractBaseUser,
    *,
    proof: tuple[str, ...] | None = None,
    proof_location: str = "",
) -> Namespace:
    """The namespace ``owner`` if ``account`` may publish in it from ``source``; else NameTaken
    saying why and what to do.

    A free namespace is claimed here: an account's own name by the account; a git owner's by an
    account named in ``proof`` (the verification file read at ``proof_location``) or linked to
    the trusted organisation. With ``proof`` None (no repository read yet) a free git
    namespace is left unclaimed and nothing is refused.
    """
    if not source.is_git:
        if owner != account.get_username().lower():
            raise NameTaken(f"an account publishes only under its own name, not {owner!r}")
        return _claim_account(account)
    owner = check_name(owner)
    held = Namespace.objects.filter(name=owner).first()
    if held is None:
        return _claim_git(owner, source.host, account, proof, proof_location)
    _check_git(held, source.host, owner, account)
    return held


def authorised_sql(owner: str, is_git: str, host: str, account: str) -> str:
    """The rule "may this account publish in this namespace from this source now" as one SQL
    condition over the caller's expressions, so a publication reads it with what it reads
    anyway (``registry.publication``); ``may_publish`` runs the same condition."""
    namespaces, memberships, orgs = (
        table(Namespace),
        table(PublisherMembership),
        table(TrustedOrg),
    )
    linked = (
        f"EXISTS (SELECT 1 FROM {memberships} m JOIN {orgs} o ON o.id = m.org_id"
        f" WHERE m.user_id = {account} AND lower(o.host) = lower({host})"
        " AND lower(o.name) = lower(ns.git_owner))"
    )
    return (
        f"EXISTS (SELECT 1 FROM {namespaces} ns WHERE ns.name = {owner} AND CASE WHEN {is_git}"
        f" THEN ns.kind = '{Namespace.Kind.GIT.value}' AND ns.host = {host}"
        f" AND (ns.account_id = {account} OR {linked})"
        f" ELSE ns.kind = '{Namespace.Kind.ACCOUNT.value}' AND ns.account_id = {account} END)"
    )


def asked(owner: str, source: Source, account_id: int | None) -> tuple[str, list[Any]]:
    """``authorised_sql`` over given values: a scalar subquery and its parameters."""
    condition = authorised_sql("asked.owner", "asked.is_git", "asked.host", "asked.account")
    return (
        f"SELECT {condition} FROM (SELECT CAST(%s AS TEXT) AS owner, %s AS is_git,"
        " CAST(%s AS TEXT) AS host, CAST(%s AS BIGINT) AS account) AS asked",
        [owner, source.is_git, source.host, account_id],
    )


def may_publish(owner: str, source: Source, account_id: int | None) -> bool:
    """Whether the account may publish in ``owner`` from ``source`` now (nothing is claimed)."""
    if account_id is None:
        return False
    sql, params = asked(owner, source, account_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return bool(cursor.fetchone()[0])


def refused(owner: str) -> NameTaken:
    """The refusal where a version is stored: the submitter no longer holds the namespace."""
    return NameTaken(
        f"the namespace {owner!r} no longer lets this account publish from this source; "
        "nothing was published"
    )


def assign(namespace: Namespace, operator: str) -> Namespace:
    """An operator's decision: ``namespace`` (new or changed, unsaved) stored as given, its
    name checked like any claim and the decision recorded as the operator's."""
    namespace.name = check_name(namespace.name)
    if namespace.kind == Namespace.Kind.GIT:
        namespace.host = namespace.host.lower()
        namespace.git_owner = namespace.git_owner or namespace.name
    else:
        namespace.host = namespace.git_owner = ""
    namespace.skeleton = skeleton(namespace.name)
    twin = Namespace.objects.filter(skeleton=namespace.skeleton).exclude(pk=namespace.pk).first()
    if twin is not None:
        raise NameTaken(f"{namespace.name!r} looks like the namespace {twin.name!r}")
    namespace.decided_by = f"the operator {operator}"
    namespace.save()
    return namespace


def describe(namespace: Namespace) -> str:
    if namespace.kind == Namespace.Kind.ACCOUNT:
        return f"the namespace {namespace.name!r} belongs to the registry account {namespace.name}"
    return (
        f"the namespace {namespace.name!r} belongs to the git owner {namespace.git_owner} on "
        f"{namespace.host}"
    )


def _claim_account(account: AbstractBaseUser) -> Namespace:
    name = check_name(account.get_username())
    held = Namespace.objects.filter(name=name).first()
    if held is not None:
        if held.kind == Namespace.Kind.ACCOUNT and held.account_id == account.pk:
            return held
        raise NameTaken(f"{describe(held)}: this account cannot publish under it")
    return _create(
        Namespace(
            name=name,
            kind=Namespace.Kind.ACCOUNT,
            account_id=account.pk,
            decided_by="the account's name",
        )
    )


def _claim_git(
    owner: str,
    host: str,
    account: AbstractBaseUser,
    proof: tuple[str, ...] | None,
    proof_location: str,
) -> Namespace:
    if _linked(host, owner, account.pk):
        return _create(
            Namespace(
                name=owner,
                kind=Namespace.Kind.GIT,
                host=host,
                git_owner=owner,
                decided_by="an operator: the trusted organisation's publisher links",
            )
        )
    if proof is None:
        return Namespace(name=owner, kind=Namespace.Kind.GIT, host=host, git_owner=owner)
    username = account.get_username()
    if username.lower() not in {name.lower() for name in proof}:
        raise NameTaken(
            f"the namespace {owner!r} is not claimed yet: to publish from {host}/{owner}, prove "
            f"you control the repository — commit a file {VERIFICATION_FILE} holding your "
            f"account name ({username}) at the tip of the branch or tag you submit — or ask an "
            "operator"
        )
    return _create(
        Namespace(
            name=owner,
            kind=Namespace.Kind.GIT,
            host=host,
            git_owner=owner,
            account_id=account.pk,
            decided_by=f"{VERIFICATION_FILE} naming {username} at {proof_location}",
        )
    )


def _check_git(held: Namespace, host: str, owner: str, account: AbstractBaseUser) -> None:
    if held.kind != Namespace.Kind.GIT or held.host != host:
        raise NameTaken(f"{describe(held)}: {host}/{owner} cannot publish under it")
    if held.account_id != account.pk and not _linked(host, owner, account.pk):
        raise NameTaken(
            f"{describe(held)}, whose skills another account publishes: ask an operator to "
            "give it to you if you control it"
        )


def _linked(host: str, owner: str, account_id: int | None) -> bool:
    return PublisherMembership.objects.filter(
        org__in=TrustedOrg.objects.filter(host__iexact=host, name__iexact=owner),
        user_id=account_id,
    ).exists()


def _create(namespace: Namespace) -> Namespace:
    """Store a claim; a look-alike of a held name, or a claim that lost a race, is refused."""
    namespace.skeleton = skeleton(namespace.name)
    twin = Namespace.objects.filter(skeleton=namespace.skeleton).first()
    if twin is not None and twin.name != namespace.name:
        raise NameTaken(
            f"{namespace.name!r} looks like the namespace {twin.name!r}, which is held already: "
            "choose a name that cannot be mistaken for it"
        )
    try:
        with transaction.atomic():
            namespace.save(force_insert=True)
    except IntegrityError:
        held = Namespace.objects.filter(name=namespace.name).first()
        if held is not None and (held.kind, held.account_id, held.host) == (
            namespace.kind,
            namespace.account_id,
            namespace.host,
        ):
            return held
        raise NameTaken(
            f"the namespace {namespace.name!r} (or one that looks like it) was claimed just now "
            "by another publisher"
        ) from None
    return namespace
