"""An author's commands: ``submit`` a folder or a git repository, follow it (``--wait``) through
the registry's event stream, read its ``status``, ``appeal`` a reviewer's rejection once, and
``yank``/``unyank`` a version.

At the end of a submission that was not simply published, every finding that decided it is
printed with its file, its line number, the line itself and the fix.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

from skillgate_cli.exits import Exit, Failure
from skillgate_cli.output import Printer, shown
from skillgate_cli.packing import PackingRefused, pack
from skillgate_cli.registry import Refused, Registry, RegistryError
from skillgate_cli.specs import Spec

TERMINAL = {"PUBLISHED", "REJECTED", "TIER1_FAILED"}
IN_REVIEW = {"NEEDS_REVIEW", "TIER3_REVIEW"}
REVIEWER_REJECTED = "REVIEWER_REJECTED"
"""The outcome code of a reviewer's rejection: the one an author may appeal."""
RECONNECT_PAUSE_S = 1.0


def submit(
    source: str,
    skill_path: str,
    ref: str,
    wait: bool,
    timeout_s: float,
    registry: Registry,
    printer: Printer,
) -> Exit:
    if "://" in source:
        body: dict[str, Any] = {"repo_url": source}
        if skill_path:
            body["skill_path"] = skill_path
        if ref:
            body["ref"] = ref
        printer.note(f"submitting {shown(source)} (the registry fetches it)…")
    else:
        if skill_path or ref:
            raise Failure("--path and --ref are for a git URL, not a folder", Exit.USAGE)
        try:
            packed = pack(Path(source), registry.limits())
        except PackingRefused as refused:
            raise Failure(f"not submitted: {refused}") from refused
        limit = registry.limits().get("max_content_bytes")
        printer.note(
            f"packed {len(packed.files)} file{'s' if len(packed.files) != 1 else ''} from "
            f"{source} ({packed.total_bytes} bytes of the {limit} allowed); uploading…"
        )
        body = {"files": packed.files}
    try:
        created = registry.submit(body)
    except Refused as refused:
        raise Failure(f"not submitted: {refused_in_words(refused)}") from refused
    submission_id = str(created.get("id"))
    skill = created.get("skill") or {}
    what = (
        f"{skill.get('owner')}/{skill.get('name')}"
        if skill.get("name")
        else f"{source} (the registry reads its name once fetched)"
    )
    printer.say(f"submitted {shown(what)} as {shown(submission_id)}")
    if not wait:
        printer.say(f"follow it: skillgate status {shown(submission_id)} --wait")
        return Exit.OK
    return follow(submission_id, timeout_s, registry, printer)


def refused_in_words(refused: Refused) -> str:
    fields = "; ".join(
        f"{shown(field)}: {shown(' '.join(str(m) for m in messages))}"
        if isinstance(messages, list)
        else f"{shown(field)}: {shown(messages)}"
        for field, messages in refused.errors.items()
    )
    return shown(fields or str(refused))


def status(
    submission_id: str, wait: bool, timeout_s: float, registry: Registry, printer: Printer
) -> Exit:
    if wait:
        return follow(submission_id, timeout_s, registry, printer)
    return conclude(_submission(registry, submission_id), registry, printer)


def follow(submission_id: str, timeout_s: float, registry: Registry, printer: Printer) -> Exit:
    """Print each state change as the registry streams it, reconnecting with the last event id
    each time the registry ends a stream, until the submission settles or ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        ended = False
        try:
            for event in registry.follow(submission_id, last):
                if event.event_id:
                    last = event.event_id
                if event.name == "state":
                    printer.say(state_line(event.data))
                elif event.name == "end":
                    ended = True
                    break
                if time.monotonic() >= deadline:
                    break
        except RegistryError as error:
            if isinstance(error, Refused) or "not in the registry" in str(error):
                raise Failure(str(error)) from error
            printer.note(f"the stream broke ({error}); reconnecting…")
            time.sleep(RECONNECT_PAUSE_S)
        if ended:
            return conclude(_submission(registry, submission_id), registry, printer)
    detail = _submission(registry, submission_id)
    if detail.get("state") in TERMINAL | IN_REVIEW:
        return conclude(detail, registry, printer)
    printer.note(
        f"still {shown(detail.get('state'))} after {timeout_s:g} s; stopped waiting "
        f"(skillgate status {shown(submission_id)} --wait goes on)"
    )
    return Exit.RUNNING


def state_line(event: dict[str, Any]) -> str:
    moment = str(event.get("created_at", ""))
    try:
        moment = datetime.fromisoformat(moment.replace("Z", "+00:00")).strftime("%H:%M:%S")
    except ValueError:
        moment = moment[:8]
    before = event.get("from_state") or "∅"
    return shown(
        f"{moment} {before:>15} → {event.get('to_state', ''):<15} "
        f"{event.get('trigger', '')} ({event.get('actor', '')})"
    )


def conclude(detail: dict[str, Any], registry: Registry, printer: Printer) -> Exit:
    """The submission's state, outcome and what decided it; the exit code that says it."""
    state = str(detail.get("state"))
    outcome = detail.get("outcome") or {}
    skill = detail.get("skill") or {}
    if skill.get("name"):
        printer.say(f"skill: {shown(skill.get('owner'))}/{shown(skill.get('name'))}")
    if state in IN_REVIEW:
        printer.say("waiting for human review: a reviewer decides; you will see it here")
    elif outcome:
        printer.say(
            f"outcome: {shown(outcome.get('kind'))} {shown(outcome.get('code'))}: "
            f"{shown(outcome.get('message'))}"
        )
    else:
        printer.say(f"state: {shown(state)} (on its way)")
    deciding = [reason for reason in detail.get("deciding") or [] if isinstance(reason, dict)]
    if deciding:
        printer.say("what decided it:")
    for group in same_line_groups(deciding):
        for line in reason_lines(group):
            printer.say(line)
    for line in appeal_lines(detail, outcome):
        printer.say(line)
    printer.say(f"details: {registry.url}/account/submissions/{shown(detail.get('id'))}/")
    if state == "PUBLISHED":
        return Exit.OK
    if state in IN_REVIEW:
        return Exit.IN_REVIEW
    if state in TERMINAL:
        return Exit.REJECTED
    return Exit.RUNNING


