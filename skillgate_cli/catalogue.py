"""Looking around the registry: ``search`` and ``info``."""

from __future__ import annotations

from typing import Any

from skillgate_cli.exits import Exit, Failure
from skillgate_cli.installing import skill_detail
from skillgate_cli.output import Printer, shown
from skillgate_cli.registry import Registry, RegistryError
from skillgate_cli.specs import Spec

DESCRIPTION_CHARS = 70


def search(words: list[str], limit: int, registry: Registry, printer: Printer) -> Exit:
    try:
        found = registry.search(" ".join(words), limit)
    except RegistryError as error:
        raise Failure(str(error)) from error
    results = [r for r in found.get("results", []) if isinstance(r, dict)]
    if not results:
        printer.say(f"nothing published matches {shown(' '.join(words))}")
        return Exit.OK
    for skill in results:
        name = f"{skill.get('owner')}/{skill.get('name')}"
        latest = skill.get("latest_version") or "(all yanked)"
        printer.say(f"{shown(name):40} {shown(latest):10} {_short(skill.get('description'))}")
    count = found.get("count")
    if isinstance(count, int) and count > len(results):
        printer.say(f"({len(results)} of {count}; --limit {min(count, 200)} shows more)")
    return Exit.OK


def info(spec_text: str, registry: Registry, printer: Printer) -> Exit:
    spec = Spec.parse(spec_text).qualified(registry)
    assert spec.owner is not None
    skill = skill_detail(registry, spec)
    printer.say(f"{shown(spec.owner)}/{shown(spec.name)}: {shown(skill.get('description'))}")
    printer.say(f"latest: {shown(skill.get('latest_version') or 'none (every version is yanked)')}")
    printer.say("versions:")
    for version in skill.get("versions") or []:
        if not isinstance(version, dict):
            continue
        line = f"  {shown(version.get('version')):10} {shown(version.get('status')):10}"
        line += f" {shown(str(version.get('published_at', ''))[:10])}"
        if version.get("status") == "yanked" and version.get("status_reason"):
            line += f"  yanked: {shown(version['status_reason'])}"
        printer.say(line)
    try:
        advisories = registry.advisories_of(spec.owner, spec.name)
    except RegistryError as error:
        raise Failure(str(error)) from error
    quarantined: dict[str, dict[str, Any]] = {}
    for advisory in advisories:
        if advisory.get("kind") == "quarantine" and advisory.get("status") == "quarantined":
            quarantined.setdefault(str(advisory.get("version")), advisory)
    for advisory in quarantined.values():
        printer.say(
            f"  {shown(advisory.get('version')):10} quarantined  {shown(advisory.get('reason'))}"
        )
    printer.say(f"install: skillgate install {shown(spec.owner)}/{shown(spec.name)}")
    return Exit.OK


def _short(text: Any) -> str:
    line = " ".join(str(text or "").split())
    if len(line) > DESCRIPTION_CHARS:
        line = line[: DESCRIPTION_CHARS - 1] + "…"
    return shown(line)
