"""Talking to a Skillgate registry over HTTP (urllib): JSON in and out, archive bytes, the event
stream of a submission, and errors that say what happened and what to do.

Every request goes through ``Registry._open``, every body is read through ``_read`` (bounded in
size) and every JSON text is parsed by ``limits.loads`` (bounded in size and nesting), so what
the client sends and how much it reads is decided in one place. Every URL is built here from the
registry's base URL, never taken from a response; the URL is https, or plain http only to this
machine (loopback). What an answer *means* is trusted only once its signature is checked
(``skillgate_cli.signing``).
"""

from __future__ import annotations

import ipaddress
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from skillgate_cli import VERSION, limits

DEFAULT_REGISTRY = "http://127.0.0.1:8000"
TIMEOUT_S = 30
STREAM_TIMEOUT_S = 60
MAX_JSON_BYTES = limits.MAX_JSON_BYTES
MAX_ARCHIVE_BYTES = limits.MAX_ARCHIVE_BYTES
MAX_EVENT_BYTES = 1024 * 1024
KEYS_PATH = "/.well-known/skillgate/keys.json"


class RegistryError(Exception):
    """The registry could not be reached or answered something unusable."""


class NotFound(RegistryError):
    pass


class NotSignedIn(RegistryError):
    """401: no token, or the token was refused (the message says why)."""


