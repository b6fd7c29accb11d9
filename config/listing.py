"""Lists over tables that grow with history, costing what they show rather than the history.

Two things an ordinary list does cost the whole table: counting its rows, and listing the
distinct values of a column for a filter. Here both are bounded:

* **counts**: exact up to ``EXACT_COUNT_UP_TO`` rows (counting stops there), past that
  PostgreSQL's planner estimate, which costs a plan whatever the table's size. Nobody pages
  through a thousand rows (ten pages); they narrow the list, and then the count is exact again.
  The bound is low because a counted row can cost a join (the review queue's state is the
  submission's): counting ten thousand of them took 130 ms, a thousand takes about ten.
* **distinct values**: read by a loose index scan, one index probe per value, so a filter over
  five million audit events costs a dozen probes, not a scan. The column needs a btree index.

And searches use indexes: an id's first characters become a range of the primary key.

Both work on SQLite (``make run-lite``): there the count is always exact.
"""

from __future__ import annotations

import json
from string import hexdigits
from typing import Any
from uuid import UUID

from django.core.paginator import Paginator
from django.db import connections
from django.db.models import Field, Model, QuerySet
from django.utils.functional import cached_property
from django.utils.text import smart_split, unescape_string_literal

EXACT_COUNT_UP_TO = 1_000
UUID_PREFIX_MIN_LENGTH = 4


def bounded_count(queryset: QuerySet[Any], up_to: int) -> int:
    """The number of rows, counting no further than ``up_to + 1``: cheap for a selective filter
    and for a large table alike (``SELECT COUNT(*) FROM (… LIMIT up_to + 1)``)."""
    return queryset.order_by().values("pk")[: up_to + 1].count()


def planner_estimate(queryset: QuerySet[Any]) -> int | None:
    """How many rows PostgreSQL's planner expects the queryset to yield (the top plan node of
    ``EXPLAIN``, from the table statistics): no rows are read. None on other databases."""
    if connections[queryset.db].vendor != "postgresql":
        return None
    explained = json.loads(queryset.order_by().values("pk").explain(format="json"))
    plan = explained[0] if isinstance(explained, list) else explained
    return int(plan["Plan"]["Plan Rows"])


def estimated_count(queryset: QuerySet[Any]) -> tuple[int, bool]:
    """The number of rows and whether it is an estimate: exact up to ``EXACT_COUNT_UP_TO``,
    past that the planner's estimate (never less than what was counted)."""
    counted = bounded_count(queryset, EXACT_COUNT_UP_TO)
    if counted <= EXACT_COUNT_UP_TO:
        return counted, False
    estimate = planner_estimate(queryset)
    if estimate is None:
        return queryset.count(), False
    return max(estimate, counted), True


class EstimatedCountPaginator(Paginator):
    """A paginator whose count is exact up to ``EXACT_COUNT_UP_TO`` rows and estimated past it
    (``count_is_estimate`` says which, for the page to read "about")."""

    count_is_estimate = False

    @cached_property
    def count(self) -> int:
        if not isinstance(self.object_list, QuerySet):
            return len(self.object_list)
        count, self.count_is_estimate = estimated_count(self.object_list)
        return count


def distinct_values(model: type[Model], field_name: str) -> list[Any]:
    """The distinct non-null values of an indexed column, in order, by a loose index scan: a
    recursive query that asks the index for the smallest value greater than the last one found,
    once per value (PostgreSQL 15 has no skip scan of its own)."""
    connection = connections[model._default_manager.db]
    field = model._meta.get_field(field_name)
    if not isinstance(field, Field) or field.column is None:
        raise TypeError(f"{model.__name__}.{field_name} is not a column")
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    column = quote(field.column)
    sql = (
        f"WITH RECURSIVE found(value) AS ("
        f" SELECT MIN({column}) FROM {table}"
        f" UNION ALL"
        f" SELECT (SELECT MIN({column}) FROM {table} WHERE {column} > found.value)"
        f" FROM found WHERE found.value IS NOT NULL"
        f") SELECT value FROM found WHERE value IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return [row[0] for row in cursor.fetchall()]


def search_words(term: str) -> list[str]:
    """The words of an admin search, as Django's admin splits them: on spaces, except inside
    quotes, which are removed."""
    words = []
    for word in smart_split(term):
        if word[:1] in {'"', "'"} and word[-1:] == word[:1] and len(word) > 1:
            word = unescape_string_literal(word)
        if word:
            words.append(word)
    return words


def uuid_prefix_range(
    text: str, min_length: int = UUID_PREFIX_MIN_LENGTH
) -> tuple[UUID, UUID] | None:
    """The UUIDs that begin with ``text`` (hex digits; dashes ignored), as a range the primary
    key's index reads directly, or None when ``text`` cannot begin a UUID or has fewer than
    ``min_length`` digits (a shorter prefix narrows a large table too little to be an id
    search)."""
    digits = text.replace("-", "").lower()
    if not min_length <= len(digits) <= 32 or not all(c in hexdigits for c in digits):
        return None
    return UUID(digits.ljust(32, "0")), UUID(digits.ljust(32, "f"))
