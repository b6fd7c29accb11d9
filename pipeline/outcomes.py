"""Terminal outcomes, so an author can tell "your skill is unsafe" from "we failed, resubmit"."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import models


class OutcomeKind(models.TextChoices):
    VERDICT = "verdict"
    ERROR = "error"


class OutcomeCode(models.TextChoices):
    PUBLISHED = "PUBLISHED"
    TIER1_FAILED = "TIER1_FAILED"
    TIER1_TIME_LIMIT = "TIER1_TIME_LIMIT"
    SCORE_TOO_LOW = "SCORE_TOO_LOW"
    REVIEWER_REJECTED = "REVIEWER_REJECTED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    RETRIES_EXHAUSTED = "RETRIES_EXHAUSTED"
    STUCK_EXHAUSTED = "STUCK_EXHAUSTED"
    SLA_TIMEOUT = "SLA_TIMEOUT"
    SOURCE_REJECTED = "SOURCE_REJECTED"
    SOURCE_UNAVAILABLE = "SOURCE_UNAVAILABLE"


# Errors: we could not process the submission (including a git source that could not be used,
# whose message says what to fix); the author resubmits. Not a verdict on the skill.
ERROR_CODES = frozenset(
    {
        OutcomeCode.RETRIES_EXHAUSTED,
        OutcomeCode.STUCK_EXHAUSTED,
        OutcomeCode.SLA_TIMEOUT,
        OutcomeCode.SOURCE_REJECTED,
        OutcomeCode.SOURCE_UNAVAILABLE,
    }
)


@dataclass(frozen=True)
class Outcome:
    kind: str
    code: str
    message: str

    def __post_init__(self) -> None:
        expected = OutcomeKind.ERROR if self.code in ERROR_CODES else OutcomeKind.VERDICT
        if self.kind != expected:
            raise ValueError(f"outcome code {self.code} is a {expected.value}, not {self.kind}")

    @classmethod
    def verdict(cls, code: str, message: str) -> Outcome:
        return cls(kind=OutcomeKind.VERDICT, code=code, message=message)

    @classmethod
    def error(cls, code: str, message: str) -> Outcome:
        return cls(kind=OutcomeKind.ERROR, code=code, message=message)

    def as_dict(self) -> dict[str, str]:
        return {key: str(value) for key, value in asdict(self).items()}
