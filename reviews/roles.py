"""Who reviews: the two groups and exactly the permissions each needs.

Reviewers read the queue and act on reviews; Security can also act on reviews escalated to
security, decides authors' appeals and keeps the canned reasons reviewers pick from (the one
model either group edits in the admin). Reviews and appeals change only through the review
services, never by editing rows in the admin. The names are defined in
``config.roles`` (and re-exported here), so the registry can check the Security role without
depending on this app.
"""

from __future__ import annotations

from django.apps.registry import Apps

from config.roles import (
    ACT_PERMISSION,
    REVIEWERS_GROUP,
    SECURITY_GROUP,
    SECURITY_PERMISSION,
    VIEW_PERMISSION,
)

CANNED_REASON_PERMISSIONS = tuple(
    f"reviews.{verb}_cannedreason" for verb in ("view", "add", "change", "delete")
)
GROUP_PERMISSIONS: dict[str, tuple[str, ...]] = {
    REVIEWERS_GROUP: (VIEW_PERMISSION, ACT_PERMISSION, "reviews.view_cannedreason"),
    SECURITY_GROUP: (
        VIEW_PERMISSION,
        ACT_PERMISSION,
        SECURITY_PERMISSION,
        *CANNED_REASON_PERMISSIONS,
        "reviews.view_appeal",
    ),
}


def sync_review_groups(
    apps: Apps, group_permissions: dict[str, tuple[str, ...]] = GROUP_PERMISSIONS
) -> None:
    """Create the groups and set their permissions to exactly ``group_permissions``.

    Takes the migration's app registry so a data migration can run it on historical models (a
    migration passes the permissions as they stood then, so replaying it keeps working).
    """
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for name, permissions in group_permissions.items():
        group, _ = group_model.objects.get_or_create(name=name)
        wanted = []
        for dotted in permissions:
            app_label, codename = dotted.split(".", 1)
            wanted.append(
                permission_model.objects.get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(wanted)
