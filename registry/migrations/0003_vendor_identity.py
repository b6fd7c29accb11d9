"""Vendor identity is (host, owner): trusted organisations and git skills carry their host (the
default organisations become github.com/<org>); accounts are linked to organisations as
publishers, with an audit trail; each snapshot stores its parsed SKILL.md manifest."""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models

from skillformat.skillmd import SkillFileError, declared_fields, read_front_matter


def fill_hosts_and_manifests(apps, schema_editor):
    """Git skills get the host of the repository their first version came from; snapshots get
    the manifest of their SKILL.md (left empty when it cannot be parsed any more)."""
    Skill = apps.get_model("registry", "Skill")
    SkillVersion = apps.get_model("registry", "SkillVersion")
    BundleSnapshot = apps.get_model("registry", "BundleSnapshot")
    TrustedOrg = apps.get_model("registry", "TrustedOrg")
    for skill in Skill.objects.filter(origin="git", host=""):
        first = SkillVersion.objects.filter(skill=skill).select_related("submission").first()
        url = first.submission.repo_url if first else ""
        host = url.split("://", 1)[1].split("/", 1)[0].lower() if "://" in url else ""
        Skill.objects.filter(pk=skill.pk).update(host=host)
    for snapshot in BundleSnapshot.objects.filter(manifest={}).iterator():
        text = next((f.get("text") for f in snapshot.files if f.get("path") == "SKILL.md"), None)
        try:
            manifest, _ = declared_fields(read_front_matter(text or "").data)
        except SkillFileError:
            continue
        BundleSnapshot.objects.filter(pk=snapshot.pk).update(manifest=manifest.to_json())
    TrustedOrg.objects.filter(note="seed 000 §3").update(note="default trusted organisation")


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0002_seed_trusted_orgs"),
        ("pipeline", "0005_sweep_schedules"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PublisherMembership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("linked_by", models.CharField(max_length=150)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "verbose_name": "publisher membership",
                "ordering": ("org", "user"),
            },
        ),
        migrations.CreateModel(
            name="PublisherMembershipEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("org", models.CharField(help_text="host/owner", max_length=360)),
                ("username", models.CharField(max_length=150)),
                (
                    "action",
                    models.CharField(
                        choices=[("linked", "Linked"), ("unlinked", "Unlinked")], max_length=8
                    ),
                ),
                ("actor", models.CharField(max_length=150)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "verbose_name": "publisher membership event",
                "ordering": ("-created_at", "-id"),
            },
        ),
        migrations.AlterModelOptions(
            name="trustedorg",
            options={"ordering": ("host", "name"), "verbose_name": "trusted organisation"},
        ),
        migrations.RemoveConstraint(
            model_name="trustedorg",
            name="trusted_org_name_unique",
        ),
        migrations.AddField(
            model_name="bundlesnapshot",
            name="manifest",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="SKILL.md's front matter as parsed once at intake: name, description, version, allowed tools.",
            ),
        ),
        migrations.AddField(
            model_name="skill",
            name="host",
            field=models.CharField(
                blank=True,
                help_text="For skills from git: the repository host; only that host's owner publishes.",
                max_length=253,
            ),
        ),
        migrations.AddField(
            model_name="trustedorg",
            name="host",
            field=models.CharField(default="github.com", max_length=253),
        ),
        migrations.AlterField(
            model_name="trustedorg",
            name="name",
            field=models.CharField(help_text="The repository owner on that host.", max_length=100),
        ),
        migrations.AddConstraint(
            model_name="trustedorg",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("host"),
                django.db.models.functions.text.Lower("name"),
                name="trusted_org_unique",
            ),
        ),
        migrations.AddField(
            model_name="publishermembership",
            name="org",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memberships",
                to="registry.trustedorg",
            ),
        ),
        migrations.AddField(
            model_name="publishermembership",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="publisher_memberships",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="publishermembership",
            constraint=models.UniqueConstraint(
                models.F("org"), models.F("user"), name="publisher_membership_unique"
            ),
        ),
        migrations.RunPython(fill_hosts_and_manifests, migrations.RunPython.noop),
    ]
