"""Tier 3 review records.

A ``Review`` is opened in the same transaction that moves a submission to NEEDS_REVIEW and is
updated in the same transaction as every later transition, so it never disagrees with the
submission's state. The submission's audit trail says *what happened*; the review says *who
holds it, why it is here and what was decided*, in a shape the queue can filter and sort.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from config.text import normalised
from pipeline.states import State


class Decided(models.Model):
    """Who decided, when and why: the same three facts on a review, a re-scan review and an
    appeal, each written once by its service and never changed again."""

    decision_reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Review(Decided):
    """The human review of one submission that the automated tiers could not settle."""

    class Priority(models.IntegerChoices):
        URGENT = 1, "1 · high-risk findings"
        HIGH = 2, "2 · high privilege"
        NORMAL = 3, "3 · score band"

    class Decision(models.TextChoices):
        APPROVED = "approved"
        REJECTED = "rejected"
        CHANGES_REQUESTED = "changes_requested", "changes requested"

    submission = models.OneToOneField(
        "pipeline.Submission",
        primary_key=True,
        on_delete=models.PROTECT,
        related_name="review",
        help_text="The review is keyed by its submission: one id in the admin, the API and logs.",
    )
    reasons = models.JSONField(
        default=list, help_text="Why the submission needs a person, in the order found."
    )
    score = models.PositiveSmallIntegerField("Tier 2 score", null=True, blank=True)
    high_privilege = models.BooleanField(default=False)
    privileges = models.JSONField(default=list, blank=True)
    priority = models.PositiveSmallIntegerField(
        choices=Priority.choices, default=Priority.NORMAL, help_text="1 is most urgent."
    )
    opened_at = models.DateTimeField()
    due_at = models.DateTimeField(help_text="Opened + the review target in business days.")
    overdue_at = models.DateTimeField(
        null=True, blank=True, help_text="When the SLA sweep found the review past due."
    )

    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assigned_reviews",
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    escalated_at = models.DateTimeField(null=True, blank=True)
    escalated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    escalation_reason = models.TextField(blank=True)

    decision = models.CharField(max_length=20, choices=Decision.choices, blank=True)

    class Meta:
        ordering = ("due_at", "priority")
        verbose_name = "review"
        verbose_name_plural = "reviews"
        permissions = [
            ("act_on_review", "Can assign, unassign, approve, reject and escalate reviews"),
            ("decide_escalated_review", "Can act on reviews escalated to security"),
        ]
        indexes = [
            models.Index(
                fields=["due_at", "priority"],
                condition=Q(decided_at__isnull=True),
                name="review_open_by_due",
            ),
        ]

    def __str__(self) -> str:
        return f"review of {self.submission_id}"

    @property
    def is_open(self) -> bool:
        return self.decided_at is None

    @property
    def is_escalated(self) -> bool:
        return self.escalated_at is not None

    @property
    def status(self) -> str:
        """One word for people: waiting, assigned, escalated, approved, rejected or
        changes_requested."""
        if self.decision:
            return self.decision
        if self.assignee_id is not None:
            return "assigned"
        return "escalated" if self.is_escalated else "waiting"


class ReviewCategory(models.Model):
    """One Tier 1 finding category present in the reviewed bundle, for the queue's filter."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="categories")
    category = models.CharField(max_length=64)
    findings = models.PositiveIntegerField()
    worst_severity = models.CharField(max_length=8)

    class Meta:
        ordering = ("category",)
        constraints = [
            models.UniqueConstraint("review", "category", name="review_category_unique"),
        ]
        indexes = [models.Index(fields=["category"], name="review_category_by_name")]
        verbose_name_plural = "review categories"

    def __str__(self) -> str:
        return f"{self.category} ×{self.findings} ({self.worst_severity})"


