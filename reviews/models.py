"""Tier 3 review records."""

from __future__ import annotations

from django.db import models


class Review(models.Model):
    """The human review of one submission that the judge could not settle on its own."""

    submission = models.OneToOneField(
        "pipeline.Submission", on_delete=models.PROTECT, related_name="review"
    )
    reasons = models.JSONField(default=list)
    priority = models.PositiveSmallIntegerField(default=3, help_text="1 is most urgent.")
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("due_at", "priority")

    def __str__(self) -> str:
        return f"review of {self.submission_id}"
