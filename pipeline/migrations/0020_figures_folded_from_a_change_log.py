"""Count the figures in a fold, not in the statement that makes the change.

Migration 0016's triggers added every change to its figures in the statement that wrote it: an
upsert per figure with its grouping and bucket arithmetic, about a third of the PostgreSQL time
of a submission's steps (``bench/pipeline.py``). Now the triggers only append the facts they
would have counted (a state left or entered, an audit event's time, states and dwell time, a
step message's first attempt) to ``pipeline_figurechange``, a log without indexes, and
``pipeline_fold_figures()`` adds them to the figures in one statement: ``DELETE … RETURNING``
feeds the upserts, so a change is counted exactly once, when the fold that took it commits, and
never lost (a fold that fails rolls its delete back). Folds run one at a time (an advisory lock);
writers never wait for them or for each other on a figure's row.

Readers fold before they read (``pipeline.rollups``), so a figure includes every change committed
before it was read; a beat task folds every minute, so the log stays small when nobody
reads. Truncating a table clears its pending changes with its figures. PostgreSQL only: SQLite
keeps counting row by row as migration 0016 installed it.
"""

from importlib import import_module

from django.db import migrations

counting = import_module("pipeline.migrations.0016_keep_figures_with_triggers")
one_statement = import_module("pipeline.migrations.0018_count_events_in_one_statement")

LOG = "pipeline_figurechange"
FOLD_LOCK = 741_205_311  # the advisory lock that serialises folds ("figures")
SUBMISSIONS = counting.SUBMISSIONS

# What a row of the log notes.
STATE, EVENT, MESSAGE = 0, 1, 2

CREATE_LOG = f"""CREATE TABLE {LOG} (
    kind smallint NOT NULL,
    at timestamptz,
    state varchar(32),
    from_state varchar(32),
    dwell_ms float8,
    submitted_at timestamptz,
    task_id varchar(255),
    attempt_id bigint,
    delta integer
)"""

_FINISHED_UNREVIEWED = (
    f"e.to_state IN ({counting._listed(counting.TERMINAL)}) AND e.from_state IS NOT NULL"
    f" AND e.from_state NOT IN ({counting._listed(counting.REVIEW)})"
)

NOTING = [
    counting._pg_function(
        "pipeline_count_events",
        [
            f"""INSERT INTO {LOG} (kind, at, state, from_state, dwell_ms, submitted_at)
            SELECT {EVENT}, e.created_at, e.to_state, e.from_state, e.dwell_ms,
                   CASE WHEN {_FINISHED_UNREVIEWED} THEN
                       (SELECT s.created_at FROM {SUBMISSIONS} s WHERE s.id = e.submission_id)
                   END
            FROM new_events e"""
        ],
    ),
    counting._pg_function(
        "pipeline_count_messages",
        [
            f"""INSERT INTO {LOG} (kind, at, task_id, attempt_id)
            SELECT {MESSAGE}, a.started_at, a.task_id, a.id FROM new_attempts a"""
        ],
    ),
    counting._pg_function(
        "pipeline_count_new_submissions",
        [
            f"INSERT INTO {LOG} (kind, state, delta) SELECT {STATE}, r.state, 1 FROM new_submissions r"
        ],
    ),
    counting._pg_function(
        "pipeline_count_gone_submissions",
        [
            f"""INSERT INTO {LOG} (kind, state, delta)
            SELECT {STATE}, r.state, -1 FROM gone_submissions r"""
        ],
    ),
    counting._pg_function(
        "pipeline_count_state_change",
        [
            f"""INSERT INTO {LOG} (kind, state, delta)
            VALUES ({STATE}, OLD.state, -1), ({STATE}, NEW.state, 1)"""
        ],
    ),
    counting._pg_function(
        "pipeline_clear_all_figures",
        [*counting._pg_clear(counting.ALL_FIGURES), f"DELETE FROM {LOG}"],
    ),
    counting._pg_function(
        "pipeline_clear_event_figures",
        [*counting._pg_clear(counting.EVENT_FIGURES), f"DELETE FROM {LOG} WHERE kind = {EVENT}"],
    ),
    counting._pg_function(
        "pipeline_clear_message_figures",
        [
            *counting._pg_clear([counting.HOURLY_MESSAGES]),
            f"DELETE FROM {LOG} WHERE kind = {MESSAGE}",
        ],
    ),
]

# The noted changes, shaped as the relations migration 0016's figure statements count.
_TAKEN = f"""taken AS (DELETE FROM {LOG} RETURNING *),
    new_events AS (
        SELECT at AS created_at, state AS to_state, from_state, dwell_ms, submitted_at
        FROM taken WHERE kind = {EVENT}),
    new_attempts AS (
        SELECT at AS started_at, task_id, attempt_id AS id FROM taken WHERE kind = {MESSAGE}),
    state_deltas AS (
        SELECT state, sum(delta) AS delta FROM taken WHERE kind = {STATE} GROUP BY state)"""


def _event_figures():
    """Migration 0016's event figures over the noted events: the end-to-end time from the
    submission's creation noted with its final event (the submission may be gone by now)."""
    statements = counting._pg_event_figures("new_events", shard="0")
    joined = f"FROM new_events e JOIN {SUBMISSIONS} s ON s.id = e.submission_id"
    if joined not in statements[2]:
        raise AssertionError("migration 0016's latency statement changed shape")
    statements[2] = (
        statements[2].replace(joined, "FROM new_events e").replace("s.created_at", "e.submitted_at")
    )
    return statements


FOLD = f"""CREATE FUNCTION pipeline_fold_figures() RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
        folded bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock({FOLD_LOCK});
        WITH {_TAKEN},
        {", ".join(f"figure_{i} AS ({sql})" for i, sql in enumerate(_event_figures()))},
        figure_3 AS ({counting._pg_message_figures("new_attempts", shard="0")}),
        figure_4 AS (
            INSERT INTO {counting.STATE_COUNT} AS t (state, shard, count)
            SELECT state, 0, delta FROM state_deltas WHERE delta <> 0
            ON CONFLICT (state, shard) DO UPDATE SET count = t.count + excluded.count)
        SELECT count(*) INTO folded FROM taken;
        RETURN folded;
    END $$"""

SCHEDULE = (
    "Fold the operator figures",
    "pipeline.sweeps.fold_figures",
    60,
    "Adds the changes the database noted since the last fold to the operator figures, so "
    "the log of noted changes stays small when no page reads them.",
)


def _counting_as_before():
    """The counting functions of migrations 0016 and 0018, to go back to."""
    functions = [s for s in counting.PG_TRIGGERS if s.startswith("CREATE OR REPLACE FUNCTION")]
    return [*functions, one_statement.ONE_STATEMENT]


def note_changes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in [CREATE_LOG, *NOTING, FOLD]:
        schema_editor.execute(statement)


def count_in_place(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("SELECT pipeline_fold_figures()")
    for statement in [
        *_counting_as_before(),
        "DROP FUNCTION pipeline_fold_figures()",
        f"DROP TABLE {LOG}",
    ]:
        schema_editor.execute(statement)


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    name, task, seconds, description = SCHEDULE
    interval, _ = IntervalSchedule.objects.get_or_create(every=seconds, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=name,
        defaults={"task": task, "interval": interval, "description": description, "enabled": True},
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=SCHEDULE[0]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0019_foreign_keys_indexed_by_their_composites"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.RunPython(note_changes, count_in_place),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
