"""Accounts in the admin: Django's user pages, with the name of a new or renamed account
checked like every other (``accounts.services.check_new_username``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from accounts import services


def _checked(username: Any, account: Any = None) -> Any:
    if not username:
        return username
    try:
        return services.check_new_username(username, account)
    except services.AccountRefused as refused:
        raise forms.ValidationError(str(refused), code="unique") from refused


class CheckedUserCreationForm(AdminUserCreationForm):
    def clean_username(self) -> Any:
        return _checked(super().clean_username())


class CheckedUserChangeForm(UserChangeForm):
    def clean_username(self) -> Any:
        username = self.cleaned_data.get("username")
        if username == self.initial.get("username"):
            return username
        return _checked(username, self.instance)


class AccountAdmin(UserAdmin):
    form = CheckedUserChangeForm
    add_form = CheckedUserCreationForm


User = get_user_model()
admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
