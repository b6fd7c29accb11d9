"""Registry administration: trusted organisations and their publishers are editable (every
membership change through registry.services, audited); published data is not."""

from __future__ import annotations

from django.contrib import admin

from registry import services
from registry.models import (
    PublisherMembership,
    PublisherMembershipEvent,
    Skill,
    SkillVersion,
    TrustedOrg,
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

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change) -> None:  # type: ignore[no-untyped-def]
        linked = services.link_publisher(obj.org, obj.user, actor=request.user.get_username())
        obj.pk = linked.pk

    def delete_model(self, request, obj) -> None:  # type: ignore[no-untyped-def]
        services.unlink_publisher(obj, actor=request.user.get_username())

    def delete_queryset(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        for membership in queryset.select_related("org", "user"):
            services.unlink_publisher(membership, actor=request.user.get_username())


@admin.register(PublisherMembershipEvent)
class PublisherMembershipEventAdmin(admin.ModelAdmin):
    """The audit trail of publisher links: read only."""

    list_display = ("created_at", "action", "org", "username", "actor")
    list_filter = ("action",)
    search_fields = ("org", "username", "actor")
    readonly_fields = ("created_at", "action", "org", "username", "actor")

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


class VersionInline(admin.TabularInline):
    model = SkillVersion
    fields = ("version", "channel", "bundle", "submission", "published_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
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
    )
    inlines = (VersionInline,)

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        """A record, not a form: published skills change only by publishing."""
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
