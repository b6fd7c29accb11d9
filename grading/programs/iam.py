"""AWS IAM policy documents a skill ships, read for what they grant and to whom.

A policy document is JSON with a ``Statement`` list (a file of its own, applied with
``file://…``). Two grants matter, each with honest uses on its own:

* *everything*: an ``Allow`` of every action (``"*"``) on every resource — an administrator's
  policy, which a bootstrap of a sandbox account may attach openly — or of ``iam:*``, with
  which the role grants itself the rest;
* *an account the skill names*: a trust statement letting a fixed AWS account (``"AWS":
  "arn:aws:iam::123456789012:root"`` or the bare id) assume the role — a vendor integration
  trusts its vendor's account so — or any account at all (``"AWS": "*"`` that no condition
  narrows: a condition whose every value is ``"*"`` admits everyone).

Together, in the policies one skill applies, they hand the user's account to the account the
skill names: whatever the role's name or the statement's ``Sid`` says ("ConfusedDeputyGuard"),
there is no benign reading (``correlation.cloud-account-handover``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_TEXT = 256 * 1024
EVERYTHING, OUTSIDE_TRUST = "everything", "outside-trust"
_ACCOUNT = re.compile(r"^(?:arn:aws[\w-]*:iam::(\d{12}):\S+|(\d{12}))$")


@dataclass(frozen=True)
class Grant:
    kind: str
    offset: int
    """Character offset of the statement's ``Sid`` or its ``Effect`` in the document."""
    detail: str


def grants(text: str) -> Iterator[Grant]:
    """The grants of every policy document in ``text`` (one JSON document)."""
    if len(text) > MAX_TEXT or '"Statement"' not in text:
        return
    try:
        document = json.loads(text)
    except ValueError:
        return
    statements = document.get("Statement") if isinstance(document, dict) else None
    if isinstance(statements, dict):
        statements = [statements]
    if not isinstance(statements, list):
        return
    searched = 0
    for statement in statements:
        if not isinstance(statement, dict) or statement.get("Effect") != "Allow":
            continue
        offset = _place(text, statement, searched)
        searched = offset + 1
        actions = _strings(statement.get("Action"))
        if "*" in _strings(statement.get("Resource")):
            if "*" in actions:
                yield Grant(EVERYTHING, offset, "Allow of every action on every resource")
            elif any(a.lower() == "iam:*" for a in actions):
                yield Grant(EVERYTHING, offset, "Allow of iam:* on every resource")
        if any(a.lower().startswith("sts:assumerole") or a == "*" for a in actions):
            for account in _accounts(statement.get("Principal")):
                yield Grant(OUTSIDE_TRUST, offset, f"lets AWS account {account} assume the role")
            if _anyone(statement):
                yield Grant(OUTSIDE_TRUST, offset, "lets any AWS account assume the role")


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _accounts(principal: object) -> Iterator[str]:
    if not isinstance(principal, dict):
        return
    for name in _strings(principal.get("AWS")):
        match = _ACCOUNT.match(name.strip())
        if match:
            yield match.group(1) or match.group(2)


def _anyone(statement: dict[str, object]) -> bool:
    """A principal of ``"*"`` that no condition narrows: every condition's values are ``"*"``
    (``"StringLike": {"aws:PrincipalArn": "*"}`` admits every caller, as no condition does)."""
    principal = statement.get("Principal")
    named = principal if isinstance(principal, str) else None
    if isinstance(principal, dict):
        named = "*" if "*" in _strings(principal.get("AWS")) else None
    if named != "*":
        return False
    condition = statement.get("Condition")
    if not isinstance(condition, dict):
        return True
    values = [
        value
        for test in condition.values()
        if isinstance(test, dict)
        for field in test.values()
        for value in (_strings(field) or [str(field)])
    ]
    return all(value.strip() == "*" for value in values)


def _place(text: str, statement: dict[str, object], start: int) -> int:
    """Where the statement stands: its ``Sid``, else its next ``"Effect"`` from ``start``."""
    sid = statement.get("Sid")
    if isinstance(sid, str):
        at = text.find(json.dumps(sid), start)
        if at >= 0:
            return at
    at = text.find('"Effect"', start)
    return max(at, 0)
