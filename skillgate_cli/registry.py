"""Talking to a Skillgate registry over HTTP (urllib): JSON in, archive bytes out, and errors
that say what happened. Every URL is built here from the registry's base URL, never taken from a
response; the URL is https, or plain http only to this machine (loopback).

``Registry.get`` is the one way a response is read (bounded in size), and ``Registry.json`` the
one way it is parsed (bounded in size and nesting, ``skillgate_cli.limits``): every command goes
through them. What the answer *means* is trusted only once its signature is checked
(``skillgate_cli.signing``).
"""

from __future__ import annotations

import ipaddress
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from skillgate_cli import VERSION, limits

DEFAULT_REGISTRY = "http://127.0.0.1:8000"
TIMEOUT_S = 30
MAX_JSON_BYTES = limits.MAX_JSON_BYTES
MAX_ARCHIVE_BYTES = limits.MAX_ARCHIVE_BYTES
KEYS_PATH = "/.well-known/skillgate/keys.json"


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
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise RegistryError(f"the registry URL must be https://…, not {url!r}")
    if parsed.scheme == "http" and not is_loopback(parsed.hostname):
        raise RegistryError(
            f"refusing plain http to {parsed.hostname}: anyone on the way could change what is "
            "installed; use https:// (plain http is allowed only to this machine)"
        )
    return url.rstrip("/")


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Registry:
    def __init__(self, url: str) -> None:
        self.url = base_url(url)

    def skill(self, owner: str, name: str) -> dict[str, Any]:
        return self.json(self._path("skills", owner, name), f"skill {owner}/{name}")

    def version(self, owner: str, name: str, version: str) -> dict[str, Any]:
        return self.json(
            self._path("skills", owner, name, "versions", version),
            f"version {owner}/{name}@{version}",
        )

    def signing_keys(self) -> dict[str, Any]:
        """The registry's public keys (checked against the pinned ones by the caller)."""
        return self.json(f"{self.url}{KEYS_PATH}", "the registry's signing keys")

    def archive(self, owner: str, name: str, version: str) -> bytes:
        """The archive's bytes (at most MAX_ARCHIVE_BYTES); Quarantined on 410 Gone."""
        what = f"the archive of {owner}/{name}@{version}"
        url = self._path("skills", owner, name, "versions", version, "archive")
        try:
            return self.get(url, "application/gzip", MAX_ARCHIVE_BYTES, what)
        except _Refused as refused:
            if refused.error.code == 410:
                raise Quarantined(
                    refused.body.get("detail") or f"{what} is refused: the version is quarantined",
                    refused.body.get("advisory"),
                ) from refused.error
            raise self._refused(refused.error, refused.body, what) from refused.error

    def get(self, url: str, accept: str, max_bytes: int, what: str) -> bytes:
        """The body of a GET of ``url`` (built from the base URL), refused over ``max_bytes``;
        an HTTP error status raises _Refused with its (bounded, parsed) body."""
        try:
            with self._open(url, accept) as response:
                content: bytes = response.read(max_bytes + 1)
        except urllib.error.HTTPError as error:
            raise _Refused(error, _error_body(error)) from error
        except (urllib.error.URLError, OSError) as error:
            raise self._unreachable(error) from error
        if len(content) > max_bytes:
            raise RegistryError(f"{what} is larger than {max_bytes} bytes; refused")
        return content

    def json(self, url: str, what: str) -> dict[str, Any]:
        """A JSON object from ``url``, bounded in size and nesting."""
        try:
            content = self.get(url, "application/json", MAX_JSON_BYTES, what)
        except _Refused as refused:
            raise self._refused(refused.error, refused.body, what) from refused.error
        try:
            data = limits.loads(content, f"the registry's answer for {what}")
        except ValueError as error:
            raise RegistryError(str(error)) from error
        if not isinstance(data, dict):
            raise RegistryError(f"the registry's answer for {what} is not a JSON object")
        return data

    def _path(self, *parts: str) -> str:
        return f"{self.url}/api/v1/" + "/".join(urllib.parse.quote(p, safe="") for p in parts)

    def _open(self, url: str, accept: str) -> Any:
        request = urllib.request.Request(
            url, headers={"Accept": accept, "User-Agent": f"skillgate-cli/{VERSION}"}
        )
        return urllib.request.urlopen(request, timeout=TIMEOUT_S)

    def _refused(self, error: urllib.error.HTTPError, body: dict[str, Any], what: str) -> Exception:
        if error.code == 404:
            return NotFound(f"{what} is not in the registry at {self.url}")
        detail = body.get("detail") or error.reason
        return RegistryError(f"the registry answered {error.code} for {what}: {detail}")

    def _unreachable(self, error: Exception) -> RegistryError:
        reason = getattr(error, "reason", error)
        return RegistryError(f"cannot reach the registry at {self.url}: {reason}")


class _Refused(Exception):
    def __init__(self, error: urllib.error.HTTPError, body: dict[str, Any]) -> None:
        super().__init__(str(error))
        self.error = error
        self.body = body


def _error_body(error: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        data = limits.loads(error.read(limits.MAX_RECORD_BYTES + 1), "an error answer")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}
