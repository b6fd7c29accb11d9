"""The capability inventory of a bundle: what it reads, sends, executes, persists, destroys and
changes — where, and in which file the agent obeys or runs.

Built from Tier 1's findings (the instruction graph, the programs and the intent lexicon report
through them), so every judge and every reviewer sees the same list. Each entry says whether
the skill's description accounts for it: a weather skill that sends to a weather API declares
its send; a "formatter" whose script reads ``~/.ssh`` and opens a connection does not, and that
gap — not the absence of an alarming word — is what the judge weighs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from grading.evidence import RuleFacts, evidence_policy
from grading.types import Finding

VERBS = ("reads", "sends", "executes", "persists", "destroys", "configures", "conceals", "steers")
"""What a skill does, as the inventory names it."""

_VERB_OF_CATEGORY = {
    "credential_access": "reads",
    "env_harvesting": "reads",
    "exfiltration": "sends",
    "remote_fetch_execute": "executes",
    "suspicious_download": "executes",
    "code_injection": "executes",
    "reverse_shell": "executes",
    "cryptomining": "executes",
    "obfuscation": "executes",
    "persistence": "persists",
    "privilege_escalation": "persists",
    "destructive_commands": "destroys",
    "supply_chain": "configures",
    "concealment": "conceals",
    "output_tampering": "conceals",
    "social_engineering": "conceals",
    "instruction_override": "steers",
    "tool_poisoning": "steers",
    "invisible_unicode": "steers",
    "capability_inflation": "steers",
    "excessive_agency": "steers",
}
_VERB_OF_CAPABILITY = {
    "network": "sends",
    "network_send": "sends",
    "credential_read": "reads",
    "env_read": "reads",
    "capture": "reads",
    "dynamic_exec": "executes",
    "subprocess": "executes",
}
DUAL_USE_CAPABILITIES = {
    "recon_scan": ("executes", "network or web reconnaissance (scanning, fuzzing)"),
    "credential_attack": ("executes", "password guessing, spraying or cracking"),
    "remote_shell": ("executes", "a remote shell on another machine"),
    "phishing": ("sends", "phishing emails or pages"),
    "memory_capture": ("reads", "process or physical memory capture"),
    "traffic_capture": ("reads", "network traffic capture"),
    "fleet_access": ("executes", "commands across many machines"),
    "production_access": ("executes", "a live session in production"),
    "bulk_destroy": ("destroys", "bulk, irreversible deletion"),
    "bulk_change": (
        "configures",
        "a remote service changed item by item (keys revoked, records deleted)",
    ),
    "mass_send": ("sends", "mail or messages to many people"),
    "secret_rotation": ("reads", "an organisation's CI secrets or cloud keys written or rotated"),
    "user_recording": ("reads", "recording what users do and type"),
    "session_reuse": ("reads", "the user's logged-in browser profile or cookies"),
    "account_removal": ("destroys", "people's accounts deleted, suspended or their data moved"),
    "history_rewrite": ("destroys", "repository history rewritten and force-pushed"),
    "org_wide_change": ("configures", "every repository, user or mailbox of an organisation"),
    "account_admin": ("configures", "other people's passwords or second factors reset"),
    "disk_imaging": ("reads", "a whole disk imaged, deleted files included"),
    "load_test": ("sends", "load or stress traffic at a host"),
    "mass_scraping": ("reads", "scraping past a site's limits or of people's data"),
    "device_wipe": ("destroys", "people's devices wiped, retired or locked remotely"),
    "traffic_cutoff": ("configures", "production traffic drained, shed or blocked"),
}
"""Capabilities of the dual-use rules (``rules/dualuse.yaml``): legitimate with authorisation
and consent, which a person must check — the verb they add to the inventory and their name in
words, which the inventory gives instead of the rule's category."""
_DECLARED_WORDS = {
    "sends": re.compile(
        r"\b(?:api|apis|https?|url|web|online|internet|remote|server|cloud|upload|send|post|sync"
        r"|publish|webhook|service|endpoint|integrat\w*|fetch\w*|download\w*|slack|email|mail"
        r"|github|notion|jira|database|telemetry|analytics|backup|share|search\w*)\b",
        re.IGNORECASE,
    ),
    "reads": re.compile(
        r"\b(?:credential\w*|secrets?|keys?|ssh|tokens?|passwords?|vault|keychain|auth\w*|login"
        r"|cookies?|browser|environment|env|config\w*|clipboard|screenshots?)\b",
        re.IGNORECASE,
    ),
    "executes": re.compile(
        r"\b(?:install\w*|run\w*|execut\w*|setup|bootstrap|script\w*|plugin\w*|cli|tool\w*)\b",
        re.IGNORECASE,
    ),
    "persists": re.compile(
        r"\b(?:cron\w*|schedul\w*|daemon|service|startup|hooks?|memory|persist\w*|nightly"
        r"|daily|background|sudo|root|admin\w*|permissions?)\b",
        re.IGNORECASE,
    ),
    "destroys": re.compile(
        r"\b(?:delete\w*|remov\w*|clean\w*|prun\w*|purge|reset|drop|migrat\w*|wipe)\b",
        re.IGNORECASE,
    ),
    "configures": re.compile(
        r"\b(?:install\w*|packages?|dependenc\w*|registry|mcp|plugins?|npm|pip|git|config\w*)\b",
        re.IGNORECASE,
    ),
}
_URL_HOST = re.compile(r"(?i)\b(?:https?|wss?|ftp)://([a-z0-9][a-z0-9.-]{0,252})")


