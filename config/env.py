"""Typed readers for environment variables, so every setting has one safe default."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT_SECRET_KEY = "skillgate-insecure-development-key-change-me"


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"environment variable {name} must be an integer, got {raw!r}") from exc


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"environment variable {name} must be a number, got {raw!r}") from exc


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"environment variable {name} must be true or false, got {raw!r}")


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip()
    if value not in choices:
        raise ValueError(
            f"environment variable {name} must be one of {', '.join(choices)}, got {raw!r}"
        )
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def load_env_file(path: Path) -> None:
    """Read ``KEY=VALUE`` lines from ``path`` into the environment, without overriding what the
    environment already sets.

    ``make run`` writes ``var/local.env`` (which database and broker it started), so that a
    ``manage.py`` command typed in another terminal talks to the same running system.
    A missing file changes nothing.
    """
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, separator, value = stripped.partition("=")
        if not separator or not key.strip().isidentifier():
            raise ValueError(f"{path}:{number}: expected KEY=VALUE, got {line!r}")
        os.environ.setdefault(key.strip(), value.strip())


def secret_key(configured: str, key_file: Path, *, dev_mode: bool) -> str:
    """``configured`` (DJANGO_SECRET_KEY), else the key in ``key_file``, else (dev mode only)
    the built-in key.

    Outside the explicit development/test mode the built-in key is refused: anyone can read it
    in this repository and forge sessions, CSRF tokens and password-reset links with it.
    """
    key = configured.strip()
    if not key and key_file.is_file():
        key = key_file.read_text().strip()
    if not key and dev_mode:
        return DEVELOPMENT_SECRET_KEY
    if not key:
        raise ImproperlyConfigured(
            "No secret key: set DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE to a file holding "
            "one; `make run` generates var/secrets/django-secret-key)."
        )
    if key == DEVELOPMENT_SECRET_KEY and not dev_mode:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is the built-in development key, which is public: set a secret "
            "one (the built-in key is only for SKILLGATE_DEV_MODE=1, the test suite)."
        )
    return key
