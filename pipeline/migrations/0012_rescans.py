"""Re-scan campaigns and reviewers' marks for operators: the Operators group may start and follow
campaigns and read per-rule precision, and a sweep resumes any campaign whose messages were
lost."""

import importlib

from django.contrib.auth.management import create_permissions
from django.db import migrations

from pipeline.roles import sync_operators_group

# The group's permissions as this migration leaves them: 0008's, and the re-scans'.
PERMISSIONS = (
    *importlib.import_module("pipeline.migrations.0008_operators").PERMISSIONS,
    "registry.start_rescan",
    "registry.view_rescancampaign",
    "registry.view_rescanitem",
    "registry.view_gradingresult",
    "reviews.view_findingfeedback",
)

RESUME = (
    "Resume stalled re-scan campaigns",
    "pipeline.sweeps.resume_rescans",
    120,
    "A running campaign without progress for 2 minutes gets new messages; its pending "
    "versions are still there to take.",
)


def grant_and_schedule(apps, schema_editor):
    for label in ("registry", "reviews"):
        app_config = apps.get_app_config(label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    sync_operators_group(apps, PERMISSIONS)
    name, task, seconds, description = RESUME
    interval, _ = apps.get_model("django_celery_beat", "IntervalSchedule").objects.get_or_create(
        every=seconds, period="seconds"
    )
    apps.get_model("django_celery_beat", "PeriodicTask").objects.update_or_create(
        name=name,
        defaults={"task": task, "interval": interval, "description": description, "enabled": True},
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=RESUME[0]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0011_scan_results_keep_only_the_link"),
        ("registry", "0007_rescan_campaigns"),
        ("reviews", "0007_finding_feedback"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(grant_and_schedule, remove_schedule)]
