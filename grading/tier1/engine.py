"""Tier 1: deterministic rules over every file of a bundle, then skill-level inferences.

The verdict is FAIL only on malice with no benign reading (``grading.evidence``: a conclusive
finding, or a critical one whose rule joins two signals) — a Tier 1 fail is final for the
author, so it is reserved for unambiguous threats (reverse shells, a download from a stranger's
host piped into a shell, smuggled instructions…). Every other finding is evidence for Tier 2
and the decision policy.

The skill is *high-privilege* when a finding of at least medium confidence carries a privilege
(the ``privilege`` field of a rule) that ``taxonomy.PRIVILEGES`` marks for review, and the kind of
text it was found in lets it count (``spans``: code shown in documentation does not):
elevated_execution (sudo/root other than a package install, setuid, privileged containers, admin
cloud policies), host_persistence (cron, services, shell start-up files, git hooks), agent_config
(writing the agent's own instruction/memory/settings files), credential_stores (SSH keys,
cloud/tool credential files, keychains, browser stores, instance metadata), remote_code (running
downloaded code, unpinned installers included), remote_access (reverse/bind shells),
resource_abuse (miners), unattended_actions (sending, posting or paying without the user's
confirmation), tool_hooks (shipped files that make tools run commands) and embedded_credentials
(credentials in the bundle). package_install (a package manager's install as root) is only
noted. Writing the agent's memory or reading a credential store that the skill accounts for does
not make it high-privilege (it is still listed): a finding labelled ``declared`` (the description
names the action: a memory skill that writes CLAUDE.md, a deploy skill that reads Vault) or
``consented`` (done only when the user agrees) is a capability done in the open (``policy.yaml``:
``privilege_accounted_spans``, ``accountable_privileges``). Running bundled scripts, listing a
plain ``Bash`` tool, writing to the workspace or calling a documented API is deliberately *not*
high privilege: vendor skills do all of that every day.

Work is bounded whatever the input: at most MAX_FILE_CHARS of one file and MAX_TOTAL_CHARS of the
bundle are scanned, pattern matching has a total work budget and decoding its own (whatever is
skipped is reported as ``file.not-scanned``, never silently), and the catalogue only admits
linear-time patterns.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from grading.bundle import language
from grading.bundle.graph import (
    EXECUTED,
    FOLLOWED,
    MANIFEST,
    InstructionGraph,
    build_graph,
    is_script,
)
from grading.capabilities import inventory
from grading.evidence import assess, evidence_policy
from grading.programs.python import MAX_SOURCE as MAX_PROGRAM_CHARS
from grading.taxonomy import PRIVILEGES
from grading.tier1.catalogue import Catalogue, catalogue_version, load_catalogue
from grading.tier1.correlation import check_intent, check_pretext, correlate, stated_purpose
from grading.tier1.files import is_markdown
from grading.tier1.findings import Collector
from grading.tier1.installers import check_root_installers
from grading.tier1.limits import MAX_FILE_CHARS, MAX_FILES, MAX_TOTAL_CHARS
from grading.tier1.metadata import check_manifest
from grading.tier1.provenance import declared_names, declared_privileges, vendor_names
from grading.tier1.scanner import ScanContext, check_flood_pretext, scan_file
from grading.tier1.schedules import check_user_jobs
from grading.tier1.spans import adjust, quotes_obeyed
from grading.tier1.trust import check_trust_anchors
from grading.tier1.verified import check_verified_downloads
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Finding, SkillFiles, Tier1Report

ENGINE_VERSION = "tier1-rules/3.0"
"""Bumped when the engine changes how it reads files (span labels, flows, deobfuscation); the
rules and data files have their own version, ``catalogue_version()``."""


def scan(files: SkillFiles) -> Tier1Report:
    with _without_cyclic_collection():
        return _scan(files)


_WARM_UP_BUNDLE: SkillFiles = {
    "SKILL.md": (
        "---\nname: warm-up\ndescription: Prints the weather for a city.\n---\n\n"
        "Run `scripts/weather.py` with the city, then summarise it for the user.\n\n"
        "```bash\npython scripts/weather.py --city Oslo\n```\n"
    ),
    "scripts/weather.py": (
        "import os, urllib.request\n"
        "KEY = os.environ['WEATHER_KEY']\n"
        "print(urllib.request.urlopen('https://api.example.com/w?key=' + KEY).read())\n"
    ),
}


def warm_up() -> None:
    """Build every table a scan reads — rules, lexicons, the language model — by scanning a
    small bundle once. A cold process spends seconds on them; a worker does it before it forks
    its pool, so no submission pays for it (its children inherit the tables)."""
    scan(_WARM_UP_BUNDLE)
    language.identify("Lancez le script avec la ville demandée, puis résumez la météo.")


@contextmanager
def _without_cyclic_collection() -> Iterator[None]:
    """No cyclic garbage collection while a bundle is scanned. A scan allocates millions of
    short-lived objects (syntax trees, matches, values), which reference counting frees; the
    cyclic collector, started by the count of allocations, walks every live object of the
    process again and again meanwhile — 10–25 % of a scan's CPU on the corpus's slowest skills.
    What a scan leaves in cycles is collected after it, when the collector runs next."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _scan(files: SkillFiles) -> Tier1Report:
    started = time.perf_counter()
    catalogue = load_catalogue()
    collector = Collector()
    texts, truncated = _readable_texts(files, catalogue, collector)
    manifest = check_manifest(texts, catalogue, collector)
    graph = build_graph(texts, manifest.path)
    _check_unread_obeyed(texts, truncated, graph, catalogue, collector)
    context = ScanContext(
        catalogue,
        collector,
        manifest=manifest.path,
        graph=graph,
        quotes_obeyed=quotes_obeyed(
            [text for path, text in texts.items() if is_markdown(path) and graph.obeyed(path)]
        ),
        declared_rules=declared_privileges(manifest.declared_text),
        declared=declared_names(manifest.name, manifest.description, manifest.urls),
        vendors=vendor_names(manifest.name, manifest.description),
        purpose=manifest.declared_text,
        texts=texts,
        shipped=frozenset(path.rsplit("/", 1)[-1] for path in files),
    )
    for path, text in texts.items():
        scan_file(path, text, context)
    if context.exhausted_in is not None:
        note = "(the scan's matching budget ran out; later rules and files were skipped)"
        collector.add(catalogue.rule("file.not-scanned"), context.exhausted_in, 1, 1, "", note)
    check_root_installers(texts, catalogue, collector)
    check_trust_anchors(texts, stated_purpose(manifest, texts), catalogue, collector)
    check_verified_downloads(texts, context.declared, collector)
    correlate(catalogue, collector)
    check_pretext(stated_purpose(manifest, texts), catalogue, collector)
    check_flood_pretext(context)
    check_intent(manifest, catalogue, collector)
    collector.declare(catalogue.by_id, context.declared_rules)  # read once: ~20 expressions
    check_user_jobs(texts, catalogue, collector)
    findings = tuple(
        sorted(
            collector.findings,
            key=lambda f: (-SEVERITY_ORDER[f.severity], f.file, f.line, f.column, f.rule_id),
        )
    )
    report = _report(catalogue, findings, round((time.perf_counter() - started) * 1000, 3))
    entries = inventory(findings, catalogue.by_id, manifest.declared_text)
    return replace(report, inventory=tuple(e.to_dict() for e in entries), graph=graph.to_dict())


