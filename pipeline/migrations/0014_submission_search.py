"""Searching submissions by any part of the skill's owner or name or the repository URL, ignoring
case, reads a trigram index instead of the table (PostgreSQL's pg_trgm; issue 12).

The index holds ``UPPER(column)`` because that is what Django's ``icontains`` compares on
PostgreSQL (``UPPER(col::text) LIKE UPPER('%word%')``), so pipeline.selectors' search uses it as
written. SQLite (``make run-lite``) has neither the extension nor the index, and scans.

The index is made here, not declared in the model's Meta: when a later migration rebuilds a
SQLite table, Django recreates the indexes the model declares, and a GIN index would fail there.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

POSTGRES_UP = (
    "CREATE INDEX submission_search_trgm ON pipeline_submission USING gin ("
    "UPPER(skill_owner) gin_trgm_ops, UPPER(skill_name) gin_trgm_ops, UPPER(repo_url) gin_trgm_ops)"
)
POSTGRES_DOWN = "DROP INDEX IF EXISTS submission_search_trgm"


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statement = statements_by_vendor.get(schema_editor.connection.vendor)
        if statement:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0013_operator_list_indexes"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP}), _run({"postgresql": POSTGRES_DOWN})
        ),
    ]
