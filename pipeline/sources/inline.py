"""Inline sources: ``{"files": {"SKILL.md": "…", "scripts/run.py": "…"}}`` in the request."""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings

from pipeline.sources.errors import ContentTooLarge, SourceRejected
from pipeline.sources.paths import checked_bundle_paths, checked_path
from registry.bundles import Bundle, BundleFile


def bundle_from_inline(files: Mapping[str, object]) -> Bundle:
    """Validate an inline upload and return its bundle."""
    if not isinstance(files, Mapping) or not files:
        raise SourceRejected("files", "give at least SKILL.md as {path: text}")
    if len(files) > settings.SKILLGATE_MAX_FILES:
        raise SourceRejected(
            "files", f"{len(files)} files is more than the limit of {settings.SKILLGATE_MAX_FILES}"
        )
    bundle_files = []
    total = 0
    for raw_path, text in files.items():
        path = checked_path("files", str(raw_path))
        if not isinstance(text, str):
            raise SourceRejected("files", f"{path}: the file content must be a text string")
        try:
            content = text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SourceRejected(
                "files", f"{path}: not valid UTF-8 text (unpaired surrogate at offset {exc.start})"
            ) from exc
        total += len(content)
        bundle_files.append(BundleFile(path, content))
    checked_bundle_paths("files", [f.path for f in bundle_files])
    limit = settings.SKILLGATE_MAX_CONTENT_BYTES
    if total > limit:
        raise ContentTooLarge(
            "files", f"the skill's files total {total} bytes, over the {limit}-byte limit"
        )
    return Bundle(bundle_files)
