"""The review queue read in its order from an index instead of sorting every review (issue 12):
open before decided, then by the day a review is due, priority, due time and opening time, as
reviews.selectors.QUEUE_ORDERING sorts (with ``overdue_rank``, which moves with the clock and
cannot be indexed, sorted one day at a time).

The expressions are the ones Django writes for the queue's annotations on PostgreSQL: the day is
``TruncDate("due_at")`` in the project's time zone (UTC), ``(due_at AT TIME ZONE 'UTC')::date``.
Should TIME_ZONE change, this index must follow, or the queue sorts again
(tests/unit/pipeline/test_list_indexes.py notices). PostgreSQL only:
SQLite (``make run-lite``) sorts, and the index stays out of the model's state so a SQLite table
rebuild never tries to recreate it.
"""

from django.db import migrations

POSTGRES_UP = (
    "CREATE INDEX review_queue_order ON reviews_review "
    "((decided_at IS NOT NULL), ((due_at AT TIME ZONE 'UTC')::date), priority, due_at, opened_at)"
)
POSTGRES_DOWN = "DROP INDEX IF EXISTS review_queue_order"


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statement = statements_by_vendor.get(schema_editor.connection.vendor)
        if statement:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0007_finding_feedback"),
    ]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP}), _run({"postgresql": POSTGRES_DOWN})
        ),
    ]
