"""``manage.py createsuperuser``, Django's, naming the account like every other
(``accounts.services.check_new_username``): a clear refusal instead of a database error for a
name another account has in another case, and no superuser under a name that another source's
namespace holds or looks like."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.management.commands import createsuperuser

from accounts import services


class Command(createsuperuser.Command):
    def _validate_username(self, username: str, verbose_field_name: str, database: Any) -> Any:
        # Django's hook for both the prompt and --noinput; django-stubs leaves it out.
        error = super()._validate_username(  # type: ignore[misc]
            username, verbose_field_name, database
        )
        if error or not username:
            return error
        try:
            services.check_new_username(username)
        except services.AccountRefused as refused:
            return str(refused)
        return None
