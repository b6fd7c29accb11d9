"""A version of files that are quarantined anywhere is never stored as published.

``registry.publication`` checks this under locks; a skill's first publication takes no lock (one
statement), so the database checks it too, at the last moment: a trigger locks the bundle's row
(shared: a quarantine holds it exclusively while it covers the files) and then, with a fresh
snapshot, refuses the row as an integrity error — the publication then takes the locking path,
which stores the version quarantined at once. PostgreSQL only (SQLite serialises every writer).
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION registry_refuse_quarantined_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status <> 'quarantined' THEN
        PERFORM 1 FROM registry_bundlesnapshot WHERE sha256 = NEW.bundle_id FOR SHARE;
        IF EXISTS (
            SELECT 1 FROM registry_skillversion
            WHERE bundle_id = NEW.bundle_id AND status = 'quarantined'
        ) THEN
            RAISE EXCEPTION 'the files of this version (bundle %) are quarantined', NEW.bundle_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER skillversion_refuse_quarantined_files
    BEFORE INSERT ON registry_skillversion
    FOR EACH ROW EXECUTE FUNCTION registry_refuse_quarantined_files();
"""
DROP = """
DROP TRIGGER IF EXISTS skillversion_refuse_quarantined_files ON registry_skillversion;
DROP FUNCTION IF EXISTS registry_refuse_quarantined_files();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("registry", "0009_foreign_keys_indexed_by_their_composites")]

    operations = [migrations.RunPython(create, drop)]
