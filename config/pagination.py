"""Pagination with a ceiling: ``?limit=100000000`` must not read a whole table."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """LimitOffsetPagination whose ``limit`` is capped at SKILLGATE_MAX_PAGE_SIZE."""

    @property
    def max_limit(self) -> int:  # type: ignore[override]
        return settings.SKILLGATE_MAX_PAGE_SIZE
