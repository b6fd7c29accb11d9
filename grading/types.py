"""The data that flows between the graders and the pipeline.

Everything here is a frozen value with ``to_dict()`` and ``from_dict()``: the pipeline stores
results as JSON and anyone (a reviewer's page, a re-scan campaign) reads them back through the
same codec, without hand-written JSON handling. ``from_dict`` accepts dicts written by earlier
versions: a key they lack takes its default, a key it does not know is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol, TypeVar

SkillFiles = Mapping[str, str | bytes]
"""A bundle as the graders see it: path → text, or bytes for a binary file."""

Severity = Literal["info", "low", "medium", "high", "critical"]
SEVERITY_ORDER: dict[str, int] = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
Confidence = Literal["low", "medium", "high"]
CONFIDENCE_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2}

_T = TypeVar("_T")


def _known(cls: type[_T], data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are fields of ``cls`` (older or newer writers tolerated)."""
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return {key: value for key, value in data.items() if key in names}


@dataclass(frozen=True)
class Finding:
    """One rule hit. ``line``/``column`` are 1-based positions in the original file.

    ``span`` names the kind of text the hit was in (``instruction``, ``shipped_code``,
    ``discussion``, ``example``, ``detection``, ``negation``; see ``grading.tier1.spans``); empty
    for skill-level findings and for findings stored before spans existed.
    """

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
    span: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        return cls(**_known(cls, data))


@dataclass(frozen=True)
class Tier1Report:
    verdict: Literal["PASS", "FAIL"]
    findings: tuple[Finding, ...]
    high_privilege: bool
    privileges: tuple[str, ...]
    engine_version: str
    duration_ms: float
    catalogue_version: str = ""
    """Content hash of the rules and data the engine read (``grading.tier1.catalogue_version``)."""
    inventory: tuple[dict[str, Any], ...] = ()
    """The bundle's capabilities (``grading.capabilities.Capability.to_dict``): what it reads,
    sends, executes, persists, destroys and changes, where, and whether it is declared."""
    graph: dict[str, Any] = field(default_factory=dict)
    """Which files the agent obeys (``grading.bundle.graph.InstructionGraph.to_dict``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "findings": [f.to_dict() for f in self.findings],
            "high_privilege": self.high_privilege,
            "privileges": list(self.privileges),
            "engine_version": self.engine_version,
            "duration_ms": self.duration_ms,
            "catalogue_version": self.catalogue_version,
            "inventory": [dict(entry) for entry in self.inventory],
            "graph": dict(self.graph),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tier1Report:
        known = _known(cls, data)
        known["findings"] = tuple(Finding.from_dict(f) for f in data.get("findings", ()))
        known["privileges"] = tuple(data.get("privileges", ()))
        known["inventory"] = tuple(dict(entry) for entry in data.get("inventory", ()))
        known["graph"] = dict(data.get("graph", {}))
        return cls(**known)


@dataclass(frozen=True)
class Concern:
    category: str
    severity: Severity
    file: str
    line: int | None
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Concern:
        return cls(**_known(cls, data))


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict. ``judge_version`` names provider, model and weights or prompt version
    (the judge's ``version``), so a stored verdict says exactly what produced it; the heuristic
    judge lists in ``notes["contributions"]`` the features, findings and weights behind its
    score."""

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
    judge_version: str = ""

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
            "judge_version": self.judge_version,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Judgement:
        known = _known(cls, data)
        known["concerns"] = tuple(Concern.from_dict(c) for c in data.get("concerns", ()))
        known["criteria"] = dict(data.get("criteria", {}))
        known["notes"] = dict(data.get("notes", {}))
        return cls(**known)


class Judge(Protocol):
    """A Tier 2 judge. Raises a ``grading.errors.JudgeError`` subclass when it cannot judge.

    ``version`` names provider, model and weights or prompt version (``heuristic/weights-…``,
    ``openai/<model>/prompt-…``): a stored verdict is stale when it differs.
    """

    provider: str
    version: str
    reads_files: bool
    """Whether ``judge`` reads the skill's files, or only Tier 1's report: a caller need not
    load the files for a judge that does not read them."""

    def judge(self, files: SkillFiles, tier1: Tier1Report) -> Judgement: ...


DecisionOutcome = Literal["tier1_fail", "auto_approve", "review", "reject"]


@dataclass(frozen=True)
class Decision:
    outcome: DecisionOutcome
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "reasons": list(self.reasons)}
