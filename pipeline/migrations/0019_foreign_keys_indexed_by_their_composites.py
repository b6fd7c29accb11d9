"""Foreign keys that a composite index already leads with lose their own index.

A transition writes a new version of the submission row and an audit event: the submission's
row cannot be updated in place (its state is indexed), so every index of the table gets an
entry per transition, and every index of the events table one per event. The submitter's and
the event's submission indexes duplicate the first column of ``submission_by_submitter`` and
``event_by_submission``, which serve every lookup they served.

Only the indexes are dropped: the state change is Django's (``db_index=False``), the database
change a plain ``DROP INDEX``, so the foreign-key constraints are not dropped and validated again
over large tables as ``AlterField`` would do.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# (table, index, column): the indexes Django made for the foreign keys
INDEXES = [
    ("pipeline_submission", "pipeline_submission_submitter_id_24b198c1", "submitter_id"),
    (
        "pipeline_submissionstateevent",
        "pipeline_submissionstateevent_submission_id_4869e574",
        "submission_id",
    ),
]


def drop(apps, schema_editor):
    for _, name, _ in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


def restore(apps, schema_editor):
    for table, name, column in INDEXES:
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")')


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0018_count_events_in_one_statement"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="submission",
                    name="submitter",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="submissions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="submissionstateevent",
                    name="submission",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="pipeline.submission",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop, restore)],
        )
    ]
