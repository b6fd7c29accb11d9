"""The threat taxonomy every grader shares: categories, the criteria that group them, and the
categories that count as prompt injection.

One module so that Tier 1's rules, the heuristic judge, the LLM judge's output schema and the
injection cap cannot drift apart: before, the LLM schema borrowed the criteria from the heuristic
judge and the two judges disagreed on which categories were injection.
"""

from __future__ import annotations

THREAT_CATEGORIES: frozenset[str] = frozenset(
    {
        "instruction_override",
        "concealment",
        "invisible_unicode",
        "obfuscation",
        "remote_fetch_execute",
        "suspicious_download",
        "credential_access",
        "env_harvesting",
        "exfiltration",
        "reverse_shell",
        "code_injection",
        "destructive_commands",
        "privilege_escalation",
        "persistence",
        "hardcoded_secrets",
        "tool_poisoning",
        "capability_inflation",
        "excessive_agency",
        "supply_chain",
        "cryptomining",
        "social_engineering",
        "output_tampering",
        "intent_mismatch",
    }
)
"""Categories of evidence that a skill may harm its user: what the judges weigh."""

HYGIENE_CATEGORIES: frozenset[str] = frozenset({"metadata", "capability", "file_integrity"})
"""Categories Tier 1 reports for the reviewer that are not evidence of harm on their own: format
problems of the manifest, what the code *can* do (fed to correlation), files not scanned."""

CATEGORIES: frozenset[str] = THREAT_CATEGORIES | HYGIENE_CATEGORIES
"""Every category a Tier 1 rule may carry."""

CRITERIA: dict[str, frozenset[str]] = {
    "instruction_integrity": frozenset(
        {
            "instruction_override",
            "tool_poisoning",
            "invisible_unicode",
            "capability_inflation",
            "social_engineering",
        }
    ),
    "transparency": frozenset(
        {"concealment", "obfuscation", "intent_mismatch", "metadata", "output_tampering"}
    ),
    "data_protection": frozenset(
        {"credential_access", "env_harvesting", "exfiltration", "hardcoded_secrets"}
    ),
    "execution_safety": frozenset(
        {
            "remote_fetch_execute",
            "suspicious_download",
            "code_injection",
            "reverse_shell",
            "cryptomining",
        }
    ),
    "system_safety": frozenset(
        {"destructive_commands", "privilege_escalation", "persistence", "excessive_agency"}
    ),
    "supply_chain": frozenset({"supply_chain", "file_integrity"}),
}
"""The per-criterion scores every judge returns, each over a group of categories."""

CRITERIA_NAMES: tuple[str, ...] = tuple(CRITERIA)

INJECTION_CATEGORIES: frozenset[str] = frozenset(
    {"instruction_override", "tool_poisoning", "invisible_unicode", "prompt_injection", "jailbreak"}
)
"""Evidence that the skill tries to steer the agent (or the judge) against its instructions.
``prompt_injection`` and ``jailbreak`` are the names an LLM judge reports; the others are Tier 1's.
Any judge caps its score below auto-approval on such evidence."""


def criterion_of(category: str) -> str | None:
    """The criterion a category belongs to, or None (capability notes belong to none)."""
    for name, categories in CRITERIA.items():
        if category in categories:
            return name
    return None


PRIVILEGES: dict[str, bool] = {
    "elevated_execution": True,
    "host_persistence": True,
    "agent_config": True,
    "credential_stores": True,
    "remote_code": True,
    "remote_access": True,
    "resource_abuse": True,
    "unattended_actions": True,
    "tool_hooks": True,
    "embedded_credentials": True,
    "package_install": False,
    "user_schedule": False,
    "trust_anchor": False,
}
"""Privileges a rule may grant a skill, and whether each sends an otherwise auto-approvable skill
to a reviewer. ``package_install`` (root for a package manager's install) is only noted: the
grading rule (docs/grading.md), in scripts as in prose, is that installing a system package is
not, by itself, high privilege — the reviewer still sees it listed. ``user_schedule`` (a job in
the user's own service manager that the description names, from units the skill ships and Tier 1
read) is only noted too: the job is what the skill is for (``tier1/schedules.py``). So is
``trust_anchor`` (root to add a certificate the user brings to the system trust store, in a
skill about certificates: ``tier1/trust.py``)."""


SIGNALS: dict[str, str] = {
    "injection": "steers the agent against its instructions or the user",
    "deceit": "hides what it does, or misstates it",
    "obfuscation": "hides text or code behind an encoding or assembly at run time",
    "secret_source": "reads secrets or sensitive user data",
    "sink": "sends data out of the user's machine or conversation",
    "execution": "runs code it fetched, decoded or assembled",
    "unvetted_origin": "takes code or instructions from a host that is neither the skill's own nor "
    "a known one",
    "risky_origin": "points at a throwaway, tunnel, paste or look-alike host",
    "remote_access": "opens the machine to a remote operator",
    "abuse": "spends the user's resources for someone else",
    "harm": "destroys data, escalates privilege or acts beyond what the user asked",
    "persistence": "makes a change outlive the session: start-up files, scheduled jobs, the "
    "agent's own configuration or memory",
    "supply": "changes where packages or tools come from",
    "embedded_secret": "carries a credential in the bundle",
    "tampering": "falsifies what the user or a reviewer sees: test results, logs, report figures",
    "unread": "says something sensitive in a language Skillgate does not read",
    "offensive": "attacks or probes systems: scans, fuzzing, password guessing, remote shells",
    "reach": "acts on production systems, many machines or many people at once",
}
"""Independent kinds of evidence. A block is a claim of malice and needs two of them (or one
finding whose rule says it has no benign reading): a secret source and a sink, concealment and a
harmful action, obfuscation and execution, a harmful change and its persistence, a falsified
result and the order not to mention it — the act and
what keeps it in force after the session are two facts, not one (``grading.evidence``)."""

CATEGORY_SIGNALS: dict[str, str] = {
    "instruction_override": "injection",
    "tool_poisoning": "injection",
    "invisible_unicode": "injection",
    "capability_inflation": "injection",
    "social_engineering": "deceit",
    "concealment": "deceit",
    "intent_mismatch": "deceit",
    "output_tampering": "deceit",
    "obfuscation": "obfuscation",
    "credential_access": "secret_source",
    "env_harvesting": "secret_source",
    "hardcoded_secrets": "embedded_secret",
    "exfiltration": "sink",
    "remote_fetch_execute": "execution",
    "suspicious_download": "execution",
    "code_injection": "execution",
    "reverse_shell": "remote_access",
    "cryptomining": "abuse",
    "destructive_commands": "harm",
    "privilege_escalation": "harm",
    "persistence": "persistence",
    "excessive_agency": "harm",
    "supply_chain": "supply",
}
"""The signal a finding of each threat category carries unless its rule names its own."""
