"""Searching published skills by any part of their name, owner or description, ignoring case
(``GET /api/v1/search``), reads a trigram index instead of the table (PostgreSQL's pg_trgm).

The index holds ``UPPER(column)`` because that is what Django's ``icontains`` compares on
PostgreSQL, so ``registry.selectors.search_skills`` uses it as written. SQLite (``make
run-lite``) has neither the extension nor the index, and scans. Made here rather than in the
model's Meta for the reason pipeline's migration 0014 gives: a GIN index would fail when a later
migration rebuilds a SQLite table.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

POSTGRES_UP = (
    "CREATE INDEX skill_search_trgm ON registry_skill USING gin ("
    "UPPER(name) gin_trgm_ops, UPPER(owner) gin_trgm_ops, UPPER(description) gin_trgm_ops)"
)
POSTGRES_DOWN = "DROP INDEX IF EXISTS skill_search_trgm"


def _run(statement):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0009_foreign_keys_indexed_by_their_composites"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(_run(POSTGRES_UP), _run(POSTGRES_DOWN)),
    ]
