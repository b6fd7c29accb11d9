"""Skill-level inferences that no single line can support.

* Correlation: a capability plus a threat anywhere in the skill — reading credentials in one file
  and sending data out in another, downloading in one step and executing in the next — is raised
  as its own, more severe finding. The pairs live in the catalogue as engine rules whose
  ``requires`` lists the capabilities (declared by pattern rules) that must all be present.
* Pretext: a security setting weakened in what the agent obeys or runs (rules with the
  ``security_weakening`` capability) by a skill whose stated purpose is upkeep or protection — a
  hardener, an optimiser, a fixer — with no consent asked: the purpose contradicts the act.
* Intent: behaviour the manifest does not admit to — a "calculator" that opens network
  connections, a "PDF extractor" whose script edits shell start-up files or reads browser
  credential stores — is reported against the manifest. Only scripts the skill ships count.
"""

from __future__ import annotations

import re
from functools import lru_cache

from grading.bundle import applied, lexicon
from grading.bundle.language import identify
from grading.tier1.catalogue import Catalogue
from grading.tier1.files import file_kinds, is_markdown
from grading.tier1.findings import Collector
from grading.tier1.metadata import Manifest
from grading.tier1.spans import INSTRUCTION, SHIPPED_CODE

_NETWORK_WORDS = re.compile(
    r"\b(?:api|apis|http|https|url|urls|web|website|online|internet|remote|server|cloud|download"
    r"|upload|fetch|sync|github|gitlab|deploy|publish|post|send|email|mail|slack|notion|linear"
    r"|search|service|services|endpoint|webhook|integrat\w*|browser|request|network|connect\w*"
    r"|stream\w*|scrap\w*|crawl\w*|install\w*|registry|oauth|token|account|chat|message\w*|feed"
    r"|weather|stock|price|news|translate|sms|telegram|discord|twitter|reddit|youtube|video"
    r"|cdn|host\w*|mcp|saas|platform|backup|vault|monitor\w*|notif\w*|telemetry|analytics"
    r"|search\w*|databases?|pubmed|arxiv|biorxiv|crossref|doi|citations?|openrouter|openai"
    r"|anthropic|gemini|llm|remote|online|lookup|fetch\w*|retriev\w*)\b",
    re.IGNORECASE,
)


_PRIVILEGE_WORDS: dict[str, re.Pattern[str]] = {
    "host_persistence": re.compile(
        r"\b(?:cron\w*|schedul\w*|start-?up|boot|services?|daemons?|systemd|launchd|autostart"
        r"|login|shells?|bashrc|zshrc|profile|dotfiles?|tmux|hooks?|persist\w*|heartbeats?"
        r"|recurring|periodic|monitor\w*|background|memory|sessions?|nightly|daily|hourly"
        r"|weekly|every\s+(?:night|day|hour|week|morning)|jobs?|timers?|routine)\b",
        re.IGNORECASE,
    ),
    "agent_config": re.compile(
        r"\b(?:agents?(?:\.md)?|claude(?:\.md)?|cursor|codex|copilot|instructions?|rules|memory"
        r"|config\w*|settings|skills?|prompts?|onboarding|conventions)\b",
        re.IGNORECASE,
    ),
    "credential_stores": re.compile(
        r"\b(?:credential\w*|passwords?|keychain|keyring|secrets?|ssh|keys?|auth\w*|log-?in"
        r"|vault|browsers?|cookies?|tokens?|profiles?|identity|iam|aws|gcp|azure|cloud"
        r"|sessions?|transcripts?|conversations?)\b",
        re.IGNORECASE,
    ),
    "tool_hooks": re.compile(
        r"\b(?:git|hooks?|direnv|envrc|editor|vs\s?code|vscode|tasks?|npm|yarn|devcontainer"
        r"|mcp|settings|claude\s+code|cursor)\b",
        re.IGNORECASE,
    ),
    "elevated_execution": re.compile(
        r"\b(?:sudo|root|admin\w*|docker|containers?|kubernetes|k8s|privileg\w*|system\w*"
        r"|kernel|permissions?|devops|infrastructure|servers?|install\w*|packages?|iam|cloud"
        r"|aws|gcp|azure|deploy\w*)\b",
        re.IGNORECASE,
    ),
}
"""What a description must mention for a script's privileged behaviour to be declared."""


def correlate(catalogue: Catalogue, collector: Collector) -> None:
    capabilities = collector.capabilities(catalogue.by_id)
    for rule in catalogue.rules:
        if not rule.requires:
            continue
        evidence = []
        for alternatives in rule.requires:
            present = [capabilities[cap][0] for cap in alternatives if cap in capabilities]
            if not present:
                break
            evidence.append(present[0])
        else:
            anchor = evidence[-1]
            trail = "; ".join(f"{f.file}:{f.line} {f.rule_id}" for f in evidence)
            note = f"({trail})"
            collector.add(rule, anchor.file, anchor.line, anchor.column, anchor.snippet, note)


