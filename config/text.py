"""Free text people type (reasons, notes, names to look up): one rule for every field.

Control characters other than newline and tab are refused — the C0 and C1 controls (escape,
carriage return, backspace…), DEL, and the bidirectional overrides and isolates that make text
display in another order than it reads. Stored text is later shown in terminals, feeds and
pages; such characters let its author rewrite what is shown around it. A browser's CRLF line
ends are taken as newlines first.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from rest_framework import serializers

_REFUSED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def normalised(text: str) -> str:
    """``text`` with CRLF line ends as newlines, or ValidationError naming the first refused
    character and where it is."""
    text = text.replace("\r\n", "\n")
    found = _REFUSED.search(text)
    if found is not None:
        raise ValidationError(
            f"control character U+{ord(found.group()):04X} at position {found.start()} is not "
            "allowed: only printable text, newlines and tabs",
            code="control_character",
        )
    return text


class FreeTextField(serializers.CharField):
    """A CharField that applies ``normalised``: every free-text field of the API is one."""

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data)
        try:
            return normalised(text)
        except ValidationError as invalid:
            raise serializers.ValidationError(invalid.messages) from invalid
