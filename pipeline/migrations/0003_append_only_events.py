"""Audit events are append-only in the database itself, not only in the ORM."""

from django.db import migrations

TABLE = "pipeline_submissionstateevent"

POSTGRES_UP = f"""
CREATE OR REPLACE FUNCTION skillgate_refuse_event_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only: UPDATE and DELETE are refused';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {TABLE}_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION skillgate_refuse_event_change();
"""
POSTGRES_DOWN = f"""
DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};
DROP FUNCTION IF EXISTS skillgate_refuse_event_change();
"""
SQLITE_UP = [
    f"""CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE}
        BEGIN SELECT RAISE(ABORT, 'audit events are append-only: UPDATE is refused'); END;""",
    f"""CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE}
        BEGIN SELECT RAISE(ABORT, 'audit events are append-only: DELETE is refused'); END;""",
]
SQLITE_DOWN = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_update;",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_delete;",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor, [])
        for statement in [statements] if isinstance(statements, str) else statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("pipeline", "0002_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP, "sqlite": SQLITE_UP}),
            _run({"postgresql": POSTGRES_DOWN, "sqlite": SQLITE_DOWN}),
        )
    ]
