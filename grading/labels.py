"""Words for people in place of the graders' identifiers.

Rules, findings, judges and the review queue carry identifiers such as ``credential_access``;
reviewers and authors read "Credential access". The words are derived from the identifier, so
a category added to the rules is readable at once; the few identifiers whose words read poorly
on their own are spelled out below. Every page that shows a category, a privilege or a
criterion asks this module.
"""

from __future__ import annotations

_SPELLED_OUT: dict[str, str] = {
    "env_harvesting": "Environment harvesting",
    "remote_fetch_execute": "Remote fetch and execute",
    "hardcoded_secrets": "Hard-coded secrets",
    "invisible_unicode": "Invisible Unicode",
    "file_integrity": "Files not scanned",
    "agent_config": "Agent configuration",
    "remote_code": "Running downloaded code",
}


def category_label(category: str) -> str:
    """A finding category as words: ``capability_inflation`` → "Capability inflation"."""
    return _words(category)


def privilege_label(privilege: str) -> str:
    """A high-privilege capability as words: ``host_persistence`` → "Host persistence"."""
    return _words(privilege)


def criterion_label(criterion: str) -> str:
    """A judge's scoring criterion as words: ``data_protection`` → "Data protection"."""
    return _words(criterion)


def _words(identifier: str) -> str:
    if identifier in _SPELLED_OUT:
        return _SPELLED_OUT[identifier]
    text = " ".join(identifier.replace("_", " ").replace("-", " ").split())
    return text[:1].upper() + text[1:]
