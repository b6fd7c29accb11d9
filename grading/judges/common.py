"""Rules every judge applies to its score, whatever produced it."""

from __future__ import annotations

from typing import Literal

from grading.taxonomy import INJECTION_CATEGORIES
from grading.types import CONFIDENCE_ORDER, SEVERITY_ORDER, Finding


def is_injection(finding: Finding) -> bool:
    """A Tier 1 finding strong enough to cap any judge's score below auto-approval."""
    return (
        finding.category in INJECTION_CATEGORIES
        and SEVERITY_ORDER[finding.severity] >= SEVERITY_ORDER["high"]
        and CONFIDENCE_ORDER[finding.confidence] >= CONFIDENCE_ORDER["medium"]
    )


def verdict_for(
    score: int, pass_min: int, concerns_min: int
) -> Literal["PASS", "CONCERNS", "FAIL"]:
    if score >= pass_min:
        return "PASS"
    return "CONCERNS" if score >= concerns_min else "FAIL"
