"""The sweep schedules describe themselves by the product's own rules."""

from django.db import migrations

DESCRIPTIONS = {
    # name: (earlier description, description)
    "Enforce pipeline deadlines": (
        "Seed 002 §4.4: automated submissions past deadline_at end REJECTED / SLA_TIMEOUT.",
        "The automated phase must end within 30 minutes: submissions past deadline_at end "
        "REJECTED / SLA_TIMEOUT. Review states are exempt.",
    ),
    "Recover stuck submissions": (
        "Seed 001: no progress for 5 minutes → re-dispatch, 3 tries with backoff.",
        "Stuck submissions (no progress for 5 minutes) are re-dispatched from their state, "
        "3 tries with backoff, then end REJECTED / STUCK_EXHAUSTED.",
    ),
}


def reword(apps, schema_editor, forward=True):
    """Only descriptions nobody has edited since they were created are replaced."""
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, (earlier, current) in DESCRIPTIONS.items():
        old, new = (earlier, current) if forward else (current, earlier)
        PeriodicTask.objects.filter(name=name, description=old).update(description=new)


def reword_back(apps, schema_editor):
    reword(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("pipeline", "0006_help_texts")]

    operations = [migrations.RunPython(reword, reword_back)]
