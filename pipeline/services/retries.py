"""When a failed step runs again, and when the pipeline gives up on it.

The budgets travel with the message, in two headers Celery keeps across its retries, so the
decision never needs the database (which may be what failed):

* ``skillgate-failures``: failures about the submission so far (the git host, the judge, a
  step's time limit). After ``SKILLGATE_STEP_MAX_RETRIES`` retries the step gives up.
* ``skillgate-waiting-since``: when the step first found our own database or broker
  unavailable. It waits — from ``SKILLGATE_INFRA_RETRY_FLOOR_S`` (5 s) doubling up to
  ``SKILLGATE_INFRA_RETRY_MAX_S`` (30 s) between tries, never sooner — for at most
  ``SKILLGATE_INFRA_WAIT_S`` (30 minutes, the pipeline's deadline). A PostgreSQL restart takes
  seconds, a managed failover one to two minutes, a host reboot a few: 30 minutes outlasts each
  several times, and past it the submission's deadline has passed anyway.

Both backoffs are jittered between half and all of their step ("equal jitter"): never 0 s, so
a burst of failures cannot spend a budget in a few seconds, and never in lockstep.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.conf import settings

from pipeline.errors import INFRASTRUCTURE_EXCEPTIONS, SUBMISSION_TRANSIENT_EXCEPTIONS

FAILURES_HEADER = "skillgate-failures"
WAITING_SINCE_HEADER = "skillgate-waiting-since"
SUBMISSION_BACKOFF_MAX_S = 300.0


@dataclass(frozen=True)
class Budget:
    """What a message has spent so far, read from its headers."""

    failures: int = 0
    waiting_since: float | None = None

    @classmethod
    def from_headers(cls, headers: dict | None) -> Budget:
        headers = headers or {}
        since = headers.get(WAITING_SINCE_HEADER)
        return cls(
            failures=int(headers.get(FAILURES_HEADER) or 0),
            waiting_since=float(since) if since is not None else None,
        )

    def headers(self) -> dict[str, object]:
        headers: dict[str, object] = {FAILURES_HEADER: self.failures}
        if self.waiting_since is not None:
            headers[WAITING_SINCE_HEADER] = self.waiting_since
        return headers


@dataclass(frozen=True)
class Decision:
    """Retry after ``countdown`` seconds with the ``budget`` spent so far, or give up."""

    retry: bool
    countdown: float = 0.0
    budget: Budget = Budget()
    why: str = ""


def decide(
    exc: BaseException, budget: Budget, now: float, infra_wait_s: float | None = None
) -> Decision:
    """What to do about ``exc``, raised by a step whose message has spent ``budget``; it waits
    for our infrastructure at most ``infra_wait_s`` (default ``SKILLGATE_INFRA_WAIT_S``)."""
    if isinstance(exc, INFRASTRUCTURE_EXCEPTIONS):
        since = budget.waiting_since if budget.waiting_since is not None else now
        waited = now - since
        limit = settings.SKILLGATE_INFRA_WAIT_S if infra_wait_s is None else infra_wait_s
        if waited >= limit:
            return Decision(False, budget=budget, why=f"infrastructure down for {waited:.0f}s")
        waits = _infra_waits(waited)
        return Decision(True, infra_countdown(waits), Budget(budget.failures, since))
    if isinstance(exc, SUBMISSION_TRANSIENT_EXCEPTIONS):
        failures = budget.failures + 1
        spent = Budget(failures, budget.waiting_since)
        if failures > settings.SKILLGATE_STEP_MAX_RETRIES:
            return Decision(False, budget=spent, why=f"failed {failures} times")
        return Decision(True, submission_countdown(failures), spent)
    return Decision(False, budget=Budget(budget.failures + 1, budget.waiting_since))


def _infra_waits(waited: float) -> int:
    """How many infrastructure retries fit in ``waited`` seconds (for the doubling)."""
    step, total, count = settings.SKILLGATE_INFRA_RETRY_FLOOR_S, 0.0, 0
    while total + step <= waited:
        total += step
        step = min(step * 2, settings.SKILLGATE_INFRA_RETRY_MAX_S)
        count += 1
    return count


def infra_countdown(retries: int) -> float:
    """The floor doubled ``retries`` times, capped, jittered between half and all of it but
    never below the floor."""
    floor = settings.SKILLGATE_INFRA_RETRY_FLOOR_S
    step = min(floor * 2**retries, settings.SKILLGATE_INFRA_RETRY_MAX_S)
    return max(floor, _equal_jitter(step))


def submission_countdown(failures: int) -> float:
    """factor × 2^(failures − 1), capped at 5 minutes, jittered between half and all of it."""
    step = min(settings.SKILLGATE_RETRY_BACKOFF_S * 2 ** (failures - 1), SUBMISSION_BACKOFF_MAX_S)
    return _equal_jitter(step)


def _equal_jitter(step: float) -> float:
    return step / 2 + random.uniform(0, step / 2)
