from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_save


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Skill registry"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_save.connect(
            _claim_the_new_accounts_name,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="registry-claim-account-namespace",
        )


def _claim_the_new_accounts_name(sender, instance, created: bool, raw: bool = False, **_) -> None:
    """A new account holds its own name from the start, so no git owner can claim it first."""
    if created and not raw:
        from registry.namespaces import claim_for_account

        claim_for_account(instance)
