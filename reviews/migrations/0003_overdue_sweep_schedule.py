"""The review SLA sweep as a django-celery-beat schedule (run by exactly one beat)."""

from django.db import migrations

NAME = "Flag overdue reviews"
TASK = "reviews.sweeps.flag_overdue"
EVERY_MINUTES = 15


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=EVERY_MINUTES, period="minutes")
    PeriodicTask.objects.update_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "interval": interval,
            "enabled": True,
            "description": "Seed 000 §6.2: reviews past their due date (5 business days) are "
            "flagged and listed first in the queue. Nothing is rejected automatically.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0002_review_groups"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create_schedule, remove_schedule)]
