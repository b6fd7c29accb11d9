"""Submissions carry the repository host, the full ref fetched and the verified vendor
organisation; a git submission has no snapshot until the pipeline's intake step fetches it."""

import django.db.models.deletion
from django.db import migrations, models


def fill_repo_hosts(apps, schema_editor):
    Submission = apps.get_model("pipeline", "Submission")
    for submission in Submission.objects.filter(source_kind="git", repo_host="").only("repo_url"):
        url = submission.repo_url
        host = url.split("://", 1)[1].split("/", 1)[0].lower() if "://" in url else ""
        Submission.objects.filter(pk=submission.pk).update(repo_host=host or "file")


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0005_sweep_schedules"),
        ("registry", "0003_vendor_identity"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="repo_host",
            field=models.CharField(blank=True, max_length=253),
        ),
        migrations.AddField(
            model_name="submission",
            name="resolved_ref",
            field=models.CharField(
                blank=True,
                help_text="The full ref fetched (refs/heads/…, refs/tags/…).",
                max_length=255,
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="vendor_org",
            field=models.ForeignKey(
                blank=True,
                help_text="Set at intake when the source is verified as this organisation's: the tip of a branch or tag of its repository, submitted by a linked publisher.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="registry.trustedorg",
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="bundle",
            field=models.ForeignKey(
                blank=True,
                help_text="Empty until a git source is fetched by the pipeline's intake step.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="submissions",
                to="registry.bundlesnapshot",
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="repo_url",
            field=models.CharField(
                blank=True,
                help_text="Rebuilt from (host, owner, repo): what is fetched.",
                max_length=500,
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="skill_name",
            field=models.CharField(
                blank=True, help_text="From SKILL.md; for git, known once fetched.", max_length=64
            ),
        ),
        migrations.RunPython(fill_repo_hosts, migrations.RunPython.noop),
    ]
