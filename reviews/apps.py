from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Human review (Tier 3)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from pipeline.signals import submission_needs_review
        from registry.signals import version_needs_review
        from reviews.receivers import open_review_when_needed
        from reviews.rescan_reviews import open_version_review

        submission_needs_review.connect(
            open_review_when_needed, dispatch_uid="reviews.open_review_when_needed"
        )
        version_needs_review.connect(open_version_review, dispatch_uid="reviews.version_review")
