"""The admin site under Skillgate's own name: reviewers and operators work in it all day."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig


class SkillgateAdminSite(admin.AdminSite):
    """Without Django's navigation sidebar: on a 1366 px screen it took a third of the width
    from the lists and review pages; the index and the breadcrumbs lead everywhere it did."""

    site_header = "Skillgate administration"
    site_title = "Skillgate administration"
    index_title = "Submissions, reviews and the registry"
    enable_nav_sidebar = False


class SkillgateAdminConfig(AdminConfig):
    """Installed in place of ``django.contrib.admin`` so ``admin.site`` is the site above."""

    default_site = "config.admin_site.SkillgateAdminSite"
