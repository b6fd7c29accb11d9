"""The admin site under Skillgate's own name: reviewers and operators work in it all day.

Its home opens, for operators, on the system's health (pipeline.operator_home), and lists the
pipeline first: the section an operator goes to is above the fold on a 1366×768 screen.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

APP_ORDER = ("pipeline", "reviews", "registry")
"""Sections of the home page in this order; the others follow, alphabetically as Django has
them."""


class SkillgateAdminSite(admin.AdminSite):
    """Without Django's navigation sidebar: on a 1366 px screen it took a third of the width
    from the lists and review pages; the index and the breadcrumbs lead everywhere it did."""

    site_header = "Skillgate administration"
    site_title = "Skillgate administration"
    index_title = "Submissions, reviews and the registry"
    enable_nav_sidebar = False

    def index(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> TemplateResponse:
        # Imported here: the site is built while the apps load, before models can be imported.
        from pipeline.operator_home import health_panel, may_see_health

        context = dict(extra_context or {})
        if may_see_health(request.user):
            context["health"] = health_panel(request.user, timezone.now())
        return super().index(request, context)

    def get_app_list(
        self, request: HttpRequest, app_label: str | None = None
    ) -> list[dict[str, Any]]:
        apps = super().get_app_list(request, app_label)
        rank = {label: index for index, label in enumerate(APP_ORDER)}
        return sorted(apps, key=lambda app: rank.get(app["app_label"], len(APP_ORDER)))


class SkillgateAdminConfig(AdminConfig):
    """Installed in place of ``django.contrib.admin`` so ``admin.site`` is the site above."""

    default_site = "config.admin_site.SkillgateAdminSite"
