"""People read finding categories and privileges as words, never as identifiers."""

from __future__ import annotations

import pytest

from grading.labels import category_label, criterion_label, privilege_label
from grading.tier1.catalogue import load_catalogue

CATALOGUE = load_catalogue()


@pytest.mark.parametrize(
    ("category", "words"),
    [
        ("credential_access", "Credential access"),
        ("capability_inflation", "Capability inflation"),
        ("env_harvesting", "Environment harvesting"),
        ("remote_fetch_execute", "Remote fetch and execute"),
        ("destructive-commands", "Destructive commands"),
        ("exfiltration", "Exfiltration"),
    ],
)
def test_a_category_reads_as_words(category: str, words: str) -> None:
    assert category_label(category) == words


def test_every_category_and_privilege_of_the_rules_has_words() -> None:
    identifiers = {rule.category for rule in CATALOGUE.rules}
    identifiers |= {rule.privilege for rule in CATALOGUE.rules if rule.privilege}
    for identifier in identifiers:
        for label in (category_label(identifier), privilege_label(identifier)):
            assert "_" not in label and label[0].isupper(), (identifier, label)


def test_privileges_and_criteria_read_as_words() -> None:
    assert privilege_label("host_persistence") == "Host persistence"
    assert privilege_label("Bash") == "Bash"
    assert criterion_label("data_protection") == "Data protection"
