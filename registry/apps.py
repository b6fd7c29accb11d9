from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Skill registry"
    default_auto_field = "django.db.models.BigAutoField"
