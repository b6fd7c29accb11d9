"""Foreign keys that a composite index already leads with lose their own index.

Every grading result, version and version event the pipeline stores wrote an entry in an index
that duplicates the first column of a composite one: the result's bundle (``one_result_per_grader``
leads with it; the bundle's pattern-ops index served no query), the version's skill
(``skill_version_unique``, ``skill_version_latest``) and the event's version
(``version_event_by_version``).

Only the indexes are dropped: the state change is Django's (``db_index=False``), the database
change a plain ``DROP INDEX``, so the foreign-key constraints are not dropped and validated again
over large tables as ``AlterField`` would do.
"""

import django.db.models.deletion
from django.db import migrations, models

# (table, index, the indexed column and operator class): the indexes Django made for the keys
INDEXES = [
    ("registry_gradingresult", "registry_gradingresult_bundle_id_59ebf8c5", '"bundle_id"'),
    (
        "registry_gradingresult",
        "registry_gradingresult_bundle_id_59ebf8c5_like",
        '"bundle_id" varchar_pattern_ops',
    ),
    ("registry_skillversion", "registry_skillversion_skill_id_d065c6b5", '"skill_id"'),
    ("registry_versionevent", "registry_versionevent_version_id_f9331cbd", '"version_id"'),
]


def drop(apps, schema_editor):
    for _, name, _ in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


def restore(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    for table, name, column in INDEXES:
        if postgresql or "varchar_pattern_ops" not in column:
            schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ({column})')


class Migration(migrations.Migration):
    dependencies = [("registry", "0008_version_list_indexes")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="gradingresult",
                    name="bundle",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="results",
                        to="registry.bundlesnapshot",
                    ),
                ),
                migrations.AlterField(
                    model_name="skillversion",
                    name="skill",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="versions",
                        to="registry.skill",
                    ),
                ),
                migrations.AlterField(
                    model_name="versionevent",
                    name="version",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="registry.skillversion",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop, restore)],
        )
    ]
