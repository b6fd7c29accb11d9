"""The Operators group, with exactly the permissions pipeline.roles gives it."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from pipeline.roles import OPERATORS_GROUP, sync_operators_group

# The group's permissions as this migration made them (later migrations widen them).
PERMISSIONS = (
    "pipeline.view_operations",
    "pipeline.view_submission",
    "pipeline.view_deadletter",
    "pipeline.change_deadletter",
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
    "axes.view_accessattempt",
    "axes.delete_accessattempt",
    "axes.view_accessfailurelog",
    "axes.view_accesslog",
)


def create_operators(apps, schema_editor):
    # Permissions are normally created after all migrations ran; create those the group needs
    # now, so it can be given them on a fresh database.
    for label in ("pipeline", "registry", "axes"):
        app_config = apps.get_app_config(label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    sync_operators_group(apps, PERMISSIONS)


def remove_operators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=OPERATORS_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0007_cache_table"),
        ("registry", "0003_vendor_identity"),
        ("axes", "0010_accessattemptexpiration"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="submission",
            options={
                "ordering": ("-created_at",),
                "permissions": [
                    (
                        "view_operations",
                        "Can read queue status, pipeline metrics and dead letters",
                    )
                ],
            },
        ),
        migrations.RunPython(create_operators, remove_operators),
    ]
