"""The database cache's table (settings.CACHES): created wherever migrate runs, so the shared
API throttle works in make run, compose and the tests without another command."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute("DROP TABLE IF EXISTS skillgate_cache")


class Migration(migrations.Migration):
    dependencies = [("pipeline", "0006_vendor_identity_and_fetch_in_worker")]

    operations = [migrations.RunPython(create_cache_table, drop_cache_table)]
