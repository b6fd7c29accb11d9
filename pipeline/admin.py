"""Operator views of the pipeline: records, not forms.

Every page here is read-only (Django's view-only pages, without Save buttons): states change
only through pipeline services, reviewers act in the review queue, and the operator's actions on
dead letters (replay, dismiss with a reason, resolve) are admin actions that call the
dead-letter service.

The lists run over tables that grow with history (a million submissions, five million audit
events): each page, filter and search reads an index (pipeline.models) and counts within
bounds (config.admin_lists), and only indexed columns sort.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from config.admin_lists import HistoryListAdmin, IndexedValuesFilter
from pipeline import selectors
from pipeline.models import (
    DeadLetter,
    ProcessingAttempt,
    ScanResult,
    Submission,
    SubmissionStateEvent,
)
from pipeline.presentation import event_details, short_id, yes_no
from pipeline.services import dead_letters
from registry.presentation import produced_by

_MEDIA_CSS = {"all": ("pipeline/admin.css",)}
ERROR_SHOWN = 160
"""Characters of an attempt's error shown in the list."""


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    empty_value_display = "—"
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class EventInline(ReadOnlyInline):
    model = SubmissionStateEvent
    verbose_name_plural = "audit trail"
    fields = ("created_at", "from_state", "to_state", "trigger", "actor_with_type", "details")
    readonly_fields = fields
    ordering = ("created_at", "id")

    @admin.display(description="actor")
    def actor_with_type(self, event: SubmissionStateEvent) -> str:
        return f"{event.actor} ({event.actor_type})"

    @admin.display(description="details")
    def details(self, event: SubmissionStateEvent) -> str:
        return event_details_html(event.metadata)


class ScanInline(ReadOnlyInline):
    """Each tier's verdict with what produced it: the rule catalogue, the judge, the policy."""

    model = ScanResult
    fields = ("tier", "verdict", "score", "decision", "produced_by", "duration", "late")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[ScanResult]:
        return super().get_queryset(request).select_related("result")

    @admin.display(description="verdict")
    def verdict(self, scan: ScanResult) -> str:
        return scan.result.verdict

    @admin.display(description="score")
    def score(self, scan: ScanResult) -> str:
        return "—" if scan.result.score is None else str(scan.result.score)

    @admin.display(description="decision")
    def decision(self, scan: ScanResult) -> str:
        return scan.result.decision or "—"

    @admin.display(description="produced by")
    def produced_by(self, scan: ScanResult) -> str:
        return produced_by(scan.result)

    @admin.display(description="took")
    def duration(self, scan: ScanResult) -> str:
        return f"{scan.result.duration_ms:.1f} ms"

    @admin.display(description="late")
    def late(self, scan: ScanResult) -> str:
        """Words, not Django's red-cross icon: "no" is the normal case, not an error."""
        return yes_no(scan.is_late)


class AttemptInline(ReadOnlyInline):
    model = ProcessingAttempt
    fields = (
        "started_at",
        "stage",
        "task_name",
        "attempt",
        "status",
        "error_class",
        "error_message",
        "worker",
        "finished_at",
    )
    readonly_fields = fields


class ReadOnlyAdmin(HistoryListAdmin):
    """Viewing needs the model's view (or change) permission, as Django's defaults have it;
    nobody adds, edits or deletes these records in the admin."""

    empty_value_display = "—"

    class Media:
        css = _MEDIA_CSS

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class SubmissionColumn:
    """A list column for records that belong to a submission (``list_select_related``)."""

    @admin.display(description="submission", ordering="submission__created_at")
    def submission_link(self, record: Any) -> str:
        """The skill and the short id, linked to the submission's page; full id on hover."""
        submission = record.submission
        if submission is None:
            return "—"
        return format_html(
            '<a href="{}" title="{}">{}/{} · {}</a>',
            reverse("admin:pipeline_submission_change", args=[submission.pk]),
            submission.pk,
            submission.skill_owner,
            submission.skill_name,
            short_id(submission.pk),
        )


