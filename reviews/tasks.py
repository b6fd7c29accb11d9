"""Celery tasks of the review app: thin adapters over reviews.services.

``reviews.sweeps.*`` is routed to the maintenance queue (config/celery.py); the schedule is a
django-celery-beat row created by a migration.
"""

from __future__ import annotations

from celery import shared_task

from pipeline.task_bases import SweepTask
from reviews.services import flag_overdue_reviews


@shared_task(base=SweepTask, name="reviews.sweeps.flag_overdue")
def flag_overdue() -> int:
    """Flag reviews past their due date (5 business days); returns how many."""
    return flag_overdue_reviews()
