"""The trusted organisations installed by default say so, in the product's words."""

from django.db import migrations

EARLIER = "seed 000 §3"
CURRENT = "trusted by default"


def reword(apps, schema_editor):
    """Only notes nobody has edited since they were created are replaced."""
    TrustedOrg = apps.get_model("registry", "TrustedOrg")
    TrustedOrg.objects.filter(note=EARLIER).update(note=CURRENT)


def reword_back(apps, schema_editor):
    """Back to the note 0002 removes its organisations by."""
    TrustedOrg = apps.get_model("registry", "TrustedOrg")
    TrustedOrg.objects.filter(note=CURRENT).update(note=EARLIER)


class Migration(migrations.Migration):
    dependencies = [("registry", "0002_seed_trusted_orgs")]

    operations = [migrations.RunPython(reword, reword_back)]
