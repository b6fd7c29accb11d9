"""The admin's action forms: they collect the input an action needs, nothing more. Whether the
action is allowed, and whether the input is acceptable, is decided by reviews.services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from reviews.models import Review
from reviews.selectors import eligible_assignees
from reviews.services import (
    CANNED_ACTIONS,
    REASON_MAX_LENGTH,
    Action,
    canned_reasons,
    compose_reason,
)


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


class DecisionForm(ActionForm):
    """Reject or request changes: one of Security's canned reasons, words of one's own, or the
    canned reason followed by them (the author reads the result)."""

    canned_reason = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=None,
        label="Reason",
        help_text="A reason kept by Security; add your own words below, or write them alone.",
    )
    reason = forms.CharField(
        required=False,
        max_length=REASON_MAX_LENGTH,
        label="In your words",
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        strip=True,
    )

    def __init__(self, *args: Any, action: Action, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.action = action
        field = self.fields["canned_reason"]
        assert isinstance(field, forms.TypedChoiceField)  # the form's own copy
        field.choices = [("", "— write the reason below —")] + [
            (canned.pk, canned.title) for canned in canned_reasons(action)
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("canned_reason") and not data.get("reason"):
            raise forms.ValidationError("Choose a reason or write one: the author reads it.")
        return data

    def arguments(self) -> dict[str, Any]:
        return {
            "reason": compose_reason(
                self.action, self.cleaned_data["canned_reason"], self.cleaned_data["reason"]
            )
        }


def action_form(action: Action, review: Review, user: User, data: Any = None) -> ActionForm:
    """The form for ``action``, bound to ``data`` when given, prefixed so that several forms
    on one page keep their own fields and errors."""
    if action == Action.ASSIGN:
        return AssignForm(data, review=review, user=user, prefix=action.value)
    if action in CANNED_ACTIONS:
        return DecisionForm(data, action=action, prefix=action.value)
    if action == Action.ESCALATE:
        return ReasonForm(data, prefix=action.value)
    return NoteForm(data, prefix=action.value)
