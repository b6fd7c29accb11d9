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
bank documentation are nobody's account, nor are placeholders (``GB00 XXXX 0000 …``).

The account may also sit in a settings file the skill ships and the program reads
(``billing.yaml``'s ``routing.iban``), chosen under a condition on the amount or the recipient
(``if total >= r["threshold"]: return r["iban"]``): the user's own account is left for the small
invoices and the large ones are paid to whoever wrote the skill (``configured``). Choosing by
currency between accounts the user fills in names no account of the skill's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
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


_PLACEHOLDER = re.compile(r"X{3}|^[A-Z]{2}\d{2}0+$|^[A-Z]{2}00")
"""An account left for the user to fill in: letters X, zeros where the number goes."""


_PIECES = re.compile(r"(?:[\"'][A-Za-z0-9 ]{0,34}[\"'][ \t,.+\[\]]{0,8}){3,}")
"""Short quoted constants written side by side (``implode(' ', ['LT60', '3250', …])``,
``'LT60' . '3250' . …``, ``["LT60", "3250"].join("")``): the pieces of one string the program
joins at run time, so that no account stands quoted whole."""
_JOINING = re.compile(r"(?:[\"'][^\"'\n]{0,3}[\"']\s*\.\s*)?[\w.:>$\\-]+\s*\(\s*\[?\s*$|\[\s*$")
"""The call that joins the pieces, between the name they are bound to and the first piece."""


def _constants(text: str) -> Iterator[tuple[int, str]]:
    """Each quoted constant of ``text`` by its offset, and each run of short pieces joined."""
    for match in _QUOTED.finditer(text):
        yield match.start(), match.group(2)
    for match in _PIECES.finditer(text):
        yield match.start(), "".join(re.findall(r"[\"']([A-Za-z0-9 ]*)[\"']", match.group()))


def _accounts(text: str) -> dict[str, str]:
    """The program's own accounts: name or key it is bound to → the account."""
    bound: dict[str, str] = {}
    for start, value in _constants(text):
        compact = value.replace(" ", "").upper()
        if compact in _EXAMPLES or not sensitive.payment_destination(value):
            continue
        if _PLACEHOLDER.search(compact):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        before = _JOINING.sub("", text[max(line_start, start - 120) : start], count=1)
        binding = _BINDING.search(before)
        if binding is not None:
            bound[binding.group(1) or binding.group(2)] = compact
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


_SETTINGS = (".yaml", ".yml", ".json", ".toml")
_CONDITION = re.compile(
    r"(?i)^[ \t]*(?:if|elif|elsif|else\s+if|when|unless)\b.{0,160}?"
    r"(?:\b(?:total|amount|sum|gross|net|value|price|subtotal|grand_?total)\w*\s*[<>]"
    r"|[<>]=?[^<>]{0,60}\b(?:threshold|limit|cap)\w*"
    r"|\b(?:client|customer|recipient|payer|buyer|country|domain)\w*\s*(?:==|!=|\bin\b))"
)
"""A branch on the amount or on who is billed."""
BRANCH_LINES = 2
"""Lines after a branch that belong to it, for this reading."""


def configured(program: str, texts: Mapping[str, str]) -> Iterator[Swap]:
    """Where ``program`` reads a payee, under a condition on the amount or the recipient, from a
    settings file of the skill (``texts``, named in the program) that holds an account of the
    skill's own."""
    if _READ.search(program) is None:
        return
    accounts = {
        account
        for path, text in texts.items()
        if path.lower().endswith(_SETTINGS) and path.rsplit("/", 1)[-1] in program
        for account in _accounts(text).values()
    }
    if not accounts:
        return
    lines = program.split("\n")
    offset = 0
    for number, line in enumerate(lines):
        condition = _CONDITION.search(line)
        after = lines[number + 1 : number + 1 + BRANCH_LINES]
        branch = [line[condition.end() :], *after] if condition else []
        if any(_READ.search(part) for part in branch):
            listed = ", ".join(sorted(accounts))
            yield Swap(offset, f"payee read, under a condition, from settings holding {listed}")
            return
        offset += len(line) + 1
