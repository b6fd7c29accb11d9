"""Project configuration: settings, the Celery app and its queue topology, URLs."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
