"""Dead letters get a life cycle (open → replayed | dismissed | resolved), a key that ties each
row to its copy in submission-dlq, and a truthful attempt count. Rows replayed before are
marked replayed; the rest stay open."""

from django.db import migrations, models
from django.db.models import F


def mark_replayed(apps, schema_editor):
    DeadLetter = apps.get_model("pipeline", "DeadLetter")
    DeadLetter.objects.filter(replayed_at__isnull=False).update(
        status="replayed", closed_at=F("replayed_at"), closed_by=F("replayed_by")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0020_figures_folded_from_a_change_log"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="deadletter",
            name="dead_letter_pending",
        ),
        migrations.AddField(
            model_name="deadletter",
            name="attempts",
            field=models.PositiveIntegerField(
                default=0, help_text="Times the step ran on this message before it was given up on."
            ),
        ),
        migrations.AddField(
            model_name="deadletter",
            name="close_reason",
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name="deadletter",
            name="closed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="deadletter",
            name="closed_by",
            field=models.CharField(blank=True, max_length=150),
        ),
        migrations.AddField(
            model_name="deadletter",
            name="message_key",
            field=models.CharField(
                blank=True,
                help_text="Identifies the copy in submission-dlq (one row per dead-lettered message).",
                max_length=200,
                null=True,
                unique=True,
            ),
        ),
        migrations.AddField(
            model_name="deadletter",
            name="status",
            field=models.CharField(
                choices=[
                    ("open", "Open"),
                    ("replayed", "Replayed"),
                    ("dismissed", "Dismissed"),
                    ("resolved", "Resolved (the submission ended)"),
                ],
                default="open",
                max_length=10,
            ),
        ),
        migrations.AddIndex(
            model_name="deadletter",
            index=models.Index(
                condition=models.Q(("status", "open")),
                fields=["created_at"],
                name="dead_letter_open",
            ),
        ),
        migrations.RunPython(mark_replayed, migrations.RunPython.noop),
    ]
