from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sweeps_follow_settings(**kwargs: Any) -> None:
    """After every ``migrate``: the sweep schedules in step with today's settings."""
    from pipeline.services.schedules import sync

    sync()


class PipelineConfig(AppConfig):
    name = "pipeline"
    verbose_name = "Submission pipeline"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from pipeline.services.rescans import dispatch_when_committed
        from registry.signals import campaign_started

        campaign_started.connect(dispatch_when_committed, dispatch_uid="pipeline.rescans")
        post_migrate.connect(
            _sweeps_follow_settings, sender=self, dispatch_uid="pipeline.sweep_schedules"
        )
