"""Operators: the one permission model for running the pipeline, in the admin and the API.

Operators see every submission, the queue status and metrics, dead letters (and replay them),
manage trusted organisations and their publishers, and see and clear login lockouts. Reviewers
are staff too (the admin is their workplace) but get none of this: they see submissions only
through their review queue. Every check is a Django permission, so the admin and the API agree.
"""

from __future__ import annotations

from django.apps.registry import Apps

OPERATORS_GROUP = "Operators"

VIEW_OPERATIONS = "pipeline.view_operations"
VIEW_ALL_SUBMISSIONS = "pipeline.view_submission"
VIEW_DEAD_LETTERS = "pipeline.view_deadletter"
REPLAY_DEAD_LETTERS = "pipeline.change_deadletter"

OPERATOR_PERMISSIONS: tuple[str, ...] = (
    VIEW_OPERATIONS,
    VIEW_ALL_SUBMISSIONS,
    VIEW_DEAD_LETTERS,
    REPLAY_DEAD_LETTERS,
    "pipeline.view_submissionstateevent",
    "pipeline.view_scanresult",
    "pipeline.view_processingattempt",
    "pipeline.view_timeoutbucket",
    "registry.view_skill",
    "registry.view_skillversion",
    "registry.view_bundlesnapshot",
    "registry.view_trustedorg",
    "registry.add_trustedorg",
    "registry.change_trustedorg",
    "registry.delete_trustedorg",
    "registry.view_publishermembership",
    "registry.add_publishermembership",
    "registry.delete_publishermembership",
    "registry.view_publishermembershipevent",
    "registry.start_rescan",
    "registry.view_rescancampaign",
    "registry.view_rescanitem",
    "registry.view_gradingresult",
    "registry.view_namespace",
    "registry.add_namespace",
    "registry.change_namespace",
    "registry.assign_namespace",
    "reviews.view_findingfeedback",
    "axes.view_accessattempt",
    "axes.delete_accessattempt",
    "axes.view_accessfailurelog",
    "axes.view_accesslog",
)


def sync_operators_group(apps: Apps, permissions: tuple[str, ...] = OPERATOR_PERMISSIONS) -> None:
    """Create the group with exactly ``permissions`` (takes the migration's registry; a
    migration passes the list as it stood then, so replaying old migrations keeps working)."""
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=OPERATORS_GROUP)
    wanted = []
    for dotted in permissions:
        app_label, codename = dotted.split(".", 1)
        wanted.append(
            permission_model.objects.get(content_type__app_label=app_label, codename=codename)
        )
    group.permissions.set(wanted)
