"""The review queue in the Django admin: a changelist in queue order with the filters reviewers
need, and a review page with the bundle, both tiers' results, the audit trail and a form for
each action the reviewer may take. The admin only translates: every rule is in reviews.services.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import slugify
from django.utils.timesince import timesince

from config.accounts import signed_in
from config.admin_lists import HistoryListAdmin
from config.roles import is_security
from grading.labels import category_label, privilege_label
from pipeline.transitions import TransitionError
from reviews import appeals, selectors
from reviews.detail import review_page
from reviews.feedback import mark_finding, rule_precision
from reviews.forms import action_form
from reviews.models import Appeal, CannedReason, FindingFeedback, Review, VersionReview
from reviews.rescan_reviews import DecisionUnavailable, decide, decisions_for
from reviews.selectors import open_version_reviews
from reviews.services import ACTIONS, Action, ReviewForbidden

if TYPE_CHECKING:
    from django.contrib.admin.filters import _ListFilterChoices

ACTION_LABELS: dict[Action, str] = {
    Action.ASSIGN: "Assign to a reviewer",
    Action.APPROVE: "Approve and publish",
    Action.REQUEST_CHANGES: "Request changes",
    Action.REJECT: "Reject",
    Action.UNASSIGN: "Unassign",
    Action.ESCALATE: "Escalate to security",
}
ACTION_HELP: dict[Action, str] = {
    Action.ASSIGN: "Moves the submission to Tier 3 review, held by the assignee.",
    Action.APPROVE: "Publishes the skill with the version shown under What changed.",
    Action.REQUEST_CHANGES: "The author is told what to change and submits the skill again.",
    Action.REJECT: "Final, unless the author appeals (once). The reason is sent to the author.",
    Action.UNASSIGN: "Puts the review back in the queue.",
    Action.ESCALATE: "Hands the review to the Security group; only they can decide it then.",
}
APPEAL_DECISIONS = {"grant": appeals.grant, "deny": appeals.deny}


class ChangedByActionsOnly(admin.ModelAdmin):
    """Reviews, re-scan reviews and appeals change only through their services (the page's own
    actions, each audited), never through the admin's add, change or delete forms."""

    actions = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class StateFilter(admin.SimpleListFilter):
    """The submission's state; open reviews (waiting or in review) unless asked otherwise."""

    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(key, label) for key, label in selectors.QUEUE_STATES.items()]

    def choices(self, changelist: Any) -> Iterator[_ListFilterChoices]:
        """Like Django's, with "open" in the place of "All" as the default."""
        current = self.value() or selectors.OPEN
        for key, label in self.lookup_choices:
            yield {
                "selected": current == key,
                "query_string": changelist.get_query_string(
                    {self.parameter_name: key} if key != selectors.OPEN else {},
                    remove=[self.parameter_name],
                ),
                "display": label,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Review]) -> QuerySet[Review]:
        return selectors.in_state(queryset, self.value() or selectors.OPEN)


class AssigneeFilter(admin.SimpleListFilter):
    title = "assignee"
    parameter_name = "assigned"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("me", "Assigned to me"), ("nobody", "Unassigned")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Review]) -> QuerySet[Review]:
        if self.value() == "me":
            return selectors.assigned_to(queryset, signed_in(request.user))
        if self.value() == "nobody":
            return queryset.filter(assignee__isnull=True)
        return queryset


class OverdueFilter(admin.SimpleListFilter):
    title = "due date"
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Overdue")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Review]) -> QuerySet[Review]:
        return selectors.overdue(queryset) if self.value() == "yes" else queryset


class EscalatedFilter(admin.SimpleListFilter):
    title = "escalation"
    parameter_name = "escalated"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Escalated to security"), ("no", "Not escalated")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Review]) -> QuerySet[Review]:
        if self.value() in ("yes", "no"):
            return selectors.escalated(queryset, self.value() == "yes")
        return queryset


class CategoryFilter(admin.SimpleListFilter):
    title = "finding category"
    parameter_name = "category"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(category, category_label(category)) for category in selectors.finding_categories()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Review]) -> QuerySet[Review]:
        value = self.value()
        return selectors.with_category(queryset, value) if value else queryset


