"""Seed 000 §3's trusted organisations; editable afterwards in the admin."""

from django.db import migrations

SEED_TRUSTED_ORGS = (
    "anthropics",
    "openai",
    "google",
    "google-gemini",
    "vercel-labs",
    "supabase",
    "microsoft",
)


def add_trusted_orgs(apps, schema_editor):
    TrustedOrg = apps.get_model("registry", "TrustedOrg")
    for name in SEED_TRUSTED_ORGS:
        if not TrustedOrg.objects.filter(name__iexact=name).exists():
            TrustedOrg.objects.create(name=name, note="seed 000 §3")


def remove_trusted_orgs(apps, schema_editor):
    TrustedOrg = apps.get_model("registry", "TrustedOrg")
    TrustedOrg.objects.filter(name__in=SEED_TRUSTED_ORGS, note="seed 000 §3").delete()


class Migration(migrations.Migration):
    dependencies = [("registry", "0001_initial")]

    operations = [migrations.RunPython(add_trusted_orgs, remove_trusted_orgs)]
