"""Operators decide who holds a namespace (``registry.namespaces``): they see every claim and
give one to an account, or take it back, in the admin."""

import importlib

from django.contrib.auth.management import create_permissions
from django.db import migrations

from pipeline.roles import sync_operators_group

# The group's permissions as this migration leaves them: pipeline 0012's, and the namespaces'.
PERMISSIONS = (
    *importlib.import_module("pipeline.migrations.0012_rescans").PERMISSIONS,
    "registry.view_namespace",
    "registry.add_namespace",
    "registry.change_namespace",
    "registry.assign_namespace",
)


def grant(apps, schema_editor):
    app_config = apps.get_app_config("registry")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    sync_operators_group(apps, PERMISSIONS)


def revoke(apps, schema_editor):
    sync_operators_group(
        apps, importlib.import_module("pipeline.migrations.0012_rescans").PERMISSIONS
    )


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0012_owner_names_held_once"),
        ("pipeline", "0012_rescans"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
