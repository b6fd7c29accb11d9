"""Version status (published, yanked, quarantined) and its append-only audit trail.

Existing versions stay published; each gets its submitter and a "publish" event dated at its
publication, so every version's trail starts with how it came to be.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

EVENTS = "registry_versionevent"

BACKFILL = [
    """UPDATE registry_skillversion SET submitter_id = (
        SELECT submitter_id FROM pipeline_submission
        WHERE pipeline_submission.id = registry_skillversion.submission_id)""",
    f"""INSERT INTO {EVENTS} (version_id, from_status, to_status, action, actor, actor_type,
        reason, created_at)
        SELECT id, '', 'published', 'publish', 'system', 'system',
        'published before versions had a status', published_at FROM registry_skillversion""",
]

POSTGRES_UP = f"""
CREATE OR REPLACE FUNCTION skillgate_refuse_version_event_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'version events are append-only: UPDATE and DELETE are refused';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {EVENTS}_append_only
    BEFORE UPDATE OR DELETE ON {EVENTS}
    FOR EACH ROW EXECUTE FUNCTION skillgate_refuse_version_event_change();
"""
POSTGRES_DOWN = f"""
DROP TRIGGER IF EXISTS {EVENTS}_append_only ON {EVENTS};
DROP FUNCTION IF EXISTS skillgate_refuse_version_event_change();
"""
SQLITE_UP = [
    f"""CREATE TRIGGER {EVENTS}_no_update BEFORE UPDATE ON {EVENTS}
        BEGIN SELECT RAISE(ABORT, 'version events are append-only: UPDATE is refused'); END;""",
    f"""CREATE TRIGGER {EVENTS}_no_delete BEFORE DELETE ON {EVENTS}
        BEGIN SELECT RAISE(ABORT, 'version events are append-only: DELETE is refused'); END;""",
]
SQLITE_DOWN = [
    f"DROP TRIGGER IF EXISTS {EVENTS}_no_update;",
    f"DROP TRIGGER IF EXISTS {EVENTS}_no_delete;",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor, [])
        for statement in [statements] if isinstance(statements, str) else statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0004_merge_notes_and_vendor_identity"),
        ("pipeline", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="skillversion",
            name="status",
            field=models.CharField(
                choices=[
                    ("published", "Published"),
                    ("yanked", "Yanked by its owner"),
                    ("quarantined", "Quarantined by Security"),
                ],
                default="published",
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="skillversion",
            name="status_changed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="skillversion",
            name="status_reason",
            field=models.TextField(blank=True, help_text="Why the status last changed."),
        ),
        migrations.AddField(
            model_name="skillversion",
            name="submitter",
            field=models.ForeignKey(
                blank=True,
                help_text="The account whose submission created this version.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.CreateModel(
            name="VersionEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "from_status",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("published", "Published"),
                            ("yanked", "Yanked by its owner"),
                            ("quarantined", "Quarantined by Security"),
                        ],
                        max_length=12,
                    ),
                ),
                (
                    "to_status",
                    models.CharField(
                        choices=[
                            ("published", "Published"),
                            ("yanked", "Yanked by its owner"),
                            ("quarantined", "Quarantined by Security"),
                        ],
                        max_length=12,
                    ),
                ),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("publish", "Published"),
                            ("quarantine", "Quarantined"),
                            ("restore", "Restored"),
                            ("yank", "Yanked"),
                            ("unyank", "Un-yanked"),
                        ],
                        max_length=12,
                    ),
                ),
                ("actor", models.CharField(max_length=150)),
                (
                    "actor_type",
                    models.CharField(
                        choices=[("account", "Account"), ("system", "System")], max_length=8
                    ),
                ),
                ("reason", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="registry.skillversion",
                    ),
                ),
            ],
            options={
                "ordering": ("created_at", "id"),
                "indexes": [
                    models.Index(fields=["version", "created_at"], name="version_event_by_version"),
                    models.Index(
                        condition=models.Q(("action__in", ["quarantine", "restore"])),
                        fields=["-created_at", "-id"],
                        name="version_event_advisories",
                    ),
                ],
            },
        ),
        migrations.RunPython(
            _run({"postgresql": BACKFILL, "sqlite": BACKFILL}), migrations.RunPython.noop
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP, "sqlite": SQLITE_UP}),
            _run({"postgresql": POSTGRES_DOWN, "sqlite": SQLITE_DOWN}),
        ),
    ]
