"""The overdue-review sweep describes itself by the product's own rule."""

from django.db import migrations

NAME = "Flag overdue reviews"
EARLIER = (
    "Seed 000 §6.2: reviews past their due date (5 business days) are "
    "flagged and listed first in the queue. Nothing is rejected automatically."
)
CURRENT = (
    "Reviews past their due date (5 business days) are flagged and listed first in the "
    "queue. Nothing is rejected automatically."
)


def reword(apps, schema_editor):
    """Only a description nobody has edited since it was created is replaced."""
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name=NAME, description=EARLIER).update(description=CURRENT)


def reword_back(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name=NAME, description=CURRENT).update(description=EARLIER)


class Migration(migrations.Migration):
    dependencies = [("reviews", "0004_review_verbose_names")]

    operations = [migrations.RunPython(reword, reword_back)]
