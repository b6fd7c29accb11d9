"""The Reviewers and Security groups with exactly the permissions reviews.roles gives them."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from config.roles import (
    ACT_PERMISSION,
    REVIEWERS_GROUP,
    SECURITY_GROUP,
    SECURITY_PERMISSION,
    VIEW_PERMISSION,
)
from reviews.roles import sync_review_groups

# The groups' permissions as this migration gave them (later migrations add to them).
GROUP_PERMISSIONS = {
    REVIEWERS_GROUP: (VIEW_PERMISSION, ACT_PERMISSION),
    SECURITY_GROUP: (VIEW_PERMISSION, ACT_PERMISSION, SECURITY_PERMISSION),
}


def create_groups(apps, schema_editor):
    # Permissions are normally created after all migrations ran; create this app's now so the
    # groups can be given them on a fresh database.
    review_app = apps.get_app_config("reviews")
    review_app.models_module = True
    create_permissions(review_app, apps=apps, verbosity=0)
    review_app.models_module = None
    sync_review_groups(apps, GROUP_PERMISSIONS)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUP_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