@admin.register(Review)
class ReviewAdmin(ChangedByActionsOnly, HistoryListAdmin):
    list_display = (
        "skill",
        "state",
        "due",
        "priority",
        "tier2_score",
        "flags",
        "assignee",
        "submitter",
    )
    list_display_links = ("skill",)
    list_filter = (StateFilter, AssigneeFilter, OverdueFilter, EscalatedFilter, CategoryFilter)
    search_fields = (
        "submission__skill_owner",
        "submission__skill_name",
        "submission__submitter__username",
        "assignee__username",
    )
    search_help_text = "Skill owner or name, author, or assignee."
    sortable_by = ()
    list_per_page = 50
    # No "Show counts": the state filter's counts aggregate every review ever decided, a cost
    # that grows with the history (1.3 s at 100,000 reviews), not with the queue on screen.
    show_facets = admin.ShowFacets.NEVER
    empty_value_display = "—"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Review]:
        return selectors.review_queue()

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        return selectors.QUEUE_ORDERING

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = {
            "title": "Review queue",
            # Re-scan items wait in the same queue, above the submissions, marked "re-scan".
            "rescan_reviews": open_version_reviews(),
            # So do authors' appeals, for Security (who decides them).
            "open_appeals": appeals.open_appeals() if is_security(request.user) else (),
            **(extra_context or {}),
        }
        return super().changelist_view(request, context)

    # --- queue columns (all read from the one joined query and the categories prefetch) ---

    @admin.display(description="skill")
    def skill(self, review: Review) -> str:
        return f"{review.submission.skill_owner}/{review.submission.skill_name}"

    @admin.display(description="state")
    def state(self, review: Review) -> str:
        return format_html(
            '<span class="review-state">{}</span>{}',
            review.submission.state,
            " · escalated" if review.is_escalated else "",
        )

    @admin.display(description="due")
    def due(self, review: Review) -> str:
        """The due day, flagged when overdue, and how long the review has been open."""
        waited = timesince(review.opened_at, review.decided_at or timezone.now())
        return format_html(
            '{}<span class="nowrap">{}</span><br><small title="time in queue">{} in queue</small>',
            format_html('<strong class="review-overdue">{}</strong> ', "OVERDUE")
            if selectors.is_overdue(review)
            else "",
            review.due_at.strftime("%Y-%m-%d"),
            waited,
        )

    @admin.display(description="reasons")
    def flags(self, review: Review) -> str:
        privilege = (
            format_html(
                '<span class="review-flag">high privilege: {}</span> ',
                ", ".join(privilege_label(privilege) for privilege in review.privileges) or "yes",
            )
            if review.high_privilege
            else ""
        )
        categories = format_html_join(
            " ",
            '<span class="review-flag">{} ×{} ({})</span>',
            (
                (category_label(c.category), c.findings, c.worst_severity)
                for c in review.categories.all()
            ),
        )
        return format_html("{}{}", privilege, categories) or "score band"

    @admin.display(description="score")
    def tier2_score(self, review: Review) -> int | None:
        """The Tier 2 score, under a header as narrow as its numbers."""
        return review.score

    @admin.display(description="author")
    def submitter(self, review: Review) -> str:
        return review.submission.submitter.get_username()

    # --- the review page and its actions ---------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<path:object_id>/mark/",
                self.admin_site.admin_view(self.mark_view),
                name="reviews_review_mark",
            ),
            path(
                "rule-precision/",
                self.admin_site.admin_view(self.precision_view),
                name="reviews_rule_precision",
            ),
            path(
                "<path:object_id>/act/<str:action>/",
                self.admin_site.admin_view(self.action_view),
                name="reviews_review_act",
            ),
            path(
                "<path:object_id>/appeal/<str:decision>/",
                self.admin_site.admin_view(self.appeal_view),
                name="reviews_review_appeal",
            ),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        return self._render(request, self._review(request, object_id), {})

    def action_view(self, request: HttpRequest, object_id: str, action: str) -> HttpResponse:
        """POST one action: on success or refusal back to the review page with a message; on
        invalid input the page again, with the form's errors."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        review = self._review(request, object_id)
        try:
            chosen = Action(action)
        except ValueError as unknown:
            raise Http404(f"no action {action!r}") from unknown
        user = signed_in(request.user)
        form = action_form(chosen, review, user, request.POST)
        if form.is_valid():
            try:
                done = ACTIONS[chosen](review.pk, user, **form.arguments())
            except ValidationError as invalid:
                form.add_error(None, invalid)
            except (ReviewForbidden, TransitionError) as refused:
                messages.error(request, f"Could not {chosen}: {refused}")
                return redirect(self._detail_url(review))
            else:
                messages.success(request, _success_message(chosen, done))
                return redirect(self._detail_url(review))
        return self._render(request, review, {chosen: form}, status=400)

    def mark_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST a reviewer's word (and why) on one finding; back to the finding's row, with a
        message saying what was recorded."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        review = self._review(request, object_id)
        try:
            feedback = mark_finding(
                review.pk,
                signed_in(request.user),
                request.POST.get("rule_id", ""),
                request.POST.get("file", ""),
                int(request.POST.get("line", "0") or 0),
                request.POST.get("verdict", ""),
                request.POST.get("reason", ""),
            )
        except (ReviewForbidden, ValidationError, ValueError) as refused:
            messages.error(request, f"Could not mark the finding: {_plain(refused)}")
            return redirect(self._detail_url(review) + "#tier1-findings")
        messages.success(request, _marked_message(feedback))
        return redirect(self._detail_url(review) + f"#{finding_anchor(feedback)}")

    def appeal_view(self, request: HttpRequest, object_id: str, decision: str) -> HttpResponse:
        """POST Security's decision on the author's appeal (grant or deny, with a reason)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        review = self._review(request, object_id)
        if decision not in APPEAL_DECISIONS:
            raise Http404(f"no decision {decision!r}")
        try:
            appeal = APPEAL_DECISIONS[decision](
                review.pk, signed_in(request.user), request.POST.get("reason", "")
            )
        except (ReviewForbidden, ValidationError, TransitionError) as refused:
            messages.error(request, f"Could not {decision} the appeal: {_plain(refused)}")
        else:
            messages.success(request, _appeal_message(appeal))
        return redirect(self._detail_url(review) + "#appeal")

    def precision_view(self, request: HttpRequest) -> HttpResponse:
        """Per-rule precision over the last 90 days, least precise first (operators)."""
        if not request.user.has_perm("reviews.view_findingfeedback"):
            raise PermissionDenied
        return TemplateResponse(
            request,
            "admin/reviews/rule_precision.html",
            {
                **self.admin_site.each_context(request),
                "title": "Rule precision (reviewers' marks, last 90 days)",
                "rules": rule_precision(with_reasons=True),
                "opts": self.model._meta,
            },
        )

    def _review(self, request: HttpRequest, object_id: str) -> Review:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            return selectors.review_queue().get(pk=UUID(object_id))
        except (Review.DoesNotExist, ValueError) as missing:
            raise Http404(f"no review {object_id}") from missing

    def _detail_url(self, review: Review) -> str:
        return reverse("admin:reviews_review_change", args=[review.pk])

    def _render(
        self,
        request: HttpRequest,
        review: Review,
        bound: dict[Action, Form],
        status: int = 200,
    ) -> TemplateResponse:
        user = signed_in(request.user)
        page = review_page(review, user)
        forms = [
            {
                "action": action,
                "label": ACTION_LABELS[action],
                "help": ACTION_HELP[action],
                "form": bound.get(action) or action_form(action, review, signed_in(request.user)),
                "url": reverse("admin:reviews_review_act", args=[review.pk, action.value]),
            }
            for action in page.actions
        ]
        submission = review.submission
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "app_label": self.opts.app_label,
            "title": f"Review of {submission.skill_owner}/{submission.skill_name}",
            "subtitle": str(submission.pk),
            "original": review,
            "page": page,
            "action_forms": forms,
            "action_labels": {action.value: label for action, label in ACTION_LABELS.items()},
            "may_decide_appeal": page.appeal is not None and appeals.may_decide(page.appeal, user),
            "has_view_permission": True,
        }
        return TemplateResponse(
            request, "admin/reviews/review/review_detail.html", context, status=status
        )


