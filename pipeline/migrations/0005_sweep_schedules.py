"""The pipeline's sweeps as django-celery-beat schedules (run by exactly one beat)."""

from django.db import migrations

SWEEPS = (
    # name, task, every (seconds), why
    (
        "Dispatch undelivered submissions",
        "pipeline.sweeps.dispatch_undelivered",
        30,
        "Submissions accepted while the broker was down are sent once it is back.",
    ),
    (
        "Enforce pipeline deadlines",
        "pipeline.sweeps.enforce_deadlines",
        60,
        "Seed 002 §4.4: automated submissions past deadline_at end REJECTED / SLA_TIMEOUT.",
    ),
    (
        "Recover stuck submissions",
        "pipeline.sweeps.recover_stuck",
        300,
        "Seed 001: no progress for 5 minutes → re-dispatch, 3 tries with backoff.",
    ),
)


def create_schedules(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, seconds, description in SWEEPS:
        interval, _ = IntervalSchedule.objects.get_or_create(every=seconds, period="seconds")
        PeriodicTask.objects.update_or_create(
            name=name,
            defaults={
                "task": task,
                "interval": interval,
                "description": description,
                "enabled": True,
            },
        )


def remove_schedules(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[name for name, *_ in SWEEPS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0004_reliability"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create_schedules, remove_schedules)]
