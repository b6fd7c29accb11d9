"""Running the ``skillgate`` command line as a user would: a separate process, no Django."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cryptography

ROOT = Path(__file__).resolve().parents[2]
CRYPTOGRAPHY_SITE = str(Path(cryptography.__file__).resolve().parents[1])


def skillgate(*args: str, registry: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -S -m skillgate_cli ARGS`` (what the ``skillgate`` console script runs), with
    SKILLGATE_URL set to ``registry`` when given. ``-S`` leaves site-packages out and only
    ``cryptography`` (with what it needs) is put back, so every run proves the client needs
    nothing else. The trusted keys live in ``$SKILLGATE_HOME``, one folder per test."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_SETTINGS_MODULE", "SKILLGATE_URL"}
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), CRYPTOGRAPHY_SITE])
    if registry:
        env["SKILLGATE_URL"] = registry
    return subprocess.run(
        [sys.executable, "-S", "-m", "skillgate_cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
