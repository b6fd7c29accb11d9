from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0003_append_only_events"),
    ]

    operations = [
        migrations.AddField(
            model_name="submissionstateevent",
            name="dwell_ms",
            field=models.FloatField(
                blank=True, help_text="Time spent in from_state: the stage's duration.", null=True
            ),
        ),
        migrations.AddIndex(
            model_name="processingattempt",
            index=models.Index(fields=["started_at"], name="attempt_by_time"),
        ),
        migrations.AddIndex(
            model_name="submissionstateevent",
            index=models.Index(fields=["created_at", "to_state"], name="event_by_time"),
        ),
    ]
