"""The folders skills were installed into, remembered so that ``list``, ``upgrade`` and
``uninstall`` find them without being told: ``$XDG_STATE_HOME/skillgate/folders.json`` (else
``~/.local/state/skillgate/folders.json``). Only folders are kept; what is in each is read from
the folders themselves (each skill's ``.skillgate.json``)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

MAX_STATE_BYTES = 1024 * 1024


def state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "skillgate" / "folders.json"


def remembered() -> list[Path]:
    """The folders skills were installed into that still exist, in the order first used."""
    try:
        with state_path().open("rb") as handle:
            data = json.loads(handle.read(MAX_STATE_BYTES))
    except (OSError, ValueError):
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, list):
        return []
    return [Path(f) for f in folders if isinstance(f, str) and Path(f).is_dir()]


def remember(folder: Path) -> None:
    """Add ``folder`` (absolute); a state file that cannot be written is not worth failing an
    install for, so it is skipped quietly."""
    folders = [str(f) for f in remembered()]
    absolute = str(folder.resolve())
    if absolute in folders:
        return
    path = state_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".folders.", dir=path.parent)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump({"folders": [*folders, absolute]}, handle, indent=2)
        os.replace(temporary, path)
    except OSError:
        return
