"""The admin's action forms: they collect the input an action needs, nothing more. Whether the
action is allowed, and whether the input is acceptable, is decided by reviews.services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from reviews.models import Review
from reviews.selectors import eligible_assignees
from reviews.services import REASON_MAX_LENGTH, Action


class ActionForm(forms.Form):
    """A form whose cleaned data become the action service's keyword arguments."""

    def arguments(self) -> dict[str, Any]:
        raise NotImplementedError


class ReasonForm(ActionForm):
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


class AssigneeField(forms.ModelChoiceField):
    """A reviewer, chosen by username; the user filling in the form is marked "(me)"."""

    def __init__(self, **kwargs: Any) -> None:
        # The queryset depends on the review: AssignForm sets it per form.
        super().__init__(queryset=None, to_field_name="username", **kwargs)
        self.me: int | None = None  # the pk of the user filling in the form

    def label_from_instance(self, obj: User) -> str:
        return f"{obj.get_username()} (me)" if obj.pk == self.me else obj.username


class AssignForm(ActionForm):
    assignee = AssigneeField()

    def __init__(self, *args: Any, review: Review, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["assignee"]
        assert isinstance(field, AssigneeField)  # the form's own copy of the declared field
        field.queryset = eligible_assignees(review)
        field.me = user.pk
        if field.queryset.filter(pk=user.pk).exists():
            field.initial = user.get_username()

    def arguments(self) -> dict[str, Any]:
        return {"assignee": self.cleaned_data["assignee"].get_username()}


def action_form(action: Action, review: Review, user: User, data: Any = None) -> ActionForm:
    """The form for ``action``, bound to ``data`` when given, prefixed so that several forms
    on one page keep their own fields and errors."""
    if action == Action.ASSIGN:
        return AssignForm(data, review=review, user=user, prefix=action.value)
    if action in (Action.REJECT, Action.ESCALATE):
        return ReasonForm(data, prefix=action.value)
    return NoteForm(data, prefix=action.value)
