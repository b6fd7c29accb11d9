"""Where the client keeps what it knows about its user: the API token of each registry it was
logged in to, and which registry it uses by default. One JSON file, readable by its owner only
(0600, in a 0700 folder): ``$SKILLGATE_CONFIG``, else ``$XDG_CONFIG_HOME/skillgate/config.json``,
else ``~/.config/skillgate/config.json``. ``SKILLGATE_TOKEN`` wins over a stored token."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

TOKEN_ENV = "SKILLGATE_TOKEN"
MAX_CONFIG_BYTES = 1024 * 1024


class ConfigError(Exception):
    """The config file cannot be read or written; the message says which and why."""


def config_path() -> Path:
    explicit = os.environ.get("SKILLGATE_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "skillgate" / "config.json"


def load() -> dict[str, Any]:
    path = config_path()
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from error
    try:
        data = json.loads(raw) if len(raw) <= MAX_CONFIG_BYTES else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a skillgate config file; move it away and log in again")
    return data


def save(data: dict[str, Any]) -> Path:
    """Write the whole file at once (a new file renamed over the old), owner-only."""
    path = config_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".config.", dir=path.parent)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(temporary, path)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror}") from error
    return path


def stored_token(registry: str) -> str | None:
    entry = load().get("registries", {}).get(registry)
    token = entry.get("token") if isinstance(entry, dict) else None
    return token if isinstance(token, str) and token else None


def token_for(registry: str) -> tuple[str | None, str]:
    """The token to send to ``registry`` and where it came from (for messages)."""
    from_environment = os.environ.get(TOKEN_ENV, "").strip()
    if from_environment:
        return from_environment, f"${TOKEN_ENV}"
    stored = stored_token(registry)
    return stored, str(config_path()) if stored else ""


def remember_login(registry: str, token: str, username: str) -> Path:
    data = load()
    registries = data.setdefault("registries", {})
    registries[registry] = {"token": token, "username": username}
    data["default_registry"] = registry
    return save(data)


def forget_login(registry: str) -> bool:
    data = load()
    registries = data.get("registries", {})
    if registry not in registries:
        return False
    del registries[registry]
    if data.get("default_registry") == registry:
        data.pop("default_registry")
    save(data)
    return True


def default_registry() -> str | None:
    try:
        value = load().get("default_registry")
    except ConfigError:
        return None
    return value if isinstance(value, str) and value else None
