"""Keep the operator figures as the data changes, and count the history once.

Database triggers maintain the figures of migration 0012 (see pipeline.models): submissions per
state from the submission table, transitions per hour and in total and the stage latency
histograms from the append-only audit events, step messages per hour from the attempts. A
trigger runs in the statement that writes the row it counts, so a transition costs no extra
round trip, and a figure stays exact whatever writes the table (a step, a reviewer, the admin, a
script, a benchmark's bulk copy). Bulk statements are counted once per statement on PostgreSQL
(statement triggers over the transition tables); SQLite counts row by row. Truncating a table
clears its figures.

Installing is restartable and keeps writers waiting only briefly: one short transaction locks
the three tables against writes, empties the figures, installs the triggers, counts the
submissions per state and notes the newest event and attempt; the history up to those is then
counted in chunks, each committed on its own, while the triggers already count what comes
after. Until the last chunk commits the history figures are low, never double.

The bucket bounds, states and shard count are frozen here; pipeline.rollups reads the figures
with the same bounds (a test checks they agree).
"""

from django.db import migrations, transaction

SHARDS = 8
CHUNK = 250_000
# Latency buckets: bucket k holds values v with BOUNDS[k-1] <= v < BOUNDS[k] (milliseconds),
# bucket 0 what is under 1 ms, bucket 121 what is 2^30 ms (12.4 days) or more.
BOUNDS = tuple(2 ** (i / 4) for i in range(121))
END_TO_END = "END_TO_END"
TERMINAL = ("PUBLISHED", "REJECTED", "TIER1_FAILED")
REVIEW = ("NEEDS_REVIEW", "TIER3_REVIEW")

SUBMISSIONS = "pipeline_submission"
EVENTS = "pipeline_submissionstateevent"
ATTEMPTS = "pipeline_processingattempt"
STATE_COUNT = "pipeline_statecount"
HOURLY_TRANSITIONS = "pipeline_hourlytransitions"
TRANSITION_TOTAL = "pipeline_transitiontotal"
HOURLY_LATENCY = "pipeline_hourlystagelatency"
HOURLY_MESSAGES = "pipeline_hourlystepmessages"
EVENT_FIGURES = (HOURLY_TRANSITIONS, TRANSITION_TOTAL, HOURLY_LATENCY)
ALL_FIGURES = (STATE_COUNT, *EVENT_FIGURES, HOURLY_MESSAGES)


def _listed(values):
    return ", ".join(f"'{value}'" for value in values)


# --- PostgreSQL --------------------------------------------------------------------------------

PG_SHARD = f"floor(random() * {SHARDS})::int"
PG_BOUNDS = "ARRAY[" + ", ".join(repr(bound) for bound in BOUNDS) + "]::float8[]"


def _pg_hour(column):
    return f"date_trunc('hour', {column}, 'UTC')"


def _pg_event_figures(events, shard=PG_SHARD):
    """Statements adding the events of relation ``events`` (aliased e) to their figures, in
    ``shard`` (a random one for the triggers; the backfill, alone, needs no spreading)."""
    hour = _pg_hour("e.created_at")
    end_to_end_ms = "(EXTRACT(EPOCH FROM (e.created_at - s.created_at)) * 1000)::float8"
    return [
        f"""INSERT INTO {HOURLY_TRANSITIONS} AS t (hour, to_state, shard, count)
            SELECT {hour}, e.to_state, {shard}, count(*) FROM {events} e GROUP BY 1, 2
            ON CONFLICT (hour, to_state, shard) DO UPDATE SET count = t.count + excluded.count""",
        f"""INSERT INTO {TRANSITION_TOTAL} AS t (to_state, shard, count)
            SELECT e.to_state, {shard}, count(*) FROM {events} e GROUP BY 1
            ON CONFLICT (to_state, shard) DO UPDATE SET count = t.count + excluded.count""",
        f"""INSERT INTO {HOURLY_LATENCY} AS t (hour, stage, bucket, shard, count)
            SELECT hour, stage, bucket, {shard}, count(*) FROM (
                SELECT {hour} AS hour, e.from_state AS stage,
                       width_bucket(e.dwell_ms, {PG_BOUNDS}) AS bucket
                FROM {events} e WHERE e.dwell_ms IS NOT NULL AND e.from_state IS NOT NULL
                UNION ALL
                SELECT {hour}, '{END_TO_END}', width_bucket({end_to_end_ms}, {PG_BOUNDS})
                FROM {events} e JOIN {SUBMISSIONS} s ON s.id = e.submission_id
                WHERE e.to_state IN ({_listed(TERMINAL)})
                  AND e.from_state IS NOT NULL AND e.from_state NOT IN ({_listed(REVIEW)})
            ) latency GROUP BY hour, stage, bucket
            ON CONFLICT (hour, stage, bucket, shard)
            DO UPDATE SET count = t.count + excluded.count""",
    ]


