"""Operator lists read indexes, and the migrations that make them run on SQLite too.

The plans are pinned on PostgreSQL with sequential scans and full sorts switched off: on the few
rows of a test the planner would scan and sort anyway, but whether a list *can* be read in its
order off its index does not depend on the rows. A list or a search written so that its index no
longer applies fails here, not in production.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from config.listing import uuid_prefix_range
from pipeline import selectors
from pipeline.models import ProcessingAttempt, Submission, SubmissionStateEvent
from pipeline.states import State
from registry import selectors as registry_selectors
from reviews import selectors as review_selectors
from tests.unit.pipeline.factories import submission_in

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def plan(django_user_model):
    """The plan of a queryset when the planner may neither scan a table nor sort a whole set
    (sorting one group of an index's order at a time stays allowed).

    The submissions table holds a few thousand ordinary rows, analysed: on an empty table whose
    statistics another test left behind, every index costs the same and the planner's pick among
    them is arbitrary; with rows, a filter on a rare value is selective, as in production."""
    _fill_and_analyse_submissions(django_user_model.objects.create(username="planner"))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")

    def explain(queryset) -> str:
        return queryset.explain()

    return explain


NEWEST_FIRST = ("-created_at", "-id")
ORDINARY_ROWS = 3000


def _fill_and_analyse_submissions(submitter) -> None:
    """ORDINARY_ROWS copies of one received inline submission, a second apart, then ANALYZE."""
    template = submission_in(State.RECEIVED, submitter)
    columns = [field.column for field in Submission._meta.concrete_fields if field.column]
    copied = {"id": "gen_random_uuid()", "created_at": "now() - n * interval '1 second'"}
    names = ", ".join(f'"{column}"' for column in columns)
    selected = ", ".join(copied.get(column, f'"{column}"') for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO pipeline_submission ({names}) SELECT {selected} "
            "FROM pipeline_submission, generate_series(1, %s) AS n WHERE id = %s",
            [ORDINARY_ROWS, template.pk],
        )
        cursor.execute("ANALYZE pipeline_submission")


@pytest.mark.parametrize(
    ("queryset", "index"),
    [
        (lambda: Submission.objects.order_by(*NEWEST_FIRST)[:100], "submission_by_time"),
        (
            lambda: Submission.objects.filter(state="PUBLISHED").order_by(*NEWEST_FIRST)[:100],
            "submission_by_state",
        ),
        (
            lambda: Submission.objects.filter(source_kind="git").order_by(*NEWEST_FIRST)[:100],
            "submission_by_source",
        ),
        (
            lambda: Submission.objects.filter(outcome_kind="error").order_by(*NEWEST_FIRST)[:100],
            "submission_by_outcome",
        ),
        (
            lambda: Submission.objects.filter(pk__range=uuid_prefix_range("3f2a91bc")).order_by(),
            "pipeline_submission_pkey",
        ),
        (
            lambda: SubmissionStateEvent.objects.filter(trigger="tier1-pass").order_by(
                *NEWEST_FIRST
            )[:100],
            "event_by_trigger",
        ),
        (
            lambda: SubmissionStateEvent.objects.filter(actor="rita").order_by(*NEWEST_FIRST)[:100],
            "event_by_actor",
        ),
        (
            lambda: ProcessingAttempt.objects.filter(error_class="judge_timeout").order_by(
                "-started_at"
            )[:100],
            "attempt_by_error_class",
        ),
        (
            lambda: review_selectors.in_state(review_selectors.review_queue(), "open")[:50],
            "review_queue_order",
        ),
        (lambda: registry_selectors.published_skills()[:50], "skill_version_latest"),
    ],
    ids=[
        "submissions",
        "submissions by state",
        "submissions by source",
        "submissions by outcome",
        "submission id prefix",
        "events by trigger",
        "events by actor",
        "attempts by error class",
        "open reviews",
        "latest versions",
    ],
)
def test_each_list_can_read_its_index(plan, queryset, index):
    assert index in plan(queryset())


def test_a_search_can_read_the_trigram_index_for_any_part_of_a_word(plan):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")

    searched = selectors.search_submissions(Submission.objects.order_by(), "ather-rep")

    assert "submission_search_trgm" in plan(searched)


def test_the_migrations_run_on_sqlite_without_the_postgresql_only_index(tmp_path):
    env = {
        **os.environ,
        "SKILLGATE_ENV_FILE": "",
        "SKILLGATE_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path}/lite.sqlite3",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "pipeline.0014_submission_search... OK" in done.stdout