def stated_purpose(manifest: Manifest, texts: dict[str, str]) -> str:
    """What the skill says it is for: its manifest's name and description, or — a SKILL.md
    without front matter — its title and first paragraph."""
    if manifest.description.strip() or manifest.path is None:
        return manifest.declared_text
    lines = texts.get(manifest.path, "")[:2000].split("\n")
    title = lines[0] if lines[0].startswith("#") else ""
    lead: list[str] = []
    for line in lines[1:] if title else lines:
        if line.strip() and not line.lstrip().startswith("#"):
            lead.append(line)
        elif lead:
            break
    return " ".join([title, *lead])


def check_pretext(purpose: str, catalogue: Catalogue, collector: Collector) -> None:
    """A security setting weakened in text the agent obeys or code it runs, by a skill whose
    stated purpose is upkeep or protection, that names no control switched off and asks no
    consent (``applied.pretext``): the first weakening is reported again as
    ``intent.weaken-pretext`` — deceit as well as harm."""
    if not applied.pretext(purpose) or "switch_off" in lexicon.present(purpose.lower()):
        return  # no purpose of upkeep, or one that names the control it switches off
    rule = catalogue.rule("intent.weaken-pretext")
    for finding in list(collector.findings):
        weakens = "security_weakening" in catalogue.rule(finding.rule_id).capabilities
        if weakens and finding.span in (INSTRUCTION, SHIPPED_CODE):
            note = f"({finding.rule_id}; the skill says it is for: {purpose.strip()[:100]!r})"
            collector.add(
                rule, finding.file, finding.line, finding.column, finding.snippet, note,
                span=finding.span,
            )  # fmt: skip
            return


def check_intent(manifest: Manifest, catalogue: Catalogue, collector: Collector) -> None:
    """Only scripts the skill ships count as behaviour — not examples in its Markdown, nor the
    pages of a bundled web UI talking to its own local server."""
    if manifest.path is None:
        return
    declared = manifest.declared_text
    _check_privileges(declared, manifest, catalogue, collector)
    network_use = collector.capabilities(catalogue.by_id).get("network", [])
    shipped = [f for f in network_use if _is_script(f.file)]
    if not shipped:
        return
    network = shipped[0]
    if _declares("network", _NETWORK_WORDS, declared):
        return
    rule = catalogue.rule("intent.undeclared-network")
    note = f"(the manifest describes it as: {manifest.description[:100]!r})"
    collector.add(rule, network.file, network.line, network.column, network.snippet, note)


def _check_privileges(
    declared: str, manifest: Manifest, catalogue: Catalogue, collector: Collector
) -> None:
    """A shipped script doing something privileged the description gives no reason for."""
    rule = catalogue.rule("intent.undeclared-privilege")
    reported: set[str] = set()
    for finding in list(collector.findings):
        privilege = catalogue.rule(finding.rule_id).privilege
        words = _PRIVILEGE_WORDS.get(privilege or "")
        if (
            words is None
            or privilege in reported
            or finding.confidence == "low"
            or not _is_script(finding.file)
            or _declares(privilege or "", words, declared)
        ):
            continue
        reported.add(privilege)  # type: ignore[arg-type]
        note = (
            f"({privilege.replace('_', ' ')} via {finding.rule_id}; the manifest describes it as:"  # type: ignore[union-attr]
            f" {manifest.description[:100]!r})"
        )
        collector.add(rule, finding.file, finding.line, finding.column, finding.snippet, note)


def _declares(capability: str, english: re.Pattern[str], declared: str) -> bool:
    """Whether the description names what the scripts touch, in English (``english``) or in
    the other language Skillgate reads that it is written in (lexicon class
    ``declares_<capability>``, that language's terms only): an honest skill described in German
    or Japanese declares its cron job as plainly as one described in English, and an English
    description is not read for French or Spanish words."""
    if english.search(declared):
        return True
    spoken = _spoken(declared)
    return spoken != "en" and bool(
        lexicon.hits(f"declares_{capability}", declared.lower(), frozenset({spoken}))
    )


@lru_cache(maxsize=256)
def _spoken(declared: str) -> str:
    """The language a description is written in (``language.identify``)."""
    return identify(declared, short=False).code


_SCRIPT_KINDS = {("python",), ("shell",), ("javascript",)}


def _is_script(path: str) -> bool:
    return not is_markdown(path) and file_kinds(path, "") in _SCRIPT_KINDS