class Forbidden(RegistryError):
    """403: the account may not do this, or (``code`` "token_scope") the token may not."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class Refused(RegistryError):
    """400/409/413/429…: the registry refused the request; ``errors`` names the fields."""

    def __init__(self, message: str, status: int, errors: dict[str, Any]) -> None:
        super().__init__(message)
        self.status = status
        self.errors = errors


class Gone(RegistryError):
    """410: quarantined (a version's archive, or every version of a skill); ``body`` holds the
    advisory or advisories."""

    def __init__(self, message: str, body: dict[str, Any]) -> None:
        super().__init__(message)
        self.body = body


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


@dataclass(frozen=True)
class StreamEvent:
    name: str
    data: dict[str, Any]
    event_id: str


class Registry:
    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = base_url(url)
        self.token = token

    # --- the public catalogue ----------------------------------------------------------------

    def skill(self, owner: str, name: str) -> dict[str, Any]:
        return self._json("GET", self._path("skills", owner, name), f"skill {owner}/{name}")

    def version(self, owner: str, name: str, version: str) -> dict[str, Any]:
        return self._json(
            "GET",
            self._path("skills", owner, name, "versions", version),
            f"version {owner}/{name}@{version}",
        )

    def skills_named(self, name: str) -> list[dict[str, Any]]:
        """Every owner's published skill called ``name``."""
        found = self._json(
            "GET", self._path("skills", query={"name": name, "limit": "50"}), "the skill list"
        )
        return _results(found)

    def search(self, words: str, limit: int) -> dict[str, Any]:
        return self._json(
            "GET", self._path("search", query={"q": words, "limit": str(limit)}), "the search"
        )

    def advisories_of(self, owner: str, name: str) -> list[dict[str, Any]]:
        found = self._json(
            "GET",
            self._path("advisories", query={"owner": owner, "name": name, "limit": "50"}),
            "the advisories",
        )
        return _results(found)

    def signing_keys(self) -> dict[str, Any]:
        """The registry's public keys (checked against the pinned ones by the caller)."""
        return self._json("GET", f"{self.url}{KEYS_PATH}", "the registry's signing keys")

    def archive(self, owner: str, name: str, version: str) -> bytes:
        """The archive's bytes (at most MAX_ARCHIVE_BYTES); Gone when quarantined."""
        what = f"the archive of {owner}/{name}@{version}"
        url = self._path("skills", owner, name, "versions", version, "archive")
        with self._open("GET", url, what, accept="application/gzip") as response:
            return _read(response, MAX_ARCHIVE_BYTES, what)

    def is_a_registry(self) -> bool:
        """Whether the URL answers like a Skillgate registry (its API root lists endpoints)."""
        try:
            root = self._json("GET", self._path(), "the API root")
        except RegistryError:
            return False
        return isinstance(root.get("endpoints"), list)

    # --- an author's account -----------------------------------------------------------------

    def limits(self) -> dict[str, Any]:
        return self._json("GET", self._path("limits"), "the submission limits")

    def account(self) -> dict[str, Any]:
        return self._json("GET", self._path("account"), "your account", auth=True)

    def submit(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._json("POST", self._path("submissions"), "the submission", body=body, auth=True)

    def submission(self, submission_id: str) -> dict[str, Any]:
        return self._json(
            "GET",
            self._path("submissions", submission_id),
            f"submission {submission_id}",
            auth=True,
        )

    def tokens(self) -> dict[str, Any]:
        return self._json("GET", self._path("tokens"), "your tokens", auth=True)

    def make_token(self, name: str, scopes: list[str], days: int) -> dict[str, Any]:
        body = {"name": name, "scopes": scopes, "expires_in_days": days}
        return self._json("POST", self._path("tokens"), "the token", body=body, auth=True)

    def revoke_token(self, token_id: str) -> None:
        path = self._path("tokens", token_id)
        with self._open("DELETE", path, f"token {token_id}", auth=True):
            return

    def status_change(
        self, owner: str, name: str, version: str, action: str, reason: str
    ) -> dict[str, Any]:
        path = self._path("skills", owner, name, "versions", version, action)
        body = {"reason": reason} if reason else {}
        return self._json("POST", path, f"{owner}/{name}@{version}", body=body, auth=True)

    def appeal(self, submission_id: str, reason: str) -> dict[str, Any]:
        path = self._path("submissions", submission_id, "appeal")
        return self._json(
            "POST", path, f"submission {submission_id}", body={"reason": reason}, auth=True
        )

    def follow(self, submission_id: str, after: str) -> Iterator[StreamEvent]:
        """The submission's server-sent events after event ``after`` ("" from the start), until
        the server ends this stream (it bounds each one's life: call again with the last id)."""
        headers = {"Last-Event-ID": after} if after else {}
        url = self._path("submissions", submission_id, "stream")
        with self._open(
            "GET",
            url,
            f"the stream of submission {submission_id}",
            accept="text/event-stream",
            auth=True,
            headers=headers,
            timeout=STREAM_TIMEOUT_S,
        ) as response:
            yield from _events(response)

    # --- the one way in and out ---------------------------------------------------------------

    def _path(self, *parts: str, query: dict[str, str] | None = None) -> str:
        path = f"{self.url}/api/v1/" + "/".join(urllib.parse.quote(p, safe="") for p in parts)
        return f"{path}?{urllib.parse.urlencode(query)}" if query else path

    def _open(
        self,
        method: str,
        url: str,
        what: str,
        *,
        accept: str = "application/json",
        body: dict[str, Any] | None = None,
        auth: bool = False,
        headers: dict[str, str] | None = None,
        timeout: float = TIMEOUT_S,
    ) -> Any:
        """The response of one request (a context manager), or the RegistryError that says
        what went wrong. The token is sent only where ``auth`` asks for it."""
        sent = {"Accept": accept, "User-Agent": f"skillgate-cli/{VERSION}", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        if auth:
            if not self.token:
                raise NotSignedIn(
                    f"you are not logged in to {self.url}: run `skillgate login` (or set "
                    "SKILLGATE_TOKEN)"
                )
            sent["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(url, data=data, headers=sent, method=method)
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as error:
            raise self._refused(error, _error_body(error), what) from error
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise RegistryError(f"cannot reach the registry at {self.url}: {reason}") from error

    def _json(
        self,
        method: str,
        url: str,
        what: str,
        *,
        body: dict[str, Any] | None = None,
        auth: bool = False,
    ) -> dict[str, Any]:
        with self._open(method, url, what, body=body, auth=auth) as response:
            content = _read(response, MAX_JSON_BYTES, what)
        try:
            data = limits.loads(content, f"the registry's answer for {what}")
        except limits.TooLarge as error:
            raise RegistryError(f"{error}; refused") from error
        except ValueError as error:
            raise RegistryError(
                f"{self.url} does not answer like a Skillgate registry (its answer for {what} "
                "is not JSON): check --registry or SKILLGATE_URL"
            ) from error
        if not isinstance(data, dict):
            raise RegistryError(f"the registry's answer for {what} is not a JSON object")
        return data

    def _refused(self, error: urllib.error.HTTPError, body: dict[str, Any], what: str) -> Exception:
        detail = str(body.get("detail") or error.reason)
        if error.code == 404:
            return NotFound(f"{what} is not in the registry at {self.url}")
        if error.code == 401:
            return NotSignedIn(
                f"{self.url} did not accept your token: {detail}. Run `skillgate login` again"
            )
        if error.code == 403:
            return Forbidden(f"{self.url} refused: {detail}", str(body.get("code", "")))
        if error.code == 410:
            return Gone(detail, body)
        if 400 <= error.code < 500:
            errors = body.get("errors")
            return Refused(detail, error.code, errors if isinstance(errors, dict) else {})
        return RegistryError(f"the registry answered {error.code} for {what}: {detail}")


def _read(response: Any, limit: int, what: str) -> bytes:
    content: bytes = response.read(limit + 1)
    if len(content) > limit:
        raise RegistryError(f"{what} is larger than {limit} bytes; refused")
    return content


def _results(page: dict[str, Any]) -> list[dict[str, Any]]:
    results = page.get("results")
    if not isinstance(results, list):
        raise RegistryError("the registry's list has no results")
    return [item for item in results if isinstance(item, dict)]


def _events(response: Any) -> Iterator[StreamEvent]:
    """Server-sent events, parsed as the standard says (comments and ``retry:`` skipped)."""
    name, event_id = "", ""
    data: list[str] = []
    while True:
        raw = response.readline(MAX_EVENT_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_EVENT_BYTES:
            raise RegistryError("the registry sent an event larger than the client accepts")
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                try:
                    parsed = limits.loads("\n".join(data), "an event from the registry")
                except limits.TooLarge as error:
                    raise RegistryError(f"{error}; refused") from error
                except ValueError as error:
                    raise RegistryError("the registry sent an event that is not JSON") from error
                yield StreamEvent(
                    name or "message", parsed if isinstance(parsed, dict) else {}, event_id
                )
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            event_id = value


def _error_body(error: urllib.error.HTTPError) -> dict[str, Any]:
    """The API's error body: JSON, or on the event stream one ``event: error`` holding it."""
    try:
        raw = error.read(limits.MAX_RECORD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return {}
    if raw.startswith(("event:", "id:")):
        raw = next((line[5:] for line in raw.splitlines() if line.startswith("data:")), "")
    try:
        data = limits.loads(raw, "an error answer")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
