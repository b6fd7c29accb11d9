"""Registry administration: trusted organisations and their publishers are editable (every
membership change through registry.services, audited); published data is not, except a
version's status, changed with buttons on the version's page through ``registry.lifecycle``
(quarantine and restore for Security, yank and unyank for the skill's owner), each shown only to
those allowed."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from config.admin_lists import HistoryListAdmin
from config.roles import is_security
from registry import lifecycle, rescans, selectors, services
from registry.models import (
    PublisherMembership,
    PublisherMembershipEvent,
    RescanCampaign,
    RescanItem,
    Skill,
    SkillVersion,
    TrustedOrg,
    VersionEvent,
)


@admin.register(TrustedOrg)
class TrustedOrgAdmin(admin.ModelAdmin):
    list_display = ("host", "name", "note", "created_at")
    list_filter = ("host",)
    search_fields = ("host", "name")


@admin.register(PublisherMembership)
class PublisherMembershipAdmin(admin.ModelAdmin):
    """Link an account to a trusted organisation (its submissions may then take the vendor
    path) or unlink it. Links are added or deleted, never edited."""

    list_display = ("org", "user", "linked_by", "created_at")
    list_filter = ("org",)
    search_fields = ("user__username", "org__name")
    autocomplete_fields = ("user",)
    fields = ("org", "user")

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change) -> None:
        linked = services.link_publisher(obj.org, obj.user, actor=request.user.get_username())
        obj.pk = linked.pk

    def delete_model(self, request, obj) -> None:
        services.unlink_publisher(obj, actor=request.user.get_username())

    def delete_queryset(self, request, queryset) -> None:
        for membership in queryset.select_related("org", "user"):
            services.unlink_publisher(membership, actor=request.user.get_username())


@admin.register(PublisherMembershipEvent)
class PublisherMembershipEventAdmin(admin.ModelAdmin):
    """The audit trail of publisher links: read only."""

    list_display = ("created_at", "action", "org", "username", "actor")
    list_filter = ("action",)
    search_fields = ("org", "username", "actor")
    readonly_fields = ("created_at", "action", "org", "username", "actor")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# A skill's page lists its newest versions; the versions list has every one.
VERSIONS_ON_A_SKILLS_PAGE = 50


class NewestVersionsFormSet(BaseInlineFormSet):
    """The newest versions only, so a skill's page costs the same with five versions or five
    thousand."""

    def get_queryset(self) -> QuerySet[SkillVersion]:
        if not hasattr(self, "_newest"):
            self._newest = super().get_queryset()[:VERSIONS_ON_A_SKILLS_PAGE]
        return self._newest


class VersionInline(admin.TabularInline):
    model = SkillVersion
    formset = NewestVersionsFormSet
    verbose_name_plural = "newest versions"
    fields = ("version", "status", "channel", "bundle", "submission", "published_at")
    readonly_fields = fields
    show_change_link = True
    extra = 0
    can_delete = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[SkillVersion]:
        """Each row's skill (its name links the row), bundle and submission in the same query,
        not three more per version; and not the bundle's files, which the row does not show."""
        return (
            super()
            .get_queryset(request)
            .select_related("skill", "bundle", "submission")
            .defer("bundle__files", "bundle__manifest")
        )

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    list_display = ("owner", "name", "origin", "host", "updated_at")
    search_fields = ("owner", "name", "description")
    readonly_fields = (
        "owner",
        "name",
        "origin",
        "host",
        "owner_account",
        "description",
        "created_at",
        "updated_at",
        "all_versions",
    )
    inlines = (VersionInline,)

    @admin.display(description="versions")
    def all_versions(self, skill: Skill) -> str:
        """How many versions the skill has, linked to the versions list showing them all."""
        count = skill.versions.count()
        return format_html(
            '<a href="{}?skill__id__exact={}">all {} version{}</a>',
            reverse("admin:registry_skillversion_changelist"),
            skill.pk,
            count,
            "" if count == 1 else "s",
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        """A record, not a form: published skills change only by publishing."""
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


ACTION_LABELS: dict[str, str] = {
    lifecycle.Action.QUARANTINE: "Quarantine",
    lifecycle.Action.RESTORE: "Restore",
    lifecycle.Action.YANK: "Yank",
    lifecycle.Action.UNYANK: "Unyank",
}
ACTION_HELP: dict[str, str] = {
    lifecycle.Action.QUARANTINE: "Hide this version, refuse its archive and publish an advisory "
    "with your reason.",
    lifecycle.Action.RESTORE: "Lift the quarantine after review; your reason is published in "
    "the advisory.",
    lifecycle.Action.YANK: "Never offered as latest again; still installable by its number.",
    lifecycle.Action.UNYANK: "Offer this version again.",
}


class VersionEventInline(admin.TabularInline):
    """The version's audit trail, oldest first: read only."""

    model = VersionEvent
    fields = ("created_at", "action", "from_status", "to_status", "actor", "actor_type", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True


@admin.register(SkillVersion)
class SkillVersionAdmin(HistoryListAdmin):
    """Versions, read only, with their audit trail and the status actions the user may take.
    The list reads an index in its order (skill, newest first), under each filter too."""

    list_display = ("__str__", "status", "channel", "published_at", "status_changed_at")
    list_filter = ("status", "channel")
    search_fields = ("skill__owner", "skill__name", "version")
    list_select_related = ("skill",)
    sortable_by = ()
    fields = (
        "skill",
        "version",
        "status",
        "status_reason",
        "status_changed_at",
        "channel",
        "bundle",
        "submission",
        "submitter",
        "published_at",
    )
    readonly_fields = fields
    inlines = (VersionEventInline,)
    change_form_template = "admin/registry/skillversion/change_form.html"
    actions = ("rescan_selected",)

    @admin.action(
        description="Re-scan the selected versions with today's rules and judge",
        permissions=["start_rescan"],
    )
    def rescan_selected(self, request: HttpRequest, queryset: Any) -> HttpResponse:
        scope = rescans.RescanScope(version_ids=tuple(queryset.values_list("pk", flat=True)))
        campaign = rescans.start_campaign(scope, request.user.get_username())
        messages.success(request, f"Re-scan started: {campaign.total} version(s).")
        return redirect(reverse("admin:registry_rescancampaign_change", args=[campaign.pk]))

    def has_start_rescan_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("registry.start_rescan")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_security(request.user) or super().has_module_permission(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_security(request.user) or super().has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[SkillVersion], search_term: str
    ) -> tuple[QuerySet[SkillVersion], bool]:
        return selectors.search_versions(queryset, search_term), False

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<path:object_id>/status/<str:action>/",
                self.admin_site.admin_view(self.status_view),
                name="registry_skillversion_status",
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
        version = self.get_object(request, object_id)
        actions = (
            lifecycle.allowed_actions(version, lifecycle.Actor.account(request.user))
            if version is not None
            else []
        )
        status_actions = [
            {
                "action": action,
                "label": ACTION_LABELS[action],
                "help": ACTION_HELP[action],
                "reason_required": action in lifecycle.REASON_REQUIRED,
                "url": reverse("admin:registry_skillversion_status", args=[object_id, action]),
            }
            for action in actions
        ]
        return super().change_view(
            request,
            object_id,
            form_url,
            {
                **(extra_context or {}),
                "status_actions": status_actions,
                # A quarantine withholds these files: the page lists them beside the action.
                "version_files": version.bundle.as_bundle().files if version is not None else (),
            },
        )

    def status_view(self, request: HttpRequest, object_id: str, action: str) -> HttpResponse:
        """POST one status change with the reason typed on the page; back to the version with
        a message saying what happened or why not."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if action not in ACTION_LABELS:
            raise Http404(f"no action {action!r}")
        if not self.has_view_permission(request):
            raise PermissionDenied
        version = get_object_or_404(SkillVersion, pk=object_id)
        try:
            lifecycle.change_status(
                version.pk,
                action,
                lifecycle.Actor.account(request.user),
                request.POST.get("reason", ""),
            )
        except ValidationError as invalid:
            messages.error(request, f"Could not {action} {version}: {' '.join(invalid.messages)}")
        except (lifecycle.VersionActionForbidden, lifecycle.VersionStatusError) as refused:
            messages.error(request, f"Could not {action} {version}: {refused}")
        else:
            version.refresh_from_db()
            messages.success(request, f"Done: {version} is now {version.status}.")
        return redirect(reverse("admin:registry_skillversion_change", args=[version.pk]))


class RescanScopeForm(forms.Form):
    """What to re-scan: everything published, one owner's skills, or what was published since
    a day. (Chosen versions are re-scanned from the versions list's action.)"""

    owner = forms.CharField(required=False, help_text="Only this owner's skills.")
    since = forms.DateField(
        required=False, help_text="Only versions published on or after this day (YYYY-MM-DD)."
    )

    def scope(self) -> rescans.RescanScope:
        return rescans.RescanScope(
            owner=self.cleaned_data["owner"].strip(), since=self.cleaned_data["since"]
        )


@admin.register(RescanCampaign)
class RescanCampaignAdmin(admin.ModelAdmin):
    """Campaigns with their progress; "Add" starts one (operators with the permission)."""

    list_display = ("short_id", "status", "scope", "progress", "eta", "started_by", "started_at")
    list_filter = ("status",)
    fields = readonly_fields = (
        "id",
        "status",
        "scope",
        "catalogue_version",
        "judge_version",
        "progress",
        "eta",
        "started_by",
        "started_at",
        "progressed_at",
        "finished_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("registry.start_rescan")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Start a campaign: the scope form, then the new campaign's page."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = RescanScopeForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            campaign = rescans.start_campaign(form.scope(), request.user.get_username())
            messages.success(request, f"Re-scan started: {campaign.total} version(s).")
            return redirect(reverse("admin:registry_rescancampaign_change", args=[campaign.pk]))
        return TemplateResponse(
            request,
            "admin/registry/rescancampaign/start.html",
            {
                **self.admin_site.each_context(request),
                "title": "Start a re-scan",
                "form": form,
                "opts": self.model._meta,
            },
        )

    @admin.display(description="campaign")
    def short_id(self, campaign: RescanCampaign) -> str:
        return format_html('<span title="{}">{}</span>', campaign.pk, str(campaign.pk)[:8])

    @admin.display(description="progress")
    def progress(self, campaign: RescanCampaign) -> str:
        return (
            f"{campaign.done + campaign.failed}/{campaign.total} re-scanned · "
            f"{campaign.changed} worse · {campaign.failed} failed"
        )

    @admin.display(description="time left")
    def eta(self, campaign: RescanCampaign) -> str:
        left = rescans.progress(campaign).eta
        return "—" if left is None else f"about {max(1, round(left.total_seconds()))} s"


@admin.register(RescanItem)
class RescanItemAdmin(admin.ModelAdmin):
    list_display = ("version", "campaign", "status", "outcome", "finished_at")
    list_filter = ("status", "outcome")
    list_select_related = ("version__skill",)
    search_fields = ("campaign__id", "version__skill__owner", "version__skill__name")
    readonly_fields = (
        "campaign",
        "version",
        "status",
        "outcome",
        "previous_tier1",
        "previous_tier2",
        "tier1_result",
        "tier2_result",
        "error",
        "finished_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
