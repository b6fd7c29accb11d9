"""A cloud account handed to another: a role that a fixed account may assume, granted every
action — in any carrier (an IAM JSON document, Terraform, CloudFormation, a command line).

A skill cannot know the user's account number, so a literal twelve-digit account in a trust
policy's principal is someone else's: the skill's author's, or whoever they work for. Trust to
another account is ordinary (a vendor's cross-account role reads costs or audits settings);
granting that role ``"Action": "*"`` or ``AdministratorAccess`` gives the other party the whole
account. Placeholder accounts (``123456789012``, all one digit) are examples, not parties.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

_PRINCIPAL = re.compile(
    r"arn:aws:iam::(\d{12}):(?:root|user/|role/)"
    r"|[\"']?AWS[\"']?\s*[:=]\s*\[?\s*[\"'](\d{12})[\"']"
)
_ASSUME = re.compile(r"(?i)sts:AssumeRole")
_ADMIN = re.compile(
    r"(?i)\bAdministratorAccess\b|[\"']?Action[\"']?\s*[:=]\s*\[?\s*[\"']\*[\"']|\biam:\*"
)
_ADMIN_ARN = re.compile(r"(?i)arn:aws:iam::aws:policy/AdministratorAccess\b")
"""The managed policy as a command attaches it: in prose, the words are often a warning."""
_PLACEHOLDERS = frozenset({"123456789012", "210987654321", "012345678901", "123412341234"})


@dataclass(frozen=True)
class Grant:
    offset: int
    account: str


def foreign_admin(text: str, texts: Mapping[str, str]) -> Iterator[Grant]:
    """The principals of ``text`` that a trust policy lets assume a role, when the skill's files
    (``texts``) also grant every action: the account named gets the user's."""
    if not _ASSUME.search(text) or not any(_grants_all(p, t) for p, t in texts.items()):
        return
    for match in _PRINCIPAL.finditer(text):
        account = match.group(1) or match.group(2)
        if account in _PLACEHOLDERS or len(set(account)) == 1:
            continue
        yield Grant(match.start(), account)


def _grants_all(path: str, text: str) -> bool:
    """A policy file granting every action, or the administrator policy attached by its ARN
    (in instructions, where "never use ``"Action": "*"``" is advice, only the ARN counts)."""
    if path.lower().endswith((".md", ".markdown")):
        return _ADMIN_ARN.search(text) is not None
    return _ADMIN.search(text) is not None
