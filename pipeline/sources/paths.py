"""The skill format's path rules (``skillformat.paths``) as source errors the API answers with
400, naming the request field and the path."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from pipeline.sources.errors import SourceRejected
from skillformat.paths import UnsafePath, check_bundle_paths, safe_relative_path


def checked_path(field: str, path: str) -> str:
    """``path`` in NFC, or SourceRejected on ``field`` naming it."""
    try:
        return safe_relative_path(path, max_length=settings.SKILLGATE_MAX_PATH_LENGTH)
    except UnsafePath as exc:
        raise SourceRejected(field, exc.message) from exc


def checked_bundle_paths(field: str, paths: Iterable[str]) -> None:
    """SourceRejected on ``field`` when two paths collide on some filesystem."""
    try:
        check_bundle_paths(paths)
    except UnsafePath as exc:
        raise SourceRejected(field, exc.message) from exc
