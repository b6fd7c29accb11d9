"""A skill's latest version in one index probe (the public skills list and pages), and the
admin's list of versions read off an index, under each filter and searched by number
(issue 12)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0007_rescan_campaigns"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="skillversion",
            index=models.Index(fields=["skill", "-id"], name="skill_version_latest"),
        ),
        migrations.AddIndex(
            model_name="skillversion",
            index=models.Index(fields=["status", "skill", "-id"], name="skill_version_by_status"),
        ),
        migrations.AddIndex(
            model_name="skillversion",
            index=models.Index(fields=["channel", "skill", "-id"], name="skill_version_by_channel"),
        ),
        migrations.AddIndex(
            model_name="skillversion",
            index=models.Index(fields=["version"], name="skill_version_by_number"),
        ),
    ]
