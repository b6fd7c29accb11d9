"""Review API shapes (snake_case JSON)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from reviews import selectors
from reviews.models import Appeal, CannedReason, Review
from reviews.services import REASON_MAX_LENGTH


class ReviewCategorySerializer(serializers.Serializer):
    category = serializers.CharField()
    findings = serializers.IntegerField()
    worst_severity = serializers.CharField()


class ReviewSerializer(serializers.ModelSerializer):
    """A review as reviewers see it, with everything a queue row or a script needs."""

    submission_id = serializers.UUIDField(source="pk")
    submission_url = serializers.SerializerMethodField()
    skill = serializers.SerializerMethodField()
    submitter = serializers.CharField(source="submission.submitter.get_username")
    state = serializers.CharField(source="submission.state")
    status = serializers.CharField()
    overdue = serializers.SerializerMethodField()
    categories = ReviewCategorySerializer(many=True)
    assignee = serializers.SerializerMethodField()
    escalation = serializers.SerializerMethodField()
    decision = serializers.SerializerMethodField()

    class Meta:
        model = Review
        fields = (
            "submission_id", "submission_url", "skill", "submitter", "state", "status",
            "priority", "reasons", "score", "high_privilege", "privileges", "categories",
            "opened_at", "due_at", "overdue", "overdue_at", "assignee", "assigned_at",
            "escalation", "decision",
        )  # fmt: skip

    def get_submission_url(self, review: Review) -> str:
        return reverse("submission-detail", args=[review.pk], request=self.context.get("request"))

    @extend_schema_field(
        {"type": "object", "properties": {"owner": {"type": "string"}, "name": {"type": "string"}}}
    )
    def get_skill(self, review: Review) -> dict[str, str]:
        return {"owner": review.submission.skill_owner, "name": review.submission.skill_name}

    def get_overdue(self, review: Review) -> bool:
        return selectors.is_overdue(review)

    def get_assignee(self, review: Review) -> str | None:
        return review.assignee.get_username() if review.assignee else None

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_escalation(self, review: Review) -> dict[str, Any] | None:
        if not review.is_escalated:
            return None
        return {
            "to": "Security",
            "reason": review.escalation_reason,
            "by": review.escalated_by.get_username() if review.escalated_by else None,
            "at": review.escalated_at,
        }

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_decision(self, review: Review) -> dict[str, Any] | None:
        if not review.decision:
            return None
        return {
            "outcome": review.decision,
            "reason": review.decision_reason,
            "by": review.decided_by.get_username() if review.decided_by else None,
            "at": review.decided_at,
        }


class QueueQuerySerializer(serializers.Serializer):
    """The queue's filters, as query parameters."""

    state = serializers.ChoiceField(
        choices=list(selectors.QUEUE_STATES), default=selectors.OPEN, required=False
    )
    assignee = serializers.CharField(
        required=False, help_text='A username, or "me"; "none" for unassigned reviews.'
    )
    overdue = serializers.BooleanField(required=False, allow_null=True, default=None)
    escalated = serializers.BooleanField(required=False, allow_null=True, default=None)
    category = serializers.CharField(required=False, help_text="A Tier 1 finding category.")


class AssignSerializer(serializers.Serializer):
    assignee = serializers.CharField(help_text="Username of the reviewer who will hold it.")


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=REASON_MAX_LENGTH)


class NoteSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=REASON_MAX_LENGTH, required=False, allow_blank=True, default=""
    )


class DecisionReasonSerializer(serializers.Serializer):
    """The reason of a reject or request-changes: a canned reason's id, words of your own, or
    both (the canned text, then your words). One of the two is required."""

    reason = serializers.CharField(
        max_length=REASON_MAX_LENGTH, required=False, allow_blank=True, default=""
    )
    canned_reason = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="See GET /canned-reasons."
    )


class CannedReasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = CannedReason
        fields = ("id", "action", "title", "text")


class AppealRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=REASON_MAX_LENGTH, help_text="Why the rejection is wrong, for Security."
    )


class AuthorAppealSerializer(serializers.Serializer):
    """An appeal as its author sees it."""

    status = serializers.ChoiceField(choices=Appeal.Status.choices)
    reason = serializers.CharField()
    filed_at = serializers.DateTimeField()
    decision = serializers.JSONField(
        allow_null=True, help_text="{reason, at} once Security decided; null while open."
    )


class AppealSerializer(serializers.ModelSerializer):
    """An appeal as Security sees it, with the decision under appeal."""

    submission_id = serializers.UUIDField(source="pk")
    skill = serializers.SerializerMethodField()
    author = serializers.CharField(source="author.get_username")
    rejection = serializers.SerializerMethodField()
    decided_by = serializers.SerializerMethodField()
    state = serializers.CharField(source="review.submission.state")

    class Meta:
        model = Appeal
        fields = (
            "submission_id", "skill", "author", "reason", "filed_at", "status", "rejection",
            "decision_reason", "decided_by", "decided_at", "state",
        )  # fmt: skip

    @extend_schema_field(
        {"type": "object", "properties": {"owner": {"type": "string"}, "name": {"type": "string"}}}
    )
    def get_skill(self, appeal: Appeal) -> dict[str, str]:
        submission = appeal.review.submission
        return {"owner": submission.skill_owner, "name": submission.skill_name}

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_rejection(self, appeal: Appeal) -> dict[str, Any]:
        review = appeal.review
        return {
            "reason": review.decision_reason,
            "by": review.decided_by.get_username() if review.decided_by else None,
            "at": review.decided_at,
        }

    def get_decided_by(self, appeal: Appeal) -> str | None:
        return appeal.decided_by.get_username() if appeal.decided_by else None
