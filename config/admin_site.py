"""The admin site under Skillgate's own name: reviewers and operators work in it all day."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig


class SkillgateAdminSite(admin.AdminSite):
    site_header = "Skillgate administration"
    site_title = "Skillgate administration"
    index_title = "Submissions, reviews and the registry"


class SkillgateAdminConfig(AdminConfig):
    """Installed in place of ``django.contrib.admin`` so ``admin.site`` is the site above."""

    default_site = "config.admin_site.SkillgateAdminSite"
