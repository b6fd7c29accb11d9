from django.apps import AppConfig


class AuthorsConfig(AppConfig):
    name = "authors"
    verbose_name = "Author pages"
    default_auto_field = "django.db.models.BigAutoField"
