"""Grading results as stored records: the one encoder and decoder between grading's values and
the JSON a database keeps, so nothing outside grading writes or parses that JSON by hand.

A Tier 1 record is the report; a Tier 2 record is the judgement, the decision the policy took
from it and the thresholds it used. Each says what produced it (catalogue version, judge
version, thresholds), so a stored verdict can be recognised as older than today's rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grading.types import Decision, Judgement, Tier1Report


@dataclass(frozen=True)
class Thresholds:
    """The decision policy's settings when a verdict was taken."""

    auto_approve_min: int
    review_min: int

    def to_dict(self) -> dict[str, int]:
        return {"auto_approve_min": self.auto_approve_min, "review_min": self.review_min}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Thresholds:
        return cls(int(data["auto_approve_min"]), int(data["review_min"]))


@dataclass(frozen=True)
class Tier2Record:
    judgement: Judgement
    decision: Decision
    thresholds: Thresholds


def encode_tier1(report: Tier1Report) -> dict[str, Any]:
    return report.to_dict()


def decode_tier1(data: Mapping[str, Any]) -> Tier1Report:
    return Tier1Report.from_dict(data)


def encode_tier2(record: Tier2Record) -> dict[str, Any]:
    return {
        "judgement": record.judgement.to_dict(),
        "decision": record.decision.to_dict(),
        "thresholds": record.thresholds.to_dict(),
    }


def decode_tier2(data: Mapping[str, Any]) -> Tier2Record:
    decision = data["decision"]
    return Tier2Record(
        judgement=Judgement.from_dict(data["judgement"]),
        decision=Decision(outcome=decision["outcome"], reasons=tuple(decision["reasons"])),
        thresholds=Thresholds.from_dict(data["thresholds"]),
    )