def _pg_message_figures(attempts, shard=PG_SHARD):
    """Add the attempts of relation ``attempts`` (aliased a) that are the first of their step
    message (no earlier attempt with the same task id) to the messages per hour."""
    return f"""INSERT INTO {HOURLY_MESSAGES} AS t (hour, shard, count)
        SELECT {_pg_hour("a.started_at")}, {shard}, count(*) FROM {attempts} a
        WHERE NOT EXISTS (
            SELECT 1 FROM {ATTEMPTS} earlier WHERE earlier.task_id = a.task_id AND earlier.id < a.id
        )
        GROUP BY 1
        ON CONFLICT (hour, shard) DO UPDATE SET count = t.count + excluded.count"""


def _pg_state_delta(rows, sign):
    return f"""INSERT INTO {STATE_COUNT} AS t (state, shard, count)
        SELECT r.state, {PG_SHARD}, {sign} count(*) FROM {rows} r GROUP BY 1
        ON CONFLICT (state, shard) DO UPDATE SET count = t.count + excluded.count"""


def _pg_function(name, body):
    statements = ";\n".join(body)
    return f"""CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {statements};
            RETURN NULL;
        END $$"""


def _pg_clear(tables):
    return [f"DELETE FROM {table}" for table in tables]


PG_TRIGGERS = [
    _pg_function("pipeline_count_events", _pg_event_figures("new_events")),
    f"""CREATE TRIGGER pipeline_count_events AFTER INSERT ON {EVENTS}
        REFERENCING NEW TABLE AS new_events
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_events()""",
    _pg_function("pipeline_count_messages", [_pg_message_figures("new_attempts")]),
    f"""CREATE TRIGGER pipeline_count_messages AFTER INSERT ON {ATTEMPTS}
        REFERENCING NEW TABLE AS new_attempts
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_messages()""",
    _pg_function("pipeline_count_new_submissions", [_pg_state_delta("new_submissions", "")]),
    f"""CREATE TRIGGER pipeline_count_new_submissions AFTER INSERT ON {SUBMISSIONS}
        REFERENCING NEW TABLE AS new_submissions
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_new_submissions()""",
    _pg_function("pipeline_count_gone_submissions", [_pg_state_delta("gone_submissions", "-")]),
    f"""CREATE TRIGGER pipeline_count_gone_submissions AFTER DELETE ON {SUBMISSIONS}
        REFERENCING OLD TABLE AS gone_submissions
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_gone_submissions()""",
    _pg_function(
        "pipeline_count_state_change",
        [
            f"""INSERT INTO {STATE_COUNT} AS t (state, shard, count)
                VALUES (OLD.state, {PG_SHARD}, -1), (NEW.state, {PG_SHARD}, 1)
                ON CONFLICT (state, shard) DO UPDATE SET count = t.count + excluded.count"""
        ],
    ),
    f"""CREATE TRIGGER pipeline_count_state_change AFTER UPDATE OF state ON {SUBMISSIONS}
        FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state)
        EXECUTE FUNCTION pipeline_count_state_change()""",
    _pg_function("pipeline_clear_all_figures", _pg_clear(ALL_FIGURES)),
    f"""CREATE TRIGGER pipeline_clear_all_figures AFTER TRUNCATE ON {SUBMISSIONS}
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_clear_all_figures()""",
    _pg_function("pipeline_clear_event_figures", _pg_clear(EVENT_FIGURES)),
    f"""CREATE TRIGGER pipeline_clear_event_figures AFTER TRUNCATE ON {EVENTS}
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_clear_event_figures()""",
    _pg_function("pipeline_clear_message_figures", _pg_clear([HOURLY_MESSAGES])),
    f"""CREATE TRIGGER pipeline_clear_message_figures AFTER TRUNCATE ON {ATTEMPTS}
        FOR EACH STATEMENT EXECUTE FUNCTION pipeline_clear_message_figures()""",
]
PG_TRIGGER_NAMES = {
    "pipeline_count_events": EVENTS,
    "pipeline_count_messages": ATTEMPTS,
    "pipeline_count_new_submissions": SUBMISSIONS,
    "pipeline_count_gone_submissions": SUBMISSIONS,
    "pipeline_count_state_change": SUBMISSIONS,
    "pipeline_clear_all_figures": SUBMISSIONS,
    "pipeline_clear_event_figures": EVENTS,
    "pipeline_clear_message_figures": ATTEMPTS,
}
PG_DROP = [
    statement
    for name, table in PG_TRIGGER_NAMES.items()
    for statement in (
        f"DROP TRIGGER IF EXISTS {name} ON {table}",
        f"DROP FUNCTION IF EXISTS {name}()",
    )
]


