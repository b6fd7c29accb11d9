"""Operator views of the pipeline. Everything here is read-only: states change only through
pipeline services (reviewers act in the review queue)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from pipeline.models import (
    DeadLetter,
    ProcessingAttempt,
    ScanResult,
    Submission,
    SubmissionStateEvent,
)
from pipeline.selectors import STALE_AFTER, staleness
from pipeline.services.dead_letters import replay
from pipeline.states import AUTOMATED_STATES


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_replay_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return request.user.has_perm("pipeline.change_deadletter")


class EventInline(ReadOnlyInline):
    model = SubmissionStateEvent
    fields = ("created_at", "from_state", "to_state", "trigger", "actor", "actor_type", "metadata")
    readonly_fields = fields
    ordering = ("created_at", "id")


class ScanInline(ReadOnlyInline):
    model = ScanResult
    fields = ("tier", "verdict", "score", "engine", "engine_version", "duration_ms", "is_late")
    readonly_fields = fields


class AttemptInline(ReadOnlyInline):
    model = ProcessingAttempt
    fields = (
        "started_at",
        "task_name",
        "attempt",
        "status",
        "error_class",
        "worker",
        "finished_at",
    )
    readonly_fields = fields


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_replay_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return request.user.has_perm("pipeline.change_deadletter")

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


class StuckFilter(admin.SimpleListFilter):
    """Automated submissions without progress for the staleness threshold (seed 001)."""

    title = "progress"
    parameter_name = "progress"

    def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
        return (("stuck", "Stuck (no progress for 3+ minutes)"),)

    def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        if self.value() == "stuck":
            return queryset.filter(
                state__in=sorted(AUTOMATED_STATES),
                state_changed_at__lt=timezone.now() - STALE_AFTER,
            )
        return queryset


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "skill_owner",
        "skill_name",
        "state",
        "outcome_code",
        "submitter",
        "created_at",
    )
    list_filter = (StuckFilter, "state", "source_kind", "outcome_kind")
    search_fields = ("id", "skill_owner", "skill_name", "repo_url", "submitter__username")
    list_select_related = ("submitter",)
    date_hierarchy = "created_at"
    inlines = (EventInline, ScanInline, AttemptInline)
    readonly_fields = (
        "id",
        "state",
        "staleness_warning",
        "recovery_attempts",
        "recovery_next_at",
        "skill_owner",
        "skill_name",
        "source_kind",
        "repo_url",
        "repo_host",
        "skill_path",
        "ref",
        "resolved_ref",
        "resolved_commit",
        "vendor_org",
        "submitter",
        "bundle",
        "deadline_at",
        "outcome_kind",
        "outcome_code",
        "outcome_message",
        "published_version",
        "created_at",
        "updated_at",
        "state_changed_at",
        "dispatched_at",
    )

    @admin.display(description="staleness")
    def staleness_warning(self, submission: Submission) -> str:
        warning = staleness(submission, timezone.now())
        if warning is None:
            return "—"
        return f"{warning['message']} (since {warning['stale_since']:%Y-%m-%d %H:%M:%S} UTC)"


@admin.register(SubmissionStateEvent)
class SubmissionStateEventAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "submission",
        "from_state",
        "to_state",
        "trigger",
        "actor",
        "actor_type",
    )
    list_filter = ("to_state", "actor_type", "trigger")
    search_fields = ("submission__id", "actor", "trigger")
    list_select_related = ("submission",)


@admin.register(ProcessingAttempt)
class ProcessingAttemptAdmin(ReadOnlyAdmin):
    list_display = (
        "started_at",
        "submission",
        "task_name",
        "attempt",
        "status",
        "error_class",
        "worker",
    )
    list_filter = ("status", "error_class", "task_name")
    list_select_related = ("submission",)


@admin.register(DeadLetter)
class DeadLetterAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "reason",
        "task_name",
        "submission",
        "stage",
        "error_class",
        "replay_count",
        "replayed_at",
    )
    list_filter = (
        "reason",
        "error_class",
        "task_name",
        ("replayed_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("submission__id", "task_id", "error_message")
    list_select_related = ("submission",)
    readonly_fields = (
        "created_at",
        "reason",
        "task_name",
        "task_id",
        "submission",
        "stage",
        "error_class",
        "error_message",
        "traceback",
        "payload",
        "replay_count",
        "replayed_at",
        "replayed_by",
    )
    actions = ("replay_selected",)

    @admin.action(
        description="Replay: resume each submission from its current state",
        permissions=["replay"],
    )
    def replay_selected(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        for letter in queryset.select_related("submission"):
            try:
                result = replay(letter, actor=request.user.get_username())
            except Exception as exc:
                self.message_user(
                    request, f"#{letter.pk}: broker unavailable ({exc})", messages.ERROR
                )
                return
            level = messages.SUCCESS if result.replayed else messages.WARNING
            self.message_user(request, f"#{letter.pk}: {result.message}", level)

    def has_replay_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return request.user.has_perm("pipeline.change_deadletter")
