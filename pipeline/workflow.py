"""The steps of the pipeline, as data: the one list from which the Celery routes, queues and time
limits, the dispatch chain, the states each step may give up from, the stage labels people
read, the time-out classes and the stage latency targets are all derived.

Adding a step means adding one ``Step`` here and its task adapter in ``pipeline/tasks.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.error_classes import ErrorClass
from pipeline.states import State


@dataclass(frozen=True)
class LatencyTarget:
    """How long the stage ``measured`` may take: the published p50 and p95 targets."""

    metric: str
    measured: State
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True)
class Step:
    task: str
    """The Celery task name; the message carries only an id."""
    queue: str
    """The durable queue the step's messages wait in (dead-lettering into submission-dlq)."""
    stage_labels: dict[State, str]
    """The submission states the step works on, each in words for authors and operators. The
    step does nothing in any other state, and gives up (REJECTED, error outcome) only from
    these."""
    timeout_class: ErrorClass
    """What running out of time in this step is called."""
    soft_time_limit_s: int
    time_limit_s: int
    target: LatencyTarget | None = None

    @property
    def stages(self) -> frozenset[State]:
        return frozenset(self.stage_labels)


SCAN = Step(
    task="pipeline.scan",
    queue="submission-pipeline.scan",
    stage_labels={State.RECEIVED: "intake", State.TIER1_SCANNING: "Tier 1 scanning"},
    timeout_class=ErrorClass.SCAN_TIMEOUT,
    soft_time_limit_s=60,
    time_limit_s=90,
    target=LatencyTarget("tier1_scan", State.TIER1_SCANNING, 500, 1_000),
)
JUDGE = Step(
    task="pipeline.judge",
    queue="submission-pipeline.judge",
    stage_labels={State.TIER2_SCANNING: "Tier 2 judging"},
    timeout_class=ErrorClass.JUDGE_TIMEOUT,
    soft_time_limit_s=240,
    time_limit_s=300,
    target=LatencyTarget("tier2_scan", State.TIER2_SCANNING, 15_000, 30_000),
)
PUBLISH = Step(
    task="pipeline.publish",
    queue="submission-pipeline.publish",
    stage_labels={State.AUTO_APPROVED: "publishing", State.VENDOR_APPROVED: "publishing"},
    timeout_class=ErrorClass.SCAN_TIMEOUT,
    soft_time_limit_s=60,
    time_limit_s=90,
    target=LatencyTarget("auto_approve_to_publish", State.AUTO_APPROVED, 5_000, 10_000),
)
RESCAN = Step(
    task="registry.rescan",
    queue="registry.rescan",
    stage_labels={},
    timeout_class=ErrorClass.SCAN_TIMEOUT,
    soft_time_limit_s=120,
    time_limit_s=180,
)

SUBMISSION_STEPS: tuple[Step, ...] = (SCAN, JUDGE, PUBLISH)
"""A submission's chain, in order: one message each."""
ALL_STEPS: tuple[Step, ...] = (*SUBMISSION_STEPS, RESCAN)

STAGE_TARGETS: tuple[LatencyTarget, ...] = tuple(
    step.target for step in SUBMISSION_STEPS if step.target is not None
)
"""The published latency targets per stage (p95 twice the median)…"""
END_TO_END_TARGET = LatencyTarget("end_to_end", State.RECEIVED, 30_000, 60_000)
"""…and from submission to the end of the automated phase."""


def step_named(task: str) -> Step | None:
    return next((step for step in ALL_STEPS if step.task == task), None)


def step_for_stage(state: str) -> Step | None:
    """The submission step that works on ``state`` (None for review and final states)."""
    return next((step for step in SUBMISSION_STEPS if state in step.stages), None)


def steps_from(state: str) -> tuple[Step, ...]:
    """The steps still to run for a submission in ``state`` (none outside automated states)."""
    current = step_for_stage(state)
    return () if current is None else SUBMISSION_STEPS[SUBMISSION_STEPS.index(current) :]


def stage_label(state: str) -> str:
    """The automated stage in words ("Tier 1 scanning"), or the state's own name."""
    step = step_for_stage(state)
    return step.stage_labels[State(state)] if step is not None else State(state).label
