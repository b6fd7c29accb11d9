"""Review API shapes (snake_case JSON)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from config.text import FreeTextField
from reviews import selectors
from reviews.models import Review
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
    assignee = FreeTextField(
        required=False, help_text='A username, or "me"; "none" for unassigned reviews.'
    )
    overdue = serializers.BooleanField(required=False, allow_null=True, default=None)
    escalated = serializers.BooleanField(required=False, allow_null=True, default=None)
    category = FreeTextField(required=False, help_text="A Tier 1 finding category.")


class AssignSerializer(serializers.Serializer):
    assignee = FreeTextField(help_text="Username of the reviewer who will hold it.")


class ReasonSerializer(serializers.Serializer):
    reason = FreeTextField(max_length=REASON_MAX_LENGTH)


class NoteSerializer(serializers.Serializer):
    reason = FreeTextField(
        max_length=REASON_MAX_LENGTH, required=False, allow_blank=True, default=""
    )