def without_rules(report: Tier1Report, rule_ids: frozenset[str]) -> Tier1Report:
    """``report`` as if the rules ``rule_ids`` were not in the catalogue: their findings dropped,
    verdict and privileges derived again from the rest (correlations they fed are kept). For
    measuring what a catalogue would find without some of its rules (``grading.evaluation``)."""
    kept = tuple(f for f in report.findings if f.rule_id not in rule_ids)
    return replace(
        _report(load_catalogue(), kept, report.duration_ms),
        engine_version=report.engine_version,
        catalogue_version=report.catalogue_version,
        inventory=tuple(e for e in report.inventory if e.get("rule_id") not in rule_ids),
        graph=report.graph,
    )


def _report(catalogue: Catalogue, findings: tuple[Finding, ...], duration_ms: float) -> Tier1Report:
    privileges = _privileges(catalogue, findings)
    return Tier1Report(
        verdict="FAIL" if assess(findings, catalogue.by_id).final else "PASS",
        findings=findings,
        high_privilege=any(PRIVILEGES.get(p, True) for p in _unaccounted(catalogue, findings)),
        privileges=privileges,
        engine_version=ENGINE_VERSION,
        duration_ms=duration_ms,
        catalogue_version=catalogue_version(),
    )


def _readable_texts(
    files: SkillFiles, catalogue: Catalogue, collector: Collector
) -> tuple[dict[str, str], frozenset[str]]:
    """The text of each file to scan, within the size limits, and the files cut short; binaries
    and overflow reported."""
    texts: dict[str, str] = {}
    truncated: set[str] = set()
    remaining = MAX_TOTAL_CHARS
    for index, path in enumerate(sorted(files)):
        content = files[path]
        if index >= MAX_FILES:
            collector.add(catalogue.rule("file.not-scanned"), path, 1, 1, "too many files")
            continue
        if isinstance(content, bytes):
            collector.add(catalogue.rule("file.binary"), path, 1, 1, f"{len(content)} bytes")
            text = _text_inside(content)
            if text is None:
                continue
        else:
            text = content
        limit = min(MAX_FILE_CHARS, remaining)
        if len(text) > limit:
            note = f"({len(text)} characters, only the first {limit} scanned)"
            collector.add(catalogue.rule("file.not-scanned"), path, 1, 1, "", note)
            text = text[:limit]
            truncated.add(path)
        remaining -= len(text)
        texts[path] = text
    return texts, frozenset(truncated)


