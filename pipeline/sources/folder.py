"""A local skill folder read as an inline upload (for the author CLI)."""

from __future__ import annotations

from pathlib import Path

from pipeline.sources.errors import SourceRejected

_SKIPPED_DIRS = frozenset({".git", "__pycache__", ".venv", "node_modules", ".DS_Store"})


def files_from_folder(folder: Path) -> dict[str, str]:
    """Every text file under ``folder`` as ``{relative/path: text}``; symlinks are not followed."""
    if not folder.is_dir():
        raise SourceRejected("path", f"{folder} is not a folder")
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part in _SKIPPED_DIRS for part in relative.parts) or path.is_symlink():
            continue
        if not path.is_file():
            continue
        try:
            files[relative.as_posix()] = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourceRejected(
                "path",
                f"{relative} is not UTF-8 text; binary files can only come from a git source",
            ) from exc
    return files