def appeal_lines(detail: dict[str, Any], outcome: dict[str, Any]) -> list[str]:
    """Where the appeal stands, or how to make one when a reviewer's rejection may be appealed."""
    appeal = (detail.get("review") or {}).get("appeal")
    if isinstance(appeal, dict):
        lines = [
            f"appeal: {shown(appeal.get('status'))} (you wrote: {shown(appeal.get('reason'))})"
        ]
        decision = appeal.get("decision")
        if isinstance(decision, dict):
            lines.append(f"  the Security team's reason: {shown(decision.get('reason'))}")
        return lines
    if outcome.get("code") == REVIEWER_REJECTED:
        return [
            "you may appeal this rejection once: "
            f'skillgate appeal {shown(detail.get("id"))} --reason "why it is safe"'
        ]
    return []


def same_line_groups(reasons: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The deciding reasons grouped by the line they point at, in order of first mention: two
    rules that read the same line are one place for the author to fix, shown once."""
    groups: dict[object, list[dict[str, Any]]] = {}
    for index, reason in enumerate(reasons):
        place = (
            (reason["file"], reason["line"]) if reason.get("file") and reason.get("line") else index
        )
        groups.setdefault(place, []).append(reason)
    return list(groups.values())


def reason_lines(group: list[dict[str, Any]]) -> list[str]:
    """The findings on one line: the rules and where, the line itself, what is wrong, the fix
    (each said once)."""
    first = group[0]
    where = ""
    if first.get("file"):
        where = f" at {first['file']}" + (f":{first['line']}" if first.get("line") else "")
    rules = ", ".join(dict.fromkeys(str(reason.get("rule")) for reason in group))
    severity = f" ({first['severity']})" if first.get("severity") else ""
    lines = [f"  - {shown(rules)}{shown(where)}{shown(severity)}"]
    if first.get("line_text"):
        number = str(first.get("line") or "")
        lines.append(f"      {number:>4} | {shown(first['line_text'])}")
    for text in dict.fromkeys(str(reason.get("message")) for reason in group):
        lines.append(f"    {shown(text)}")
    for fix in dict.fromkeys(str(reason["fix"]) for reason in group if reason.get("fix")):
        lines.append(f"    fix: {shown(fix)}")
    return lines


def _submission(registry: Registry, submission_id: str) -> dict[str, Any]:
    try:
        return registry.submission(submission_id)
    except RegistryError as error:
        raise Failure(str(error)) from error


def appeal(submission_id: str, reason: str, registry: Registry, printer: Printer) -> Exit:
    """File the one appeal a reviewer's rejection allows; Security decides it."""
    if not reason.strip():
        raise Failure("an appeal needs --reason: say why the rejection is wrong", Exit.USAGE)
    try:
        filed = registry.appeal(submission_id, reason)
    except Refused as refused:
        raise Failure(f"not appealed: {refused_in_words(refused)}") from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
    printer.say(
        f"appeal filed for {shown(submission_id)}: {shown(filed.get('status'))}; the Security "
        f"team decides it (skillgate status {shown(submission_id)} shows the outcome)"
    )
    return Exit.OK


def change_status(
    spec_text: str, action: str, reason: str, registry: Registry, printer: Printer
) -> Exit:
    spec = Spec.parse(spec_text)
    if spec.owner is None or spec.version is None:
        raise Failure(f"{action} needs OWNER/NAME@VERSION, e.g. alice/hello@1.0.0", Exit.USAGE)
    try:
        changed = registry.status_change(spec.owner, spec.name, spec.version, action, reason)
    except Refused as refused:
        raise Failure(f"not {action}ed: {refused_in_words(refused)}") from refused
    except RegistryError as error:
        raise Failure(str(error)) from error
    printer.say(f"{shown(spec.ref)} is now {shown(changed.get('status'))}")
    return Exit.OK