# --- SQLite ------------------------------------------------------------------------------------


def _sqlite_hour(column):
    return f"strftime('%Y-%m-%d %H:00:00', {column})"


def _sqlite_bucket(value):
    """The number of bounds at or under ``value``, as PostgreSQL's width_bucket counts them."""
    at_or_over = " + ".join(f"({value} >= {bound!r})" for bound in BOUNDS)
    return f"(CASE WHEN {value} IS NULL THEN NULL ELSE {at_or_over} END)"


def _sqlite_event_figures(events, where):
    """Statements adding the events of ``events`` (aliased e) matching ``where``."""
    hour = _sqlite_hour("e.created_at")
    # Whole seconds, then the microseconds Django writes after them (julianday is too coarse).
    end_to_end_ms = (
        "((strftime('%s', e.created_at) - strftime('%s', s.created_at)) * 1000.0"
        " + (CAST(substr(e.created_at, 21) AS INTEGER)"
        " - CAST(substr(s.created_at, 21) AS INTEGER)) / 1000.0)"
    )
    return [
        f"""INSERT INTO {HOURLY_TRANSITIONS} (hour, to_state, shard, count)
            SELECT {hour}, e.to_state, 0, count(*) FROM {events} e WHERE {where} GROUP BY 1, 2
            ON CONFLICT (hour, to_state, shard) DO UPDATE SET count = count + excluded.count""",
        f"""INSERT INTO {TRANSITION_TOTAL} (to_state, shard, count)
            SELECT e.to_state, 0, count(*) FROM {events} e WHERE {where} GROUP BY 1
            ON CONFLICT (to_state, shard) DO UPDATE SET count = count + excluded.count""",
        f"""INSERT INTO {HOURLY_LATENCY} (hour, stage, bucket, shard, count)
            SELECT {hour}, e.from_state, {_sqlite_bucket("e.dwell_ms")}, 0, count(*)
            FROM {events} e
            WHERE {where} AND e.dwell_ms IS NOT NULL AND e.from_state IS NOT NULL
            GROUP BY 1, 2, 3
            ON CONFLICT (hour, stage, bucket, shard) DO UPDATE SET count = count + excluded.count""",
        f"""INSERT INTO {HOURLY_LATENCY} (hour, stage, bucket, shard, count)
            SELECT {hour}, '{END_TO_END}', {_sqlite_bucket(end_to_end_ms)}, 0, count(*)
            FROM {events} e JOIN {SUBMISSIONS} s ON s.id = e.submission_id
            WHERE {where} AND e.to_state IN ({_listed(TERMINAL)})
              AND e.from_state IS NOT NULL AND e.from_state NOT IN ({_listed(REVIEW)})
            GROUP BY 1, 3
            ON CONFLICT (hour, stage, bucket, shard) DO UPDATE SET count = count + excluded.count""",
    ]


def _sqlite_message_figures(where):
    return f"""INSERT INTO {HOURLY_MESSAGES} (hour, shard, count)
        SELECT {_sqlite_hour("a.started_at")}, 0, count(*) FROM {ATTEMPTS} a
        WHERE {where} AND NOT EXISTS (
            SELECT 1 FROM {ATTEMPTS} earlier WHERE earlier.task_id = a.task_id AND earlier.id < a.id
        )
        GROUP BY 1
        ON CONFLICT (hour, shard) DO UPDATE SET count = count + excluded.count"""


