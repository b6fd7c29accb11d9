"""Pagination with a ceiling: ``?limit=100000000`` must not read a whole table."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """LimitOffsetPagination whose ``limit`` is capped at SKILLGATE_MAX_PAGE_SIZE.

    The cap is read when the paginator is made, which DRF does once per request.
    """

    def __init__(self) -> None:
        super().__init__()
        self.max_limit = settings.SKILLGATE_MAX_PAGE_SIZE
