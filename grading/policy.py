"""The decision policy: what the pipeline does with the two tiers' results."""

from __future__ import annotations

from grading.types import Decision, Judgement, Tier1Report


def decide(
    tier1: Tier1Report, judgement: Judgement | None, *, auto_approve_min: int, review_min: int
) -> Decision:
    """Tier 1 FAIL is final; then score ≥ auto_approve_min auto-approves unless the skill is
    high-privilege (→ review), review_min ≤ score < auto_approve_min goes to review, lower
    scores are rejected."""
    if tier1.verdict == "FAIL":
        return Decision("tier1_fail", ("tier 1 found high-confidence critical issues",))
    if judgement is None:
        raise ValueError("a Tier 1 pass needs a judgement to decide")
    score = judgement.score
    if score >= auto_approve_min:
        if tier1.high_privilege:
            privileges = ", ".join(tier1.privileges) or "high privilege"
            return Decision("review", (f"score {score} but high-privilege: {privileges}",))
        return Decision("auto_approve", (f"score {score} ≥ {auto_approve_min}",))
    if score >= review_min:
        band = f"{review_min}–{auto_approve_min - 1}"
        return Decision("review", (f"score {score} in the review band {band}",))
    return Decision("reject", (f"score {score} < {review_min}",))
