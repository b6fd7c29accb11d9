"""Path rules shared by inline file names and git ``skill_path``: relative, forward slashes,
no ``..``, nothing a filesystem or a zip extractor could be tricked by."""

from __future__ import annotations

import unicodedata

from pipeline.sources.errors import SourceRejected


def check_relative_path(field: str, path: str, *, max_length: int) -> str:
    """Return ``path`` unchanged if it is a safe relative path, else raise SourceRejected."""
    if not path:
        raise SourceRejected(field, "path is empty")
    if len(path) > max_length:
        raise SourceRejected(field, f"path {path[:40]!r}… is longer than {max_length} characters")
    if "\\" in path:
        raise SourceRejected(field, f"path {path!r} contains a backslash: use '/' separators")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise SourceRejected(field, f"path {path!r} is absolute: give it relative to the skill")
    if any(unicodedata.category(char).startswith("C") for char in path):
        raise SourceRejected(field, f"path {path!r} contains control or invisible characters")
    segments = path.split("/")
    if any(segment in {"", ".", ".."} for segment in segments):
        raise SourceRejected(
            field, f"path {path!r} has an empty, '.' or '..' segment: paths must stay inside"
        )
    return path
