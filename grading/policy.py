"""The decision policy: what the pipeline does with the two tiers' results.

Order: a Tier 1 FAIL is final; a score ≥ auto_approve_min auto-approves unless a file the agent
runs or obeys was only partly scanned (``review_rules`` of ``policy.yaml``), the skill is
high-privilege or Tier 1 counted any capability or sign of malice in what the agent obeys or
runs (→ review: a person sees every capability). Below it, corroborated malice
(``grading.evidence``: two independent signals, or one with no benign reading) is rejected;
anything else goes to a person — a low score that a single signal or capabilities alone explain
included, because a block is a claim of malice. The judge can send corroborated malice to a
person (by approving it), never block without it.
"""

from __future__ import annotations

from grading.evidence import Evidence, EvidencePolicy, assess, evidence_policy, strength
from grading.tier1.catalogue import load_catalogue
from grading.types import Decision, Finding, Judgement, Tier1Report

__all__ = ["Evidence", "EvidencePolicy", "classify", "decide", "evidence_policy"]


def classify(findings: tuple[Finding, ...]) -> Evidence:
    """The evidence of ``findings`` as the catalogue's rules describe it (``evidence.assess``)."""
    return assess(findings, load_catalogue().by_id)


def _names(findings: tuple[Finding, ...]) -> str:
    """Each rule with where it first fired and how many more places it fired in
    ("intent.disable-safety at SKILL.md:21 (+2 more)"): a reviewer goes to the line the
    decision rests on instead of searching the bundle for a rule id."""
    places: dict[str, list[str]] = {}
    for finding in sorted(
        findings, key=lambda f: (f.rule_id, f.file != "SKILL.md", f.file, f.line)
    ):
        places.setdefault(finding.rule_id, []).append(f"{finding.file}:{finding.line}")
    named = []
    for rule_id, where in sorted(places.items()):
        unique = list(dict.fromkeys(where))
        more = f" (+{len(unique) - 1} more)" if len(unique) > 1 else ""
        named.append(f"{rule_id} at {unique[0]}{more}")
    return ", ".join(named)


def _granting(tier1: Tier1Report, named: set[str]) -> tuple[Finding, ...]:
    """The findings whose rule grants one of the report's privileges, less the rules a reason
    already names: what made the skill high-privilege, for the reviewer to open."""
    rules = load_catalogue().by_id
    return tuple(
        f
        for f in tier1.findings
        if f.rule_id not in named
        and (rule := rules.get(f.rule_id)) is not None
        and rule.privilege in tier1.privileges
    )


def decide(
    tier1: Tier1Report, judgement: Judgement | None, *, auto_approve_min: int, review_min: int
) -> Decision:
    """Tier 1 FAIL is final; then score ≥ auto_approve_min auto-approves unless the skill is
    high-privilege or Tier 1 counted evidence (→ review); below it corroborated malice is
    rejected and everything else goes to review."""
    if tier1.verdict == "FAIL":
        return Decision("tier1_fail", ("tier 1 found malice with no benign reading",))
    if judgement is None:
        raise ValueError("a Tier 1 pass needs a judgement to decide")
    score = judgement.score
    evidence = classify(tier1.findings)
    floor = evidence_policy().review_floor_strength
    unread = tuple(f for f in tier1.findings if f.rule_id in evidence_policy().review_rules)
    if score >= auto_approve_min and unread:
        files = ", ".join(sorted({f.file for f in unread}))
        return Decision(
            "review", (f"score {score} but only partly scanned, run or obeyed: {files}",)
        )
    if score >= auto_approve_min:
        held = tuple(f for f in evidence.counted if strength(f) >= floor)
        if tier1.high_privilege:
            privileges = ", ".join(tier1.privileges) or "high privilege"
            granted = _granting(tier1, {f.rule_id for f in held})
            privileges += f" ({_names(granted)})" if granted else ""
            also = f"; capabilities to review: {_names(held)}" if held else ""
            return Decision("review", (f"score {score} but high-privilege: {privileges}{also}",))
        if held:
            found = _names(held)
            return Decision("review", (f"score {score} but a capability to review: {found}",))
        return Decision("auto_approve", (f"score {score} ≥ {auto_approve_min}",))
    if evidence.corroborated:
        signals = ", ".join(evidence.signals)
        found = _names(evidence.conclusive or evidence.malice)
        reason = f"score {score} < {auto_approve_min}; corroborated malice ({signals}): {found}"
        return Decision("reject", (reason,))
    if score >= review_min:
        band = f"{review_min}–{auto_approve_min - 1}"
        held = tuple(f for f in evidence.counted if strength(f) >= floor)
        also = f"; capabilities to review: {_names(held)}" if held else ""
        return Decision("review", (f"score {score} in the review band {band}{also}",))
    found = _names(evidence.counted) or "none in text the agent obeys or code that runs"
    reason = (
        f"score {score} < {review_min}, but no corroborated malice (a block needs two"
        f" independent signals or one with no benign reading): {found}"
    )
    return Decision("review", (reason,))