class ProgressFilter(admin.SimpleListFilter):
    """Automated submissions that stopped moving: stale (a warning) or stuck (the sweep acts)."""

    title = "progress"
    parameter_name = "progress"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        stale_minutes = int(selectors.STALE_AFTER.total_seconds() // 60)
        stuck_minutes = int(selectors.stuck_after().total_seconds() // 60)
        return [
            ("stale", f"Stale (no progress for {stale_minutes}+ minutes)"),
            ("stuck", f"Stuck ({stuck_minutes}+ minutes: recovery sweep acts)"),
        ]

    def queryset(
        self, request: HttpRequest, queryset: QuerySet[Submission]
    ) -> QuerySet[Submission]:
        now = timezone.now()
        if self.value() == "stale":
            return queryset & selectors.stale_submissions(now)
        if self.value() == "stuck":
            return queryset & selectors.stuck_submissions(now)
        return queryset


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = (
        "short_id",
        "skill",
        "state",
        "outcome_code",
        "submitter",
        "created_at",
    )
    list_display_links = ("short_id",)
    list_filter = (
        ProgressFilter,
        "state",
        "source_kind",
        "outcome_kind",
        ("created_at", admin.DateFieldListFilter),
    )
    search_fields = ("id", "skill_owner", "skill_name", "repo_url", "submitter__username")
    search_help_text = "Submission id (or its first characters), skill, repository or author."
    list_select_related = ("submitter",)
    sortable_by = ("short_id", "created_at")
    inlines = (EventInline, ScanInline, AttemptInline)
    readonly_fields = (
        "id",
        "state",
        "progress",
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

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Submission], search_term: str
    ) -> tuple[QuerySet[Submission], bool]:
        return selectors.search_submissions(queryset, search_term), False

    @admin.display(description="id", ordering="id")
    def short_id(self, submission: Submission) -> str:
        return format_html('<span title="{}">{}</span>', submission.pk, short_id(submission.pk))

    @admin.display(description="skill", ordering="skill_owner")
    def skill(self, submission: Submission) -> str:
        return f"{submission.skill_owner}/{submission.skill_name}"

    @admin.display(description="progress")
    def progress(self, submission: Submission) -> str:
        """Stale (the author sees a warning) or stuck (the recovery sweep acts), or nothing."""
        now = timezone.now()
        warning = selectors.staleness(submission, now)
        if warning is None:
            return self.empty_value_display
        since = f"{submission.state_changed_at:%Y-%m-%d %H:%M:%S}"
        if selectors.is_stuck(submission, now):
            return (
                f"Stuck since {since}: the recovery sweep re-dispatches it "
                f"({submission.recovery_attempts} of {settings.SKILLGATE_RECOVERY_MAX_TRIES} "
                "tries used)."
            )
        return f"Stale since {since}. The author sees: {warning['message']}."


@admin.register(SubmissionStateEvent)
class SubmissionStateEventAdmin(SubmissionColumn, ReadOnlyAdmin):
    list_display = (
        "created_at",
        "submission_link",
        "from_state",
        "to_state",
        "trigger",
        "actor",
        "actor_type",
    )
    list_filter = ("to_state", "actor_type", ("trigger", IndexedValuesFilter))
    search_fields = ("submission__id", "actor")
    search_help_text = "Submission id (or its first characters), or the actor exactly."
    list_select_related = ("submission",)
    ordering = ("-created_at", "-id")
    sortable_by = ("created_at",)
    readonly_fields = (
        "created_at",
        "submission",
        "from_state",
        "to_state",
        "trigger",
        "actor",
        "actor_type",
        "details",
        "dwell_ms",
    )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[SubmissionStateEvent], search_term: str
    ) -> tuple[QuerySet[SubmissionStateEvent], bool]:
        return selectors.search_events(queryset, search_term), False

    @admin.display(description="details")
    def details(self, event: SubmissionStateEvent) -> str:
        return event_details_html(event.metadata)


@admin.register(ProcessingAttempt)
class ProcessingAttemptAdmin(SubmissionColumn, ReadOnlyAdmin):
    """Step attempts, newest first; a failed one says why in the list (the admin home links
    here per failure class: what failed and why, one click from home)."""

    list_display = (
        "started_at",
        "submission_link",
        "stage",
        "task_name",
        "attempt",
        "status",
        "error_class",
        "error",
        "worker",
    )
    list_filter = (
        "status",
        "stage",
        ("error_class", IndexedValuesFilter),
        ("task_name", IndexedValuesFilter),
    )
    list_select_related = ("submission",)
    sortable_by = ("started_at",)

    @admin.display(description="error")
    def error(self, attempt: ProcessingAttempt) -> str:
        """The error's first line (the whole message on hover and on the attempt's page)."""
        if not attempt.error_message:
            return "—"
        first = attempt.error_message.strip().splitlines()[0]
        shown = first if len(first) <= ERROR_SHOWN else f"{first[: ERROR_SHOWN - 1]}…"
        return format_html('<span title="{}">{}</span>', attempt.error_message, shown)


class DismissForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=2000,
        help_text="Why these dead letters need nothing more (kept with each).",
    )


@admin.register(DeadLetter)
class DeadLetterAdmin(SubmissionColumn, ReadOnlyAdmin):
    list_display = (
        "created_at",
        "status",
        "reason",
        "task_name",
        "submission_link",
        "stage",
        "error_class",
        "attempts",
        "replayed",
    )
    list_filter = (
        "status",
        "reason",
        "error_class",
        "task_name",
    )
    search_fields = ("submission__id", "task_id", "error_message")
    list_select_related = ("submission",)
    readonly_fields = (
        "created_at",
        "status",
        "closed_at",
        "closed_by",
        "close_reason",
        "reason",
        "task_name",
        "task_id",
        "submission",
        "stage",
        "error_class",
        "error_message",
        "attempts",
        "traceback",
        "payload",
        "message_key",
        "replay_count",
        "replayed_at",
        "replayed_by",
    )
    actions = ("replay_selected", "dismiss_selected", "resolve_selected")

    @admin.display(description="replayed", ordering="replayed_at")
    def replayed(self, letter: DeadLetter) -> str:
        """How often, and when last: one column instead of two."""
        if not letter.replay_count or letter.replayed_at is None:
            return "—"
        return format_html(
            '{}× <span class="nowrap">{}</span>',
            letter.replay_count,
            f"{letter.replayed_at:%Y-%m-%d %H:%M:%S}",
        )

    @admin.action(
        description="Replay: resume each submission from its current state",
        permissions=["replay"],
    )
    def replay_selected(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        results = []
        for letter in queryset.select_related("submission"):
            try:
                results.append(dead_letters.replay(letter, actor=request.user.get_username()))
            except Exception as exc:
                self.message_user(
                    request, f"#{letter.pk}: broker unavailable ({exc})", messages.ERROR
                )
                break
        self._report(request, "replayed", results)

    @admin.action(
        description="Dismiss with a reason: close without acting",
        permissions=["replay"],
    )
    def dismiss_selected(
        self, request: HttpRequest, queryset: QuerySet[DeadLetter]
    ) -> TemplateResponse | None:
        form = DismissForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return TemplateResponse(
                request,
                "admin/pipeline/deadletter/dismiss.html",
                {
                    **self.admin_site.each_context(request),
                    "title": "Dismiss dead letters",
                    "letters": list(queryset),
                    "form": form,
                    "opts": self.model._meta,
                },
            )
        actor = request.user.get_username()
        reason = form.cleaned_data["reason"]
        self._report(
            request,
            "dismissed",
            [dead_letters.dismiss(letter, actor, reason) for letter in queryset],
        )
        return None

    @admin.action(
        description="Resolve: close those whose submission has ended",
        permissions=["replay"],
    )
    def resolve_selected(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        actor = request.user.get_username()
        self._report(
            request,
            "resolved",
            [
                dead_letters.resolve(letter, actor)
                for letter in queryset.select_related("submission")
            ],
        )

    def _report(
        self, request: HttpRequest, verb: str, results: list[dead_letters.ActionResult]
    ) -> None:
        """One line per dead letter, saying what was done or why nothing was, and a summary that
        is an error when nothing could be done."""
        done = sum(result.done for result in results)
        for result in results:
            level = messages.SUCCESS if result.done else messages.WARNING
            self.message_user(request, f"#{result.dead_letter_id}: {result.message}", level)
        level = messages.SUCCESS if done else messages.ERROR
        self.message_user(request, f"{verb} {done} of {len(results)} dead letter(s)", level)

    def has_replay_permission(self, request: HttpRequest) -> bool:
        """Acting on dead letters needs their change permission (operators hold it), although
        the record itself is never edited."""
        return request.user.has_perm("pipeline.change_deadletter")


def event_details_html(metadata: dict[str, Any]) -> str:
    """An audit event's details, one per line, wrapping inside their cell."""
    details = event_details(metadata)
    if not details:
        return "—"
    return format_html_join(
        "",
        '<span class="event-detail"><span class="event-detail-key">{}</span> {}</span>',
        details,
    )
