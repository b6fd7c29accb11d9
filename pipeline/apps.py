from django.apps import AppConfig


class PipelineConfig(AppConfig):
    name = "pipeline"
    verbose_name = "Submission pipeline"
    default_auto_field = "django.db.models.BigAutoField"