def _success_message(action: Action, review: Review) -> str:
    submission = review.submission
    name = f"{submission.skill_owner}/{submission.skill_name}"
    if action == Action.ASSIGN:
        assert review.assignee is not None  # an assignment sets it
        return f"Assigned {name} to {review.assignee.get_username()} for Tier 3 review."
    if action == Action.UNASSIGN:
        return f"Unassigned {name}: it is back in the queue."
    if action == Action.ESCALATE:
        return f"Escalated {name} to security."
    if action == Action.APPROVE:
        assert submission.published_version is not None  # an approval publishes
        return f"Approved {name}: published as version {submission.published_version.version}."
    if action == Action.REQUEST_CHANGES:
        return f"Requested changes to {name}: the author is told what to change."
    return f"Rejected {name}."


def finding_anchor(feedback: FindingFeedback) -> str:
    """The id of a finding's row in the review page's findings table."""
    return f"finding-{slugify(feedback.rule_id)}-{slugify(feedback.file)}-{feedback.line}"


def _marked_message(feedback: FindingFeedback) -> str:
    verdict = (
        "confirmed"
        if feedback.verdict == FindingFeedback.Verdict.CONFIRMED
        else ("as a false positive")
    )
    said = f"Marked {feedback.rule_id} at {feedback.file}:{feedback.line} {verdict}"
    if feedback.reason:
        said += f" ({feedback.reason})"
    return said + ". It counts in the rule's precision."


