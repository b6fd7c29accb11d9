"""Operator lists read a page off an index, newest first: unfiltered and under each admin
filter of submissions, audit events, attempts and dead letters (issue 12).

Portable btree indexes: SQLite (``make run-lite``) builds them too. On PostgreSQL each build
reads its table once and blocks writes to it meanwhile (at a million submissions and five million
events: see the README's "Operating at scale").
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0012_rescans"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="deadletter",
            index=models.Index(fields=["created_at", "id"], name="dead_letter_by_time"),
        ),
        migrations.AddIndex(
            model_name="deadletter",
            index=models.Index(
                condition=models.Q(("replayed_at__isnull", True)),
                fields=["created_at"],
                name="dead_letter_pending",
            ),
        ),
        migrations.AddIndex(
            model_name="processingattempt",
            index=models.Index(fields=["status", "started_at"], name="attempt_by_status"),
        ),
        migrations.AddIndex(
            model_name="processingattempt",
            index=models.Index(fields=["stage", "started_at"], name="attempt_by_stage"),
        ),
        migrations.AddIndex(
            model_name="processingattempt",
            index=models.Index(fields=["error_class", "started_at"], name="attempt_by_error_class"),
        ),
        migrations.AddIndex(
            model_name="processingattempt",
            index=models.Index(fields=["task_name", "started_at"], name="attempt_by_task"),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["created_at", "id"], name="submission_by_time"),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["state", "created_at"], name="submission_by_state"),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["source_kind", "created_at"], name="submission_by_source"),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["outcome_kind", "created_at"], name="submission_by_outcome"),
        ),
        migrations.AddIndex(
            model_name="submissionstateevent",
            index=models.Index(fields=["to_state", "created_at"], name="event_by_target"),
        ),
        migrations.AddIndex(
            model_name="submissionstateevent",
            index=models.Index(fields=["actor_type", "created_at"], name="event_by_actor_type"),
        ),
        migrations.AddIndex(
            model_name="submissionstateevent",
            index=models.Index(fields=["trigger", "created_at"], name="event_by_trigger"),
        ),
        migrations.AddIndex(
            model_name="submissionstateevent",
            index=models.Index(fields=["actor", "created_at"], name="event_by_actor"),
        ),
    ]