_CARRIED_OUT = frozenset({MANIFEST, FOLLOWED, EXECUTED})


def _check_unread_obeyed(
    texts: dict[str, str],
    truncated: frozenset[str],
    graph: InstructionGraph,
    catalogue: Catalogue,
    collector: Collector,
) -> None:
    """A file the agent runs or carries out that was only partly read goes to a person: cut at
    the scan limit, or a script too large for the program analysis (``MAX_PROGRAM_CHARS``). An
    attacker pads a script and puts the send at its end; a clean prefix proves nothing. A file
    the agent only reads (a word list, a reference) is data: its overflow is reported alone."""
    for path in sorted(texts):
        if graph.role(path) not in _CARRIED_OUT:
            continue
        if path in truncated:
            note = "(cut at the scan limit: the rest was not read)"
        elif is_script(path) and len(texts[path]) > MAX_PROGRAM_CHARS:
            note = f"(over {MAX_PROGRAM_CHARS} characters: its data flows were not followed)"
        else:
            continue
        collector.add(catalogue.rule("file.obeyed-not-scanned"), path, 1, 1, "", note)


def _text_inside(content: bytes) -> str | None:
    """A 'binary' that is really UTF-8 text is scanned anyway: the label is the submitter's."""
    if b"\x00" in content[:8192]:
        return None
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unaccounted(catalogue: Catalogue, findings: tuple[Finding, ...]) -> tuple[str, ...]:
    """The privileges the skill does not account for: those of findings outside the accounted
    spans, and every privilege a declaration cannot account for (``policy.yaml``)."""
    policy = evidence_policy()
    return _privileges(
        catalogue,
        tuple(
            f
            for f in findings
            if f.span not in policy.privilege_accounted_spans
            or catalogue.rule(f.rule_id).privilege not in policy.accountable_privileges
        ),
    )


def _privileges(catalogue: Catalogue, findings: tuple[Finding, ...]) -> tuple[str, ...]:
    """Privileges of the findings of at least medium confidence whose kind of text lets them
    count (a privileged command quoted in a discussion does not make the skill privileged)."""
    found: set[str] = set()
    for finding in findings:
        rule = catalogue.rule(finding.rule_id)
        if (
            rule.privilege
            and CONFIDENCE_ORDER[finding.confidence] >= CONFIDENCE_ORDER["medium"]
            and adjust(rule.spans_fixed, finding.span).privilege
        ):
            found.add(rule.privilege)
    return tuple(sorted(found))
