"""The author pages' forms: a token to make, a reason for a yank, an appeal."""

from __future__ import annotations

from django import forms

from accounts import tokens
from config import scopes
from registry.lifecycle import REASON_MAX_LENGTH
from reviews.services import REASON_MAX_LENGTH as APPEAL_MAX_LENGTH

EXPIRY_CHOICES = [(7, "7 days"), (30, "30 days"), (90, "90 days"), (366, "a year")]


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=tokens.NAME_MAX_LENGTH, help_text="What it is for: 'laptop', 'ci'…"
    )
    scopes = forms.MultipleChoiceField(
        choices=[(name, f"{name}: {what}") for name, what in scopes.SCOPES.items()],
        initial=list(scopes.AUTHOR_SCOPES),
        widget=forms.CheckboxSelectMultiple,
    )
    days = forms.TypedChoiceField(
        label="Expires after",
        choices=EXPIRY_CHOICES,
        coerce=int,
        initial=tokens.DEFAULT_DAYS,
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=REASON_MAX_LENGTH, required=False)


class AppealForm(forms.Form):
    reason = forms.CharField(
        max_length=APPEAL_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Why the rejection is wrong: what the flagged lines do, and why it is safe. "
        "An appeal is made once; the Security team decides it.",
    )
