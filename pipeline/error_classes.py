"""The classes of failure a step can end in: a small fixed set, recorded on every failed attempt,
counted per hour, and named by each step of the registry for its time-outs."""

from __future__ import annotations

from django.db.models import TextChoices


class ErrorClass(TextChoices):
    FETCH_TIMEOUT = "fetch_timeout"
    SCAN_TIMEOUT = "scan_timeout"
    JUDGE_TIMEOUT = "judge_timeout"
    PROVIDER_ERROR = "provider_error"
    JUDGE_INVALID_OUTPUT = "judge_invalid_output"
    INFRASTRUCTURE = "infrastructure"
    WORKER_LOST = "worker_lost"
    UNKNOWN = "unknown"