class ReviewPeriod(models.Model):
    """One stretch of time a review spent in one queue state, for SLA reporting.

    A new period starts with every review transition and the previous one is closed, so the
    time spent waiting, with each assignee and with the security group adds up exactly to the
    time from opening to decision.
    """

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="periods")
    state = models.CharField(
        max_length=20,
        choices=[(state.value, state.label) for state in (State.NEEDS_REVIEW, State.TIER3_REVIEW)],
    )
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    escalated = models.BooleanField(default=False, help_text="Waiting for the security group.")
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by_action = models.CharField(max_length=16, blank=True)
    ended_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ("started_at", "id")
        constraints = [
            models.UniqueConstraint(
                "review", condition=Q(ended_at__isnull=True), name="one_open_period_per_review"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.state} from {self.started_at:%Y-%m-%d %H:%M}"


class VersionReview(Decided):
    """A published version a re-scan found newly concerning or newly critical (then already
    quarantined): it waits in the review queue, marked "re-scan", for Security to decide.

    Security restores a quarantined version or keeps it quarantined; a concerning one is
    quarantined or kept published. The version's own status changes go through
    ``registry.lifecycle`` and are audited there; this record says why the version is here and
    what was decided.
    """

    class Severity(models.TextChoices):
        CONCERNING = "concerning", "Newly concerning"
        CRITICAL = "critical", "Newly critical (quarantined)"

    class Decision(models.TextChoices):
        RESTORED = "restored", "Restored"
        KEPT_QUARANTINED = "kept_quarantined", "Kept quarantined"
        QUARANTINED = "quarantined", "Quarantined"
        KEPT_PUBLISHED = "kept_published", "Kept published"

    version = models.ForeignKey(
        "registry.SkillVersion", on_delete=models.PROTECT, related_name="rescan_reviews"
    )
    rescan = models.OneToOneField(
        "registry.RescanItem", on_delete=models.PROTECT, related_name="review"
    )
    severity = models.CharField(max_length=10, choices=Severity.choices)
    reasons = models.JSONField(default=list, help_text="What the re-scan found, in sentences.")
    opened_at = models.DateTimeField()
    due_at = models.DateTimeField()
    decision = models.CharField(max_length=16, choices=Decision.choices, blank=True)

    class Meta:
        ordering = ("due_at",)
        verbose_name = "re-scan review"
        constraints = [
            models.UniqueConstraint(
                "version",
                condition=Q(decided_at__isnull=True),
                name="one_open_rescan_review_per_version",
            )
        ]

    def __str__(self) -> str:
        return f"re-scan review of version {self.version_id} ({self.severity})"

    @property
    def is_open(self) -> bool:
        return self.decided_at is None


class FindingFeedback(models.Model):
    """A reviewer's word on one Tier 1 finding of a review: confirmed, or a false positive.

    Per rule over time, it says which rules find real problems and which waste reviewers' time
    (``reviews.feedback.rule_precision``). The latest word of a review on a finding counts.
    """

    class Verdict(models.TextChoices):
        CONFIRMED = "confirmed", "Confirmed"
        FALSE_POSITIVE = "false_positive", "False positive"

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="feedback")
    rule_id = models.CharField(max_length=100)
    file = models.CharField(max_length=255)
    line = models.PositiveIntegerField()
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    reason = models.TextField(
        blank=True, help_text="Why, in the reviewer's words (optional): what the rule got wrong."
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    marked_at = models.DateTimeField()

    class Meta:
        ordering = ("-marked_at",)
        constraints = [
            models.UniqueConstraint(
                "review", "rule_id", "file", "line", name="one_word_per_finding_per_review"
            )
        ]
        indexes = [models.Index(fields=["marked_at", "rule_id"], name="feedback_by_time")]

    def __str__(self) -> str:
        return f"{self.rule_id} at {self.file}:{self.line}: {self.verdict}"


class CannedReason(models.Model):
    """A reason reviewers pick instead of typing it, for rejecting or requesting changes.

    Security keeps the list (add, edit, retire) in the admin; the text is what the author reads,
    so it says what is wrong and what to do, in the registry's own words.
    """

    class Action(models.TextChoices):
        REJECT = "reject", "Reject"
        REQUEST_CHANGES = "request_changes", "Request changes"

    action = models.CharField(max_length=16, choices=Action.choices)
    title = models.CharField(max_length=80, help_text="What reviewers see in the list.")
    text = models.TextField(help_text="What the author reads.")
    position = models.PositiveSmallIntegerField(default=100, help_text="Lower comes first.")
    active = models.BooleanField(default=True, help_text="Retired reasons are not offered.")

    class Meta:
        ordering = ("action", "position", "title")
        verbose_name = "canned reason"
        constraints = [
            models.UniqueConstraint("action", "title", name="canned_reason_title_unique")
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.title}"

    def clean(self) -> None:
        """The text reaches authors like any reason, so the free-text rule applies to it and
        its title (``config.text``); the admin's form calls this."""
        errors: dict[str, list[str]] = {}
        for field in ("title", "text"):
            try:
                setattr(self, field, normalised(getattr(self, field)))
            except ValidationError as invalid:
                errors[field] = invalid.messages
        if errors:
            raise ValidationError(errors)


class Appeal(Decided):
    """An author's appeal of a reviewer's rejection: once per submission, with a reason.

    It waits for the Security group beside the original review (its page shows both), and
    Security grants it (the submission is published, through the audited transitions) or denies
    it (the rejection stands); the decision and its reason are kept here and shown to the
    author. A decided appeal is never changed again.
    """

    class Status(models.TextChoices):
        OPEN = "open"
        GRANTED = "granted"
        DENIED = "denied"

    review = models.OneToOneField(
        Review,
        primary_key=True,
        on_delete=models.PROTECT,
        related_name="appeal",
        help_text="The review whose rejection is appealed (keyed by its submission).",
    )
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    filed_at = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)

    class Meta:
        ordering = ("filed_at",)
        indexes = [
            models.Index(
                fields=["filed_at"], condition=Q(status="open"), name="appeal_open_by_time"
            )
        ]

    def __str__(self) -> str:
        return f"appeal of {self.review_id} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN
