"""Pipeline records: submissions, their append-only audit trail, scan results, processing
attempts (which step runs where, and how the last one failed) and dead letters."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from pipeline.outcomes import Outcome, OutcomeKind
from pipeline.states import AUTOMATED_STATES, ActorType, State

_AUTOMATED = Q(state__in=sorted(state.value for state in AUTOMATED_STATES))


class Submission(models.Model):
    class SourceKind(models.TextChoices):
        INLINE = "inline"
        GIT = "git"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    state = models.CharField(max_length=20, choices=State.choices, default=State.RECEIVED)
    skill_owner = models.CharField(max_length=100)
    skill_name = models.CharField(
        max_length=64, blank=True, help_text="From SKILL.md; for git, known once fetched."
    )
    source_kind = models.CharField(max_length=8, choices=SourceKind.choices)
    repo_url = models.CharField(
        max_length=500, blank=True, help_text="Rebuilt from (host, owner, repo): what is fetched."
    )
    repo_host = models.CharField(max_length=253, blank=True)
    skill_path = models.CharField(max_length=255, blank=True)
    ref = models.CharField(max_length=255, blank=True)
    resolved_ref = models.CharField(
        max_length=255, blank=True, help_text="The full ref fetched (refs/heads/…, refs/tags/…)."
    )
    resolved_commit = models.CharField(max_length=64, blank=True)
    vendor_org = models.ForeignKey(
        "registry.TrustedOrg",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Set at intake when the source is verified as this organisation's: the tip of "
        "a branch or tag of its repository, submitted by a linked publisher.",
    )
    # No index of its own: submission_by_submitter leads with it. A transition rewrites every
    # index of the row (its state is indexed, so no update is in place): fewer is cheaper.
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="submissions",
        db_index=False,
    )
    bundle = models.ForeignKey(
        "registry.BundleSnapshot",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="submissions",
        help_text="Empty until a git source is fetched by the pipeline's intake step.",
    )
    deadline_at = models.DateTimeField(
        help_text="The automated phase must end by then (30 minutes after submission by "
        "default); past it the submission is rejected with SLA_TIMEOUT."
    )
    outcome_kind = models.CharField(max_length=8, choices=OutcomeKind.choices, blank=True)
    outcome_code = models.CharField(max_length=32, blank=True)
    outcome_message = models.TextField(blank=True)
    published_version = models.ForeignKey(
        "registry.SkillVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="submissions",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    state_changed_at = models.DateTimeField()
    dispatched_at = models.DateTimeField(
        null=True, blank=True, help_text="When the broker confirmed the first step's message."
    )
    recovery_attempts = models.PositiveSmallIntegerField(
        default=0,
        help_text="Times the recovery sweep re-dispatched this submission while stuck; after "
        "3 (by default) it gives up with STUCK_EXHAUSTED.",
    )
    recovery_next_at = models.DateTimeField(
        null=True, blank=True, help_text="No stuck recovery before this (backoff)."
    )

    class Meta:
        ordering = ("-created_at",)
        permissions = [
            ("view_operations", "Can read queue status, pipeline metrics and dead letters"),
        ]
        indexes = [
            models.Index(fields=["submitter", "-created_at"], name="submission_by_submitter"),
            models.Index(
                fields=["state_changed_at"], condition=_AUTOMATED, name="submission_automated_age"
            ),
            models.Index(
                fields=["deadline_at"], condition=_AUTOMATED, name="submission_automated_deadline"
            ),
            models.Index(
                fields=["created_at"],
                condition=Q(state=State.RECEIVED, dispatched_at__isnull=True),
                name="submission_undelivered",
            ),
            # Operator lists, newest first, read a page off an index: unfiltered (and the API's
            # cursor), and under each filter of the admin (see pipeline.admin). Search has a
            # trigram index, PostgreSQL only, made in migration 0014.
            models.Index(fields=["created_at", "id"], name="submission_by_time"),
            models.Index(fields=["state", "created_at"], name="submission_by_state"),
            models.Index(fields=["source_kind", "created_at"], name="submission_by_source"),
            models.Index(fields=["outcome_kind", "created_at"], name="submission_by_outcome"),
        ]

    def __str__(self) -> str:
        return f"{self.skill_owner}/{self.skill_name} [{self.state}] {self.id}"

    @property
    def outcome(self) -> Outcome | None:
        if not self.outcome_kind:
            return None
        return Outcome(self.outcome_kind, self.outcome_code, self.outcome_message)


class AppendOnlyQuerySet(models.QuerySet["SubmissionStateEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise TypeError("audit events are append-only: they cannot be updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("audit events are append-only: they cannot be deleted")


class SubmissionStateEvent(models.Model):
    """One state change. Never updated or deleted, in Python or in PostgreSQL."""

    # No index of its own: event_by_submission leads with it (one index less per event).
    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="events", db_index=False
    )
    # Null for the first event (∅ → RECEIVED): the submission had no state before it.
    from_state = models.CharField(  # noqa: DJ001
        max_length=20, choices=State.choices, null=True, blank=True
    )
    to_state = models.CharField(max_length=20, choices=State.choices)
    trigger = models.CharField(max_length=64)
    actor = models.CharField(max_length=150)
    actor_type = models.CharField(max_length=8, choices=ActorType.choices)
    metadata = models.JSONField(default=dict, blank=True)
    dwell_ms = models.FloatField(
        null=True, blank=True, help_text="Time spent in from_state: the stage's duration."
    )
    # Not auto_now_add: an edge applied together with the next one keeps the time it was
    # decided (transitions.transition_through).
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ("created_at", "id")
        indexes = [
            models.Index(fields=["submission", "created_at"], name="event_by_submission"),
            models.Index(fields=["created_at", "to_state"], name="event_by_time"),
            # The admin's filters and search, newest first, each read off its own index.
            models.Index(fields=["to_state", "created_at"], name="event_by_target"),
            models.Index(fields=["actor_type", "created_at"], name="event_by_actor_type"),
            models.Index(fields=["trigger", "created_at"], name="event_by_trigger"),
            models.Index(fields=["actor", "created_at"], name="event_by_actor"),
        ]

    def __str__(self) -> str:
        return f"{self.from_state or '∅'} → {self.to_state} ({self.trigger})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("audit events are append-only: they cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("audit events are append-only: they cannot be deleted")


class ScanResult(models.Model):
    """A submission's use of a grading result: which result each tier gave this submission.

    The result itself (``registry.GradingResult``) is about the bundle and what graded it; this
    row says the submission got it, and whether it arrived after the submission had already
    been timed out or given up on (late: stored, changing nothing).
    """

    class Tier(models.IntegerChoices):
        TIER1 = 1, "Tier 1 (rules)"
        TIER2 = 2, "Tier 2 (judge)"

    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="scans")
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    result = models.ForeignKey(
        "registry.GradingResult", on_delete=models.PROTECT, related_name="scans"
    )
    is_late = models.BooleanField(
        default=False, help_text="Finished after the submission had already been timed out."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("submission", "tier", "created_at")
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "tier"],
                condition=Q(is_late=False),
                name="one_scan_result_per_tier",
            )
        ]

    def __str__(self) -> str:
        late = " (late)" if self.is_late else ""
        return f"{self.result}{late}"


class ProcessingAttempt(models.Model):
    """One run of one pipeline step on one submission: the in-flight record operators read."""

    class Status(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="attempts")
    stage = models.CharField(max_length=20, choices=State.choices)
    task_name = models.CharField(max_length=64)
    task_id = models.CharField(max_length=64, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempt = models.PositiveSmallIntegerField(default=1, help_text="1 + retries so far.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    error_class = models.CharField(max_length=32, blank=True)
    error_message = models.TextField(blank=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-started_at",)
        indexes = [
            models.Index(fields=["started_at"], name="attempt_by_time"),
            models.Index(
                fields=["submission", "-started_at"],
                condition=Q(status="running"),
                name="attempt_running",
            ),
            # The admin's filters, newest first, each read off its own index.
            models.Index(fields=["status", "started_at"], name="attempt_by_status"),
            models.Index(fields=["stage", "started_at"], name="attempt_by_stage"),
            models.Index(fields=["error_class", "started_at"], name="attempt_by_error_class"),
            models.Index(fields=["task_name", "started_at"], name="attempt_by_task"),
            # A message's deliveries: lost ones (crash loops), and its first for the metrics.
            models.Index(fields=["task_id", "id"], name="attempt_by_task_id"),
        ]

    def __str__(self) -> str:
        return f"{self.task_name} #{self.attempt} {self.status}"


class DeadLetter(models.Model):
    """A message the pipeline gave up on. The broker keeps a copy in ``submission-dlq`` for as
    long as the dead letter is open (the record of last resort: a reconciler makes this row from
    the copy when the database was down at the time); closing it removes the copy, so the
    queue's depth is the number of open dead letters."""

    class Reason(models.TextChoices):
        RETRIES_EXHAUSTED = "retries_exhausted", "Retries exhausted"
        CRASH_LOOP = "crash_loop", "Worker died on it repeatedly"
        POISON = "poison", "Undecodable or unknown message"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        REPLAYED = "replayed", "Replayed"
        DISMISSED = "dismissed", "Dismissed"
        RESOLVED = "resolved", "Resolved (the submission ended)"

    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.PROTECT, related_name="dead_letters"
    )
    task_name = models.CharField(max_length=128, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    stage = models.CharField(max_length=20, blank=True)
    reason = models.CharField(max_length=20, choices=Reason.choices)
    error_class = models.CharField(max_length=32, blank=True)
    error_message = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    payload = models.JSONField(default=dict, blank=True)
    attempts = models.PositiveIntegerField(
        default=0, help_text="Times the step ran on this message before it was given up on."
    )
    message_key = models.CharField(
        max_length=200,
        unique=True,
        null=True,
        blank=True,
        help_text="Identifies the copy in submission-dlq (one row per dead-lettered message).",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(max_length=150, blank=True)
    close_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    replayed_at = models.DateTimeField(null=True, blank=True)
    replayed_by = models.CharField(max_length=150, blank=True)
    replay_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ("-created_at",)
        indexes = [
            # Newest first (the admin and the API's cursor), and the open ones.
            models.Index(fields=["created_at", "id"], name="dead_letter_by_time"),
            models.Index(
                fields=["created_at"], condition=Q(status="open"), name="dead_letter_open"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task_name or 'message'} {self.reason} {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class TimeoutBucket(models.Model):
    """Failures per classification per hour, pre-aggregated with an atomic upsert so the
    metrics read 24 rows a class instead of scanning attempts."""

    hour = models.DateTimeField()
    classification = models.CharField(max_length=32)
    count = models.PositiveIntegerField(default=0)
    total_duration_ms = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hour", "classification"], name="timeout_bucket_key")
        ]
        ordering = ("-hour", "classification")

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H}:00 {self.classification} ×{self.count}"


# --- Figures kept as the data changes --------------------------------------------------------
#
# The operator figures (/metrics, the queue metrics API) read these small tables instead of
# aggregating a million submissions and their events at read time. Each is an exact function of
# the table it summarises, whatever writes that table: on PostgreSQL the table's triggers note
# every change in a log in the statement that makes it, and a fold adds the log to the figures
# (migration 0020; pipeline.rollups folds before it reads); SQLite's triggers count in place
# (migration 0016). A figure may be spread over a few *shards*; only the sum over shards means
# anything (a shard of a count may be negative).


class StateCount(models.Model):
    """Submissions per current state (kept on every insert, state change and delete)."""

    state = models.CharField(max_length=20)
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["state", "shard"], name="state_count_key")]

    def __str__(self) -> str:
        return f"{self.state} ×{self.count} (shard {self.shard})"


