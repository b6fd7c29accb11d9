"""Pagination with a ceiling: ``?limit=100000000`` must not read a whole table; and histories
(submissions, dead letters) paged by a cursor, so a page costs the same however deep it is."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import CursorPagination, LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """LimitOffsetPagination whose ``limit`` is capped at SKILLGATE_MAX_PAGE_SIZE.

    The cap is read when the paginator is made, which DRF does once per request.
    """

    def __init__(self) -> None:
        super().__init__()
        self.max_limit = settings.SKILLGATE_MAX_PAGE_SIZE


class NewestFirstCursorPagination(CursorPagination):
    """Newest first, by a keyset on ``(created_at, id)``: each page is one range read of the
    index on those columns, and nothing counts the table (no ``count``; follow ``next`` until
    it is null). ``limit`` sets the page size, capped at SKILLGATE_MAX_PAGE_SIZE, read when the
    paginator is made (once per request)."""

    ordering = ("-created_at", "-id")
    page_size_query_param = "limit"
    page_size_query_description = "Rows per page (at most SKILLGATE_MAX_PAGE_SIZE, 200)."
    cursor_query_description = "Where the page starts: take the `next` or `previous` link."

    def __init__(self) -> None:
        super().__init__()
        self.max_page_size = settings.SKILLGATE_MAX_PAGE_SIZE
