"""Registry administration: trusted organisations are editable; published data is not."""

from __future__ import annotations

from django.contrib import admin

from registry.models import Skill, SkillVersion, TrustedOrg


@admin.register(TrustedOrg)
class TrustedOrgAdmin(admin.ModelAdmin):
    list_display = ("name", "note", "created_at")
    search_fields = ("name",)


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
    list_display = ("owner", "name", "origin", "updated_at")
    search_fields = ("owner", "name", "description")
    readonly_fields = (
        "owner",
        "name",
        "origin",
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
