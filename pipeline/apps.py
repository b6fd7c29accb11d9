from django.apps import AppConfig


class PipelineConfig(AppConfig):
    name = "pipeline"
    verbose_name = "Submission pipeline"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from pipeline.services.rescans import dispatch_when_committed
        from registry.signals import campaign_started

        campaign_started.connect(dispatch_when_committed, dispatch_uid="pipeline.rescans")
