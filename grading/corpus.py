"""Reading a labelled corpus of skills: ``ROOT/manifest.csv`` plus one bundle per row.

The manifest needs the columns ``id``, ``label`` and ``path`` (others, such as ``source``, are
kept). ``path`` is relative to ROOT and names either a JSON bundle ``{"files": {path: text}}`` or a
folder of files. Corpus content is only ever *read*: nothing in it is imported or executed.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REQUIRED_COLUMNS = ("id", "label", "path")
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A file larger than this is passed on truncated; Tier 1 reports what it could not scan."""


class CorpusError(ValueError):
    """The corpus cannot be used at all (missing manifest, wrong columns)."""


@dataclass(frozen=True)
class Entry:
    id: str
    label: str
    source: str
    path: Path


@dataclass(frozen=True)
class Skill:
    entry: Entry
    files: dict[str, str | bytes]
    error: str | None = None


def read_manifest(root: Path) -> list[Entry]:
    manifest = root / "manifest.csv"
    if not manifest.is_file():
        raise CorpusError(f"{manifest} not found")
    with manifest.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            found = ", ".join(columns) or "none"
            raise CorpusError(f"{manifest} lacks column(s) {', '.join(missing)}; found {found}")
        return [
            Entry(
                id=row["id"],
                label=row["label"],
                source=row.get("source") or "",
                path=root / row["path"],
            )
            for row in reader
        ]


def load(entry: Entry) -> Skill:
    """The bundle of one entry; an unreadable bundle is returned with ``error`` set."""
    try:
        if entry.path.is_dir():
            return Skill(entry, _folder(entry.path))
        data = json.loads(entry.path.read_text(encoding="utf-8"))
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, dict):
            return Skill(entry, {}, "bundle has no 'files' mapping")
        return Skill(entry, {str(k): v if isinstance(v, str) else str(v) for k, v in files.items()})
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Skill(entry, {}, f"unreadable bundle: {exc}")


def iter_skills(root: Path) -> Iterator[Skill]:
    for entry in read_manifest(root):
        yield load(entry)


def _folder(folder: Path) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        try:
            files[path.relative_to(folder).as_posix()] = raw.decode("utf-8")
        except UnicodeDecodeError:
            files[path.relative_to(folder).as_posix()] = raw
    return files
