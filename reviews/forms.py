"""The admin's action forms: they collect the input an action needs, nothing more. Whether the
action is allowed, and whether the input is acceptable, is decided by reviews.services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser

from reviews.models import Review
from reviews.selectors import eligible_assignees
from reviews.services import REASON_MAX_LENGTH, Action


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        strip=True,
    )

    def arguments(self) -> dict[str, Any]:
        return {"reason": self.cleaned_data["reason"]}


class NoteForm(ReasonForm):
    """An optional note (approve, unassign): kept with the decision or in the audit trail."""

    reason = forms.CharField(
        required=False,
        max_length=REASON_MAX_LENGTH,
        label="Note (optional)",
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        strip=True,
    )


class AssignForm(forms.Form):
    assignee = forms.ModelChoiceField(queryset=None, to_field_name="username")  # type: ignore[arg-type]

    def __init__(self, *args: Any, review: Review, user: AbstractBaseUser, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["assignee"]
        field.queryset = eligible_assignees(review)
        field.label_from_instance = lambda candidate: (
            f"{candidate.get_username()} (me)" if candidate.pk == user.pk else candidate.username
        )
        if field.queryset.filter(pk=user.pk).exists():
            field.initial = user.get_username()

    def arguments(self) -> dict[str, Any]:
        return {"assignee": self.cleaned_data["assignee"].get_username()}


def action_form(
    action: Action, review: Review, user: AbstractBaseUser, data: Any = None
) -> forms.Form:
    """The form for ``action``, bound to ``data`` when given, prefixed so that several forms
    on one page keep their own fields and errors."""
    if action == Action.ASSIGN:
        return AssignForm(data, review=review, user=user, prefix=action.value)
    if action in (Action.REJECT, Action.ESCALATE):
        return ReasonForm(data, prefix=action.value)
    return NoteForm(data, prefix=action.value)
