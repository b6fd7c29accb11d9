"""Talking to a Skillgate registry over HTTP (urllib): JSON in, archive bytes out, and errors
that say what happened. Every URL is built here from the registry's base URL, never taken from a
response."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from skillgate_cli import VERSION

DEFAULT_REGISTRY = "http://127.0.0.1:8000"
TIMEOUT_S = 30
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024


class RegistryError(Exception):
    """The registry could not be reached or answered something unusable."""


class NotFound(RegistryError):
    pass


class Quarantined(RegistryError):
    """The registry refuses the archive: the version is quarantined (``advisory`` says why)."""

    def __init__(self, message: str, advisory: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.advisory = advisory


def base_url(url: str) -> str:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        raise RegistryError(f"the registry URL must be http:// or https://…, not {url!r}")
    return url.rstrip("/")


class Registry:
    def __init__(self, url: str) -> None:
        self.url = base_url(url)

    def skill(self, owner: str, name: str) -> dict[str, Any]:
        return self._json(self._path("skills", owner, name), f"skill {owner}/{name}")

    def version(self, owner: str, name: str, version: str) -> dict[str, Any]:
        return self._json(
            self._path("skills", owner, name, "versions", version),
            f"version {owner}/{name}@{version}",
        )

    def archive(self, owner: str, name: str, version: str) -> bytes:
        """The archive's bytes (at most MAX_ARCHIVE_BYTES); Quarantined on 410 Gone."""
        what = f"the archive of {owner}/{name}@{version}"
        url = self._path("skills", owner, name, "versions", version, "archive")
        try:
            with self._open(url, "application/gzip") as response:
                content = response.read(MAX_ARCHIVE_BYTES + 1)
        except urllib.error.HTTPError as error:
            body = _error_body(error)
            if error.code == 410:
                raise Quarantined(
                    body.get("detail") or f"{what} is refused: the version is quarantined",
                    body.get("advisory"),
                ) from error
            raise self._refused(error, body, what) from error
        except (urllib.error.URLError, OSError) as error:
            raise self._unreachable(error) from error
        if len(content) > MAX_ARCHIVE_BYTES:
            raise RegistryError(f"{what} is larger than {MAX_ARCHIVE_BYTES} bytes; refused")
        return content

    def _path(self, *parts: str) -> str:
        return f"{self.url}/api/v1/" + "/".join(urllib.parse.quote(p, safe="") for p in parts)

    def _open(self, url: str, accept: str) -> Any:
        request = urllib.request.Request(
            url, headers={"Accept": accept, "User-Agent": f"skillgate-cli/{VERSION}"}
        )
        return urllib.request.urlopen(request, timeout=TIMEOUT_S)

    def _json(self, url: str, what: str) -> dict[str, Any]:
        try:
            with self._open(url, "application/json") as response:
                content = response.read(MAX_JSON_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise self._refused(error, _error_body(error), what) from error
        except (urllib.error.URLError, OSError) as error:
            raise self._unreachable(error) from error
        try:
            data = json.loads(content)
        except ValueError as error:
            raise RegistryError(f"the registry's answer for {what} is not JSON") from error
        if not isinstance(data, dict):
            raise RegistryError(f"the registry's answer for {what} is not a JSON object")
        return data

    def _refused(self, error: urllib.error.HTTPError, body: dict[str, Any], what: str) -> Exception:
        if error.code == 404:
            return NotFound(f"{what} is not in the registry at {self.url}")
        detail = body.get("detail") or error.reason
        return RegistryError(f"the registry answered {error.code} for {what}: {detail}")

    def _unreachable(self, error: Exception) -> RegistryError:
        reason = getattr(error, "reason", error)
        return RegistryError(f"cannot reach the registry at {self.url}: {reason}")


def _error_body(error: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        data = json.loads(error.read(MAX_JSON_BYTES))
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}
