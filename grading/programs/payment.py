"""A payee the input names, replaced by the program's own account: a payment swap, read in any
language without a parser.

A payout or invoice program reads where money goes from its input (a CSV row's ``iban``, an
invoice's ``beneficiary``). When the same program also carries an account of its own — a
quoted IBAN or crypto address, bound to a constant or a key (``ACCT = 'LT12 3250 …'``,
``'acct' => 'LT…'``, ``wallet: "0x…"``) — and writes it into that payee field (``row['iban'] =
ACCT``, ``merge('iban' => CLEARING['acct'])``, ``payee: OWN``), the money the user meant for
someone else goes to whoever wrote the skill, whatever the comment calls it ("clearing
account", "normalisation"). A program that only holds an account (an invoice template with the
issuer's own IBAN) and never reads a payee is not a swap; the example IBANs of standards and
bank documentation are nobody's account.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from grading.programs import sensitive

_FIELD = (
    r"(?:iban|payee\w*|beneficiar\w*|recipient\w*|creditor\w*|cdtr\w*|payout\w*|wallet\w*"
    r"|pay_?to|receiver\w*|to_?address|destination_?account|account_?number|bank_?account)"
)
_QUOTED = re.compile(r"([\"'])([A-Za-z0-9 ]{14,64})\1")
_BINDING = re.compile(
    r"(?:([A-Za-z_]\w{0,60})\s*(?:=|:=)\s*$"  # NAME = '…'
    r"|[\"':]?([A-Za-z_]\w{0,60})[\"']?\s*(?:=>|:|=)\s*$)"  # 'key' => '…', key: '…', "key": "…"
)
_READ = re.compile(rf"(?i)\[\s*[\"':]?{_FIELD}[\"']?\s*\](?!\s*=[^=])|\.{_FIELD}\b(?!\s*=[^=])")
_WRITE = re.compile(
    rf"(?i)(?:[\"':]?\b{_FIELD}[\"']?\s*(?:=>|:(?!:))|\[\s*[\"':]?{_FIELD}[\"']?\s*\]\s*=(?!=)"
    rf"|\.{_FIELD}\s*=(?!=)|\b{_FIELD}\s*=(?!=))\s*([^\n,;)}}]{{1,160}})"
)
_EXAMPLES = frozenset(
    {
        "DE89370400440532013000", "GB82WEST12345698765432", "GB29NWBK60161331926819",
        "FR1420041010050500013M02606", "NL91ABNA0417164300", "BE68539007547034",
        "CH9300762011623852957", "ES9121000418450200051332", "IT60X0542811101000000123456",
        "AT611904300234573201", "PL61109010140000071219812874", "LT121000011101001000",
    }
)  # fmt: skip
"""IBANs printed as examples in the standard and in banks' documentation."""


@dataclass(frozen=True)
class Swap:
    offset: int
    """Where the program writes its own account into the payee field."""
    detail: str


def _accounts(text: str) -> dict[str, str]:
    """The program's own accounts: name or key it is bound to → the account."""
    bound: dict[str, str] = {}
    for match in _QUOTED.finditer(text):
        value = match.group(2)
        compact = value.replace(" ", "").upper()
        if compact in _EXAMPLES or not sensitive.payment_destination(value):
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = _BINDING.search(text[max(line_start, match.start() - 120) : match.start()])
        if before is not None:
            bound[before.group(1) or before.group(2)] = compact
    return bound


def swaps(text: str) -> Iterator[Swap]:
    """Where ``text`` writes an account of its own into a payee field it also reads."""
    if _READ.search(text) is None:
        return
    accounts = _accounts(text)
    if not accounts:
        return
    names = re.compile(r"\b(?:" + "|".join(map(re.escape, accounts)) + r")\b")
    for match in _WRITE.finditer(text):
        value = match.group(1)
        used = names.search(value)
        if used is not None:
            account = accounts[used.group()]
            yield Swap(match.start(), f"payee set to the program's own account {account}")
