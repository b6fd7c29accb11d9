"""The schema tells the whole truth: every operation documents the error responses it can give,
all in the one error shape of ``config.api_errors``; and the docs are grouped by who uses them,
one tag per operation, decided here by path."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error the API answers has this shape.",
    "properties": {
        "detail": {"type": "string", "description": "What is wrong, in one line."},
        "code": {"type": "string", "description": "A stable code for programs."},
        "errors": {
            "type": "object",
            "description": "Each request field that is wrong, with its messages (may be empty).",
            "additionalProperties": True,
        },
    },
    "required": ["detail", "code", "errors"],
}

STREAM_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One server-sent event: its name, its data (one line of JSON) and its id.",
    "properties": {
        "event": {"type": "string", "enum": ["state", "end", "error"]},
        "data": {"type": "string", "description": "JSON."},
        "id": {"type": "string", "description": "Resume after it with Last-Event-ID."},
        "retry": {"type": "integer", "description": "Milliseconds to wait to reconnect."},
    },
}

_EVERY_OPERATION = {
    "400": "Invalid input (the field at fault is named in `errors`).",
    "401": "No or invalid API token.",
    "403": "Not allowed for this account.",
    "404": "Not found, or not yours.",
    "406": "The requested response format is not available: accept application/json.",
    "429": "Too many requests: slow down (see `Retry-After`).",
    "503": "A dependency (the database) is unavailable: retry after `Retry-After` seconds.",
}
_WITH_A_BODY = {
    "409": "The action conflicts with the current state (someone acted first, or wrong state).",
    "413": "The request or the skill is too large.",
    "415": "Send JSON with Content-Type: application/json.",
}
_FETCHING = {
    "502": "The git host failed.",
    "504": "The git host did not answer in time.",
}


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: document the error shape on every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            errors = dict(_EVERY_OPERATION)
            if method in {"post", "put", "patch"}:
                errors |= _WITH_A_BODY
            if method == "post" and path.endswith("/submissions"):
                errors |= _FETCHING
            content: dict[str, Any] = reference
            if path.endswith("/stream"):
                # A client that accepts only the stream gets an error as one `event: error`
                # whose data is the same body.
                content = {**reference, "text/event-stream": {"schema": STREAM_EVENT_SCHEMA}}
            responses = operation.setdefault("responses", {})
            for status, description in errors.items():
                responses.setdefault(status, {"description": description, "content": content})
    return result


TAGS: list[dict[str, str]] = [
    {
        "name": "submissions",
        "description": "Authors: submit a skill, follow it (events, a server-sent event stream) "
        "and read what decided it. Needs a token (scopes `submit`, `read`).",
    },
    {
        "name": "skills",
        "description": "Anyone: the public registry — skills, versions, archives, search and "
        "advisories; owners yank and unyank (scope `yank`), Security quarantines and restores.",
    },
    {
        "name": "reviews",
        "description": "Reviewers and Security: the Tier 3 review queue and its actions, the "
        "canned reasons, authors' appeals (scope `review`).",
    },
    {
        "name": "operators",
        "description": "Operators: queue status and metrics, dead letters, re-scan campaigns "
        "(scope `operate` for writes).",
    },
    {
        "name": "accounts",
        "description": "Your account and its API tokens: named, scoped, expiring, shown once.",
    },
]
_TAG_BY_PREFIX = (
    ("/api/v1/submissions", "submissions"),
    ("/api/v1/limits", "submissions"),
    ("/api/v1/reviews", "reviews"),
    ("/api/v1/appeals", "reviews"),
    ("/api/v1/canned-reasons", "reviews"),
    ("/api/v1/admin/", "operators"),
    ("/api/v1/tokens", "accounts"),
    ("/api/v1/account", "accounts"),
)


def tag_by_path(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: one tag per operation, by who uses its path (the
    public registry, the API root included, is "skills")."""
    for path, operations in result.get("paths", {}).items():
        tag = next((tag for prefix, tag in _TAG_BY_PREFIX if path.startswith(prefix)), "skills")
        for operation in operations.values():
            operation["tags"] = [tag]
    result["tags"] = TAGS
    return result