class HourlyTransitions(models.Model):
    """Audit events per hour (of ``created_at``, UTC) and target state."""

    hour = models.DateTimeField()
    to_state = models.CharField(max_length=20)
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hour", "to_state", "shard"], name="hourly_transitions_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H}:00 → {self.to_state} ×{self.count}"


class TransitionTotal(models.Model):
    """Audit events per target state, all time."""

    to_state = models.CharField(max_length=20)
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["to_state", "shard"], name="transition_total_key")
        ]

    def __str__(self) -> str:
        return f"→ {self.to_state} ×{self.count}"


class HourlyStageLatency(models.Model):
    """A latency histogram per hour and stage: for each state, the dwell times the events
    leaving it recorded; for ``END_TO_END``, submission to final state of those that finished
    without human review. Buckets are log-spaced (``pipeline.rollups.BUCKET_BOUNDS_MS``)."""

    hour = models.DateTimeField()
    stage = models.CharField(max_length=20)
    bucket = models.PositiveSmallIntegerField()
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hour", "stage", "bucket", "shard"], name="hourly_stage_latency_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H}:00 {self.stage} bucket {self.bucket} ×{self.count}"


class HourlyStepMessages(models.Model):
    """Step messages per hour of their first attempt: distinct task ids, a retry or a
    redelivery of the same message counting once (the job failure rate's denominator)."""

    hour = models.DateTimeField()
    shard = models.PositiveSmallIntegerField()
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hour", "shard"], name="hourly_step_messages_key")
        ]

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H}:00 ×{self.count}"
