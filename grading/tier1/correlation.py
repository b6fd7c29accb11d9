"""Skill-level inferences that no single line can support.

* Correlation: a capability plus a threat anywhere in the skill — reading credentials in one file
  and sending data out in another, downloading in one step and executing in the next — is raised
  as its own, more severe finding. The pairs live in the catalogue as engine rules whose
  ``requires`` lists the capabilities (declared by pattern rules) that must all be present.
* Intent: behaviour the manifest does not admit to — a "calculator" that opens network
  connections — is reported against the manifest.
"""

from __future__ import annotations

import re

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import file_kinds, is_markdown
from grading.tier1.findings import Collector
from grading.tier1.metadata import Manifest

_NETWORK_WORDS = re.compile(
    r"\b(?:api|apis|http|https|url|urls|web|website|online|internet|remote|server|cloud|download"
    r"|upload|fetch|sync|github|gitlab|deploy|publish|post|send|email|mail|slack|notion|linear"
    r"|search|service|services|endpoint|webhook|integrat\w*|browser|request|network|connect\w*"
    r"|stream\w*|scrap\w*|crawl\w*|install\w*|registry|oauth|token|account|chat|message\w*|feed"
    r"|weather|stock|price|news|translate|sms|telegram|discord|twitter|reddit|youtube|video"
    r"|cdn|host\w*|mcp|saas|platform|backup|vault|monitor\w*|notif\w*|telemetry|analytics)\b",
    re.IGNORECASE,
)


def correlate(catalogue: Catalogue, collector: Collector) -> None:
    for rule in catalogue.rules:
        if not rule.requires or not all(cap in collector.capabilities for cap in rule.requires):
            continue
        evidence = [collector.capabilities[cap][0] for cap in rule.requires]
        anchor = evidence[-1]
        trail = "; ".join(f"{f.file}:{f.line} {f.rule_id}" for f in evidence)
        collector.add(rule, anchor.file, anchor.line, anchor.column, anchor.snippet, f"({trail})")


def check_intent(manifest: Manifest, catalogue: Catalogue, collector: Collector) -> None:
    """Only scripts the skill ships count as behaviour — not examples in its Markdown, nor the
    pages of a bundled web UI talking to its own local server."""
    shipped = [f for f in collector.capabilities.get("network", []) if _is_script(f.file)]
    if not shipped or manifest.path is None:
        return
    network = shipped[0]
    declared = f"{manifest.name.replace('-', ' ')} {manifest.description}"
    if _NETWORK_WORDS.search(declared):
        return
    rule = catalogue.rule("intent.undeclared-network")
    note = f"(the manifest describes it as: {manifest.description[:100]!r})"
    collector.add(rule, network.file, network.line, network.column, network.snippet, note)


_SCRIPT_KINDS = {("python",), ("shell",), ("javascript",)}


def _is_script(path: str) -> bool:
    return not is_markdown(path) and file_kinds(path, "") in _SCRIPT_KINDS
