"""The data that flows between the graders and the pipeline.

Everything here is a frozen value with ``to_dict()`` so the pipeline can store it as JSON and a
reviewer can read it back without the grading code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

SkillFiles = Mapping[str, str | bytes]
"""A bundle as the graders see it: path → text, or bytes for a binary file."""

Severity = Literal["info", "low", "medium", "high", "critical"]
SEVERITY_ORDER: dict[str, int] = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
Confidence = Literal["low", "medium", "high"]
CONFIDENCE_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True)
class Finding:
    """One rule hit. ``line``/``column`` are 1-based positions in the original file."""

    rule_id: str
    category: str
    severity: Severity
    confidence: Confidence
    file: str
    line: int
    column: int
    snippet: str
    message: str
    remediation: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Tier1Report:
    verdict: Literal["PASS", "FAIL"]
    findings: tuple[Finding, ...]
    high_privilege: bool
    privileges: tuple[str, ...]
    engine_version: str
    duration_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "findings": [f.to_dict() for f in self.findings],
            "high_privilege": self.high_privilege,
            "privileges": list(self.privileges),
            "engine_version": self.engine_version,
            "duration_ms": self.duration_ms,
        }


@dataclass(frozen=True)
class Concern:
    category: str
    severity: Severity
    file: str
    line: int | None
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Judgement:
    score: int
    verdict: Literal["PASS", "CONCERNS", "FAIL"]
    concerns: tuple[Concern, ...]
    criteria: dict[str, int]
    confidence: float
    provider: str
    model: str
    prompt_version: str
    duration_ms: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "verdict": self.verdict,
            "concerns": [c.to_dict() for c in self.concerns],
            "criteria": dict(self.criteria),
            "confidence": self.confidence,
            "provider": self.provider,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "duration_ms": self.duration_ms,
            "notes": dict(self.notes),
        }


class Judge(Protocol):
    """A Tier 2 judge. Raises a ``grading.errors.JudgeError`` subclass when it cannot judge."""

    provider: str

    def judge(self, files: SkillFiles, tier1: Tier1Report) -> Judgement: ...


DecisionOutcome = Literal["tier1_fail", "auto_approve", "review", "reject"]


@dataclass(frozen=True)
class Decision:
    outcome: DecisionOutcome
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "reasons": list(self.reasons)}