def _appeal_message(appeal: Appeal) -> str:
    submission = appeal.review.submission
    name = f"{submission.skill_owner}/{submission.skill_name}"
    if appeal.status == Appeal.Status.GRANTED:
        version = submission.published_version
        return (
            f"Appeal granted: {name} is published as version {version.version if version else '?'}."
        )
    return f"Appeal denied: the rejection of {name} stands."


@admin.register(VersionReview)
class VersionReviewAdmin(ChangedByActionsOnly):
    """Published versions a re-scan found worse. The open ones also head the review queue; the
    page shows what the re-scan found and, to Security, the decisions the version allows."""

    list_display = ("version", "severity", "opened_at", "due_at", "decision", "decided_by")
    list_filter = ("severity", "decision")
    list_select_related = ("version__skill", "decided_by")
    search_fields = ("version__skill__owner", "version__skill__name")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("reviews.view_review")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """The re-scan's findings; a POST decides (Security only, reason required)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        review = (
            VersionReview.objects.select_related(
                "version__skill", "rescan__tier1_result", "rescan__tier2_result", "decided_by"
            )
            .filter(pk=object_id)
            .first()
        )
        if review is None:
            raise Http404(f"no re-scan review {object_id}")
        if request.method == "POST":
            decision, reason = request.POST.get("decision", ""), request.POST.get("reason", "")
            try:
                decide(review.pk, signed_in(request.user), decision, reason)
            except (ReviewForbidden, DecisionUnavailable, ValidationError) as refused:
                messages.error(request, f"Could not decide: {_plain(refused)}")
            else:
                label = VersionReview.Decision(decision).label
                messages.success(
                    request, f"{review.version.skill}@{review.version.version}: {label}."
                )
            return redirect(reverse("admin:reviews_versionreview_change", args=[review.pk]))
        findings = (
            review.rescan.tier1_result.tier1_report.findings if review.rescan.tier1_result else ()
        )
        return TemplateResponse(
            request,
            "admin/reviews/versionreview/review.html",
            {
                **self.admin_site.each_context(request),
                "title": f"Re-scan review: {review.version.skill}@{review.version.version}",
                "review": review,
                "findings": findings,
                "decisions": [
                    (value, VersionReview.Decision(value).label) for value in decisions_for(review)
                ]
                if is_security(request.user)
                else [],
                "opts": self.model._meta,
            },
        )


def _plain(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    return str(error)


@admin.register(CannedReason)
class CannedReasonAdmin(admin.ModelAdmin):
    """The reasons reviewers pick when they reject or request changes: Security keeps them
    (the Security group holds add, change and delete; reviewers read them)."""

    list_display = ("title", "action", "position", "active")
    list_filter = ("action", "active")
    list_editable = ("position", "active")
    search_fields = ("title", "text")
    fields = ("action", "title", "text", "position", "active")


@admin.register(Appeal)
class AppealAdmin(ChangedByActionsOnly):
    """Authors' appeals of reviewers' rejections, open ones first. Each is decided on its
    review's page, beside the review it appeals (Security only)."""

    list_display = ("skill", "status", "filed_at", "author", "rejected_by", "decided_by")
    list_filter = ("status",)
    list_select_related = ("review__submission", "review__decided_by", "author", "decided_by")
    search_fields = ("review__submission__skill_owner", "review__submission__skill_name")
    ordering = ("-status", "filed_at")

    @admin.display(description="skill")
    def skill(self, appeal: Appeal) -> str:
        submission = appeal.review.submission
        return format_html(
            '<a href="{}#appeal">{}/{}</a>',
            reverse("admin:reviews_review_change", args=[appeal.pk]),
            submission.skill_owner,
            submission.skill_name,
        )

    @admin.display(description="rejected by")
    def rejected_by(self, appeal: Appeal) -> str:
        decided_by = appeal.review.decided_by
        return decided_by.get_username() if decided_by else "—"

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """An appeal is read and decided on its review's page."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return redirect(reverse("admin:reviews_review_change", args=[object_id]) + "#appeal")
