"""The sweeps run as often as their thresholds ask (a stuck sweep every third of
SKILLGATE_STUCK_AFTER_S, 100 s by default instead of 300 s), and the dead-letter queue is
reconciled every 30 s. pipeline.services.schedules keeps them in step afterwards."""

from django.db import migrations

from pipeline.services import schedules

RECONCILE = "Reconcile the dead-letter queue"


def follow_thresholds(apps, schema_editor):
    schedules.sync(
        apps.get_model("django_celery_beat", "PeriodicTask"),
        apps.get_model("django_celery_beat", "IntervalSchedule"),
    )


def remove_reconciliation(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=RECONCILE).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0021_dead_letter_life_cycle"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(follow_thresholds, remove_reconciliation)]
