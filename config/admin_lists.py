"""Admin changelists over tables that grow with history (submissions, audit events, attempts,
reviews): what Django's defaults do to the whole table, done within bounds instead.

* the paginator counts exactly up to a thousand rows and estimates past that, and the
  unfiltered total ("N total") is not counted at all;
* filter counts ("Show counts", a COUNT per choice over the table) are off;
* a filter listing a column's values reads them by a loose index scan (``IndexedValuesFilter``).

The estimate is marked "about" in the page (templates ``admin/pagination.html`` and
``admin/search_form.html`` under config/templates).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Field, Model
from django.http import HttpRequest

from config.listing import EstimatedCountPaginator, distinct_values


class HistoryListAdmin(admin.ModelAdmin):
    """A changelist that costs what its page shows, however long the history behind it."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER


class IndexedValuesFilter(admin.AllValuesFieldListFilter):
    """Django's "all values" filter with its choices read by a loose index scan (one probe per
    value) instead of ``SELECT DISTINCT`` over the table. The column needs a btree index whose
    first column it is. Choices come from the whole table, not the admin's queryset."""

    def __init__(
        self,
        field: Field,
        request: HttpRequest,
        params: dict[str, Any],
        model: type[Model],
        model_admin: admin.ModelAdmin,
        field_path: str,
    ) -> None:
        super().__init__(field, request, params, model, model_admin, field_path)
        # A list where Django keeps a queryset of the values: choices() only iterates it.
        self.lookup_choices = distinct_values(model, field.name)  # type: ignore[assignment]