@dataclass(frozen=True)
class Capability:
    verb: str
    """One of ``VERBS``."""
    what: str
    """What the finding says is done (its rule's category or capability, in words)."""
    where: str
    """A host the skill talks to, when the evidence names one."""
    file: str
    line: int
    obeyed: bool
    """In text the agent obeys or code that runs (not a quotation, an example, reference)."""
    declared: bool
    """The skill's name and description account for it."""
    rule_id: str

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Capability:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def inventory(
    findings: Iterable[Finding], rules: Mapping[str, RuleFacts], declared_text: str
) -> tuple[Capability, ...]:
    """One entry per (verb, rule, file) of the findings, in file order."""
    acted_on = evidence_policy().acted_on_spans
    entries: dict[tuple[str, str, str], Capability] = {}
    for finding in sorted(findings, key=lambda f: (f.file, f.line, f.rule_id)):
        verbs = _verbs(finding, rules.get(finding.rule_id))
        for verb in verbs:
            key = (verb, finding.rule_id, finding.file)
            if key in entries:
                continue
            host = _URL_HOST.search(finding.snippet)
            words = _DECLARED_WORDS.get(verb)
            entries[key] = Capability(
                verb=verb,
                what=_what(finding, rules.get(finding.rule_id)),
                where=host.group(1).lower() if host else "",
                file=finding.file,
                line=finding.line,
                obeyed=finding.span in acted_on,
                declared=bool(words and words.search(declared_text))
                or finding.span in ("declared", "first_party"),
                rule_id=finding.rule_id,
            )
    return tuple(entries.values())


def _what(finding: Finding, rule: RuleFacts | None) -> str:
    """The capability in words: a dual-use rule's own, else the finding's category."""
    for capability in getattr(rule, "capabilities", ()) or ():
        if capability in DUAL_USE_CAPABILITIES:
            return DUAL_USE_CAPABILITIES[capability][1]
    return finding.category.replace("_", " ")


def _verbs(finding: Finding, rule: RuleFacts | None) -> tuple[str, ...]:
    verbs: list[str] = []
    category_verb = _VERB_OF_CATEGORY.get(finding.category)
    if category_verb:
        verbs.append(category_verb)
    for capability in getattr(rule, "capabilities", ()) or ():
        verb = (
            _VERB_OF_CAPABILITY.get(capability)
            or DUAL_USE_CAPABILITIES.get(capability, ("", ""))[0]
        )
        if verb and verb not in verbs:
            verbs.append(verb)
    return tuple(verbs)


def undeclared(entries: Iterable[Capability]) -> tuple[Capability, ...]:
    """Entries in obeyed text or running code that the description does not account for."""
    return tuple(e for e in entries if e.obeyed and not e.declared)


def summary(entries: Iterable[Capability]) -> list[str]:
    """One line per entry, for a judge's prompt or a reviewer: ``sends → api.x.com
    (scripts/a.py:12, program.network-send; declared)``."""
    lines: list[str] = []
    for e in entries:
        where = f" → {e.where}" if e.where else ""
        status = "declared" if e.declared else "NOT declared"
        obeyed = "" if e.obeyed else ", in text nobody obeys"
        lines.append(
            f"{e.verb}{where}: {e.what} ({e.file}:{e.line}, {e.rule_id}; {status}{obeyed})"
        )
    return lines
