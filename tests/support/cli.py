"""Running the ``skillgate`` command line as a user would: a separate process, no Django."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SHARED_HOME = Path(tempfile.mkdtemp(prefix="skillgate-cli-home-"))


def skillgate(
    *args: str,
    registry: str | None = None,
    home: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -S -m skillgate_cli ARGS`` (what the ``skillgate`` console script runs), with
    SKILLGATE_URL set to ``registry`` when given. ``-S`` leaves site-packages out, so every run
    proves the client needs nothing but the standard library. The user's home (where the client
    keeps its config and the folders it installed into) is ``home``, else one shared by the
    tests that do not care, never the real one."""
    user_home = home or _SHARED_HOME
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_SETTINGS_MODULE", "SKILLGATE_URL", "SKILLGATE_TOKEN"}
    }
    environment |= {
        "PYTHONPATH": str(ROOT),
        "HOME": str(user_home),
        "XDG_CONFIG_HOME": str(user_home / ".config"),
        "XDG_STATE_HOME": str(user_home / ".local" / "state"),
    }
    environment.pop("SKILLGATE_CONFIG", None)
    if registry:
        environment["SKILLGATE_URL"] = registry
    environment |= env or {}
    return subprocess.run(
        [sys.executable, "-S", "-m", "skillgate_cli", *args],
        cwd=ROOT,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