def _sqlite_state_delta(state, delta):
    return f"""INSERT INTO {STATE_COUNT} (state, shard, count) VALUES ({state}, 0, {delta})
        ON CONFLICT (state, shard) DO UPDATE SET count = count + excluded.count"""


def _sqlite_trigger(name, when, body):
    statements = ";\n".join(body)
    return f"CREATE TRIGGER {name} {when} BEGIN {statements}; END"


SQLITE_TRIGGERS = [
    _sqlite_trigger(
        "pipeline_count_events",
        f"AFTER INSERT ON {EVENTS}",
        _sqlite_event_figures(EVENTS, "e.id = NEW.id"),
    ),
    _sqlite_trigger(
        "pipeline_count_messages",
        f"AFTER INSERT ON {ATTEMPTS}",
        [_sqlite_message_figures("a.id = NEW.id")],
    ),
    _sqlite_trigger(
        "pipeline_count_new_submissions",
        f"AFTER INSERT ON {SUBMISSIONS}",
        [_sqlite_state_delta("NEW.state", 1)],
    ),
    _sqlite_trigger(
        "pipeline_count_gone_submissions",
        f"AFTER DELETE ON {SUBMISSIONS}",
        [_sqlite_state_delta("OLD.state", -1)],
    ),
    _sqlite_trigger(
        "pipeline_count_state_change",
        f"AFTER UPDATE OF state ON {SUBMISSIONS} WHEN OLD.state IS NOT NEW.state",
        [_sqlite_state_delta("OLD.state", -1), _sqlite_state_delta("NEW.state", 1)],
    ),
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "pipeline_count_events",
        "pipeline_count_messages",
        "pipeline_count_new_submissions",
        "pipeline_count_gone_submissions",
        "pipeline_count_state_change",
    )
]


# --- Installing ----------------------------------------------------------------------------


def install(apps, schema_editor):
    connection = schema_editor.connection
    postgresql = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        with transaction_of(connection):
            if postgresql:
                cursor.execute(
                    f"LOCK TABLE {SUBMISSIONS}, {EVENTS}, {ATTEMPTS} IN SHARE ROW EXCLUSIVE MODE"
                )
            for statement in [
                *(PG_DROP if postgresql else SQLITE_DROP),
                *_clear_all(),
                *(PG_TRIGGERS if postgresql else SQLITE_TRIGGERS),
                f"""INSERT INTO {STATE_COUNT} (state, shard, count)
                    SELECT state, 0, count(*) FROM {SUBMISSIONS} GROUP BY state""",
            ]:
                cursor.execute(statement)
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {EVENTS}")
            newest_event = cursor.fetchone()[0]
            cursor.execute(f"SELECT coalesce(max(id), 0) FROM {ATTEMPTS}")
            newest_attempt = cursor.fetchone()[0]
        for first in range(0, newest_event, CHUNK):
            last = min(first + CHUNK, newest_event)
            with transaction_of(connection):
                if postgresql:
                    chunk = f"(SELECT * FROM {EVENTS} WHERE id > {first} AND id <= {last})"
                    statements = _pg_event_figures(chunk, shard="0")
                else:
                    statements = _sqlite_event_figures(EVENTS, f"e.id > {first} AND e.id <= {last}")
                for statement in statements:
                    cursor.execute(statement)
        for first in range(0, newest_attempt, CHUNK):
            last = min(first + CHUNK, newest_attempt)
            with transaction_of(connection):
                if postgresql:
                    chunk = f"(SELECT * FROM {ATTEMPTS} WHERE id > {first} AND id <= {last})"
                    cursor.execute(_pg_message_figures(chunk, shard="0"))
                else:
                    cursor.execute(_sqlite_message_figures(f"a.id > {first} AND a.id <= {last}"))


def uninstall(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    for statement in PG_DROP if postgresql else SQLITE_DROP:
        schema_editor.execute(statement)


def _clear_all():
    return [f"DELETE FROM {table}" for table in ALL_FIGURES]


def transaction_of(connection):
    return transaction.atomic(using=connection.alias)


class Migration(migrations.Migration):
    # Each step commits on its own: the lock is held for the installation only, not while the
    # history is counted.
    atomic = False

    dependencies = [("pipeline", "0015_figures_kept_as_data_changes")]

    operations = [migrations.RunPython(install, uninstall)]
