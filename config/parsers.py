"""Request body parsers with the nesting of JSON bounded before it is parsed.

Python's json module recurses once per level: a body nested a thousand levels deep raises
RecursionError (a 500) in the parser or in whatever walks the result. Depth is counted on the
raw text first (brackets outside strings), and anything deeper than the limit is a 400.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError

# djangorestframework-stubs 3.18.1 lack get_encoding, which DRF 3.18.3's parsers define.
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]
from rest_framework.utils import json

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings ignored)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than SKILLGATE_MAX_JSON_DEPTH."""

    def parse(
        self,
        stream: IO[Any] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = get_encoding(parser_context or {})
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding} text") from exc
        limit = settings.SKILLGATE_MAX_JSON_DEPTH
        if json_depth(text) > limit:
            raise ParseError(f"JSON parse error - nested deeper than {limit} levels")
        try:
            return json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
