"""A job the skill says it schedules, in the user's own service manager, from units it ships.

A scheduled job runs after the session ends: host persistence, which a person sees even when
the description names it (``declared``), because a description cannot say what the job runs.
A backup tool's timer is the tool's purpose, though. When the job is the user's own (a systemd
user unit: ``systemctl --user``, ``~/.config/systemd/user/``, never root's), the units the
instruction enables are shipped in the bundle, and no rule reported anything in them, Tier 1 has
read exactly what will run and found it to be what the description says. Such a job is counted
as ``persistence.declared-user-job``: noted for the reviewer like a package install, not a
reason for one. A job the description does not name, one written for root or the whole system,
one whose units the bundle does not ship, and one whose units hold a finding keep
``persistence.scheduled-task`` and go to a person.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from grading.tier1.catalogue import Catalogue
from grading.tier1.files import is_markdown
from grading.tier1.findings import Collector

_SCHEDULING = frozenset({"persistence.scheduled-task", "persistence.scheduled-task-instruction"})
_USER_MANAGER = re.compile(
    r"systemctl\s+--user\b|~/\.config/systemd/user\b|\$HOME/\.config/systemd/user\b"
)
_SYSTEM_WIDE = re.compile(r"\bsudo\b|/etc/|\bsystemctl\s+(?!--user)[a-z-]+\b|--system\b|--global\b")
_UNIT = re.compile(r"[\w@.-]{1,80}\.(?:timer|service)\b")
_TIMER_UNIT = re.compile(r"(?m)^\s*Unit\s*=\s*([\w@.-]{1,80}\.service)\s*$")


def check_user_jobs(texts: Mapping[str, str], catalogue: Catalogue, collector: Collector) -> None:
    """Count as ``persistence.declared-user-job`` each declared scheduling hit in a document
    whose instruction enables user units the bundle ships and no rule reported anything in."""
    reported = {finding.file for finding in collector.findings}
    by_name = _shipped_by_name(texts)
    job = catalogue.rule("persistence.declared-user-job")
    for index, finding in enumerate(list(collector.findings)):
        if (
            finding.rule_id not in _SCHEDULING
            or finding.span != "declared"
            or not is_markdown(finding.file)
        ):
            continue
        lines = texts.get(finding.file, "").split("\n")
        here = "\n".join(lines[max(finding.line - 2, 0) : finding.line])
        line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        if not _USER_MANAGER.search(line) or _SYSTEM_WIDE.search(line):
            continue
        units = _units(here, by_name, texts)
        if units is None or not units or units & reported:
            continue
        names = ", ".join(sorted(units))
        note = f"(user units the skill ships and its description names: {names})"
        collector.recount(index, job, note)


def _shipped_by_name(texts: Mapping[str, str]) -> dict[str, str]:
    """Bundle paths of the unit files, by base name (a name two files share names neither)."""
    found: dict[str, list[str]] = {}
    for path in texts:
        if _UNIT.fullmatch(path.rsplit("/", 1)[-1]):
            found.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return {name: paths[0] for name, paths in found.items() if len(paths) == 1}


def _units(
    text: str, by_name: Mapping[str, str], texts: Mapping[str, str]
) -> frozenset[str] | None:
    """The shipped unit files ``text`` enables, with the service each timer starts; None when
    one of them is not shipped (what it runs was never read)."""
    paths: set[str] = set()
    for name in {m.group() for m in _UNIT.finditer(text)}:
        path = by_name.get(name)
        if path is None:
            return None
        paths.add(path)
        if name.endswith(".timer"):
            started = _TIMER_UNIT.search(texts[path])
            service = started.group(1) if started else name[: -len(".timer")] + ".service"
            if service not in by_name:
                return None
            paths.add(by_name[service])
    return frozenset(paths)
