from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Human review (Tier 3)"
    default_auto_field = "django.db.models.BigAutoField"
