"""A skill folder packed on the author's machine into the registry's inline upload,
``{"files": {path: text}}``, checked against the registry's published limits first, so a folder
that would be refused is refused here, with the file to blame, before anything is sent.

Which files are taken is the registry's own rule for folders: every file under the folder, but
not what version control, Python or Node keep there (``.git``, ``__pycache__``, ``.venv``,
``node_modules``) and not symbolic links. Every file must be UTF-8 text: binary files can only
come from a git repository.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SKIPPED_DIRS = frozenset({".git", "__pycache__", ".venv", "node_modules", ".DS_Store"})
SKILL_FILE = "SKILL.md"


class PackingRefused(Exception):
    """The folder cannot be submitted as it is; the message names the file and what to do."""


@dataclass(frozen=True)
class Packed:
    files: dict[str, str]
    total_bytes: int


def pack(folder: Path, limits: dict[str, Any]) -> Packed:
    if not folder.is_dir():
        raise PackingRefused(f"{folder} is not a folder")
    max_files = int(limits.get("max_files", 200))
    max_bytes = int(limits.get("max_content_bytes", 50 * 1024))
    max_path = int(limits.get("max_path_length", 255))
    files: dict[str, str] = {}
    total = 0
    for root, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(names):
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink() or name in SKIPPED_DIRS or not path.is_file():
                continue
            if len(relative) > max_path:
                raise PackingRefused(
                    f"{relative}: the path is longer than the registry's {max_path} characters"
                )
            content = path.read_bytes()
            try:
                files[relative] = content.decode("utf-8")
            except UnicodeDecodeError as error:
                raise PackingRefused(
                    f"{relative} is not UTF-8 text; binary files can only come from a git "
                    "repository (skillgate submit https://HOST/OWNER/REPO --path FOLDER)"
                ) from error
            total += len(content)
            if len(files) > max_files:
                raise PackingRefused(
                    f"the folder has more than the registry's {max_files} files; leave out "
                    "what the skill does not need"
                )
    if SKILL_FILE not in files:
        raise PackingRefused(f"{SKILL_FILE} is missing at the top of {folder}")
    if total > max_bytes:
        raise PackingRefused(
            f"the files total {total} bytes, over the registry's limit of {max_bytes} bytes "
            "for an upload; leave out what the skill does not need, or submit it from a git "
            "repository"
        )
    return Packed(files, total)
