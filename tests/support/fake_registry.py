"""A stand-in Skillgate registry on 127.0.0.1 serving whatever archive a test builds, so the
real ``skillgate`` client can be fed hostile bytes that the real registry would never send —
signed with the stand-in's own key, or re-signed with another, or not signed at all."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from registry.attestations import STATUS_PREDICATE, VERDICT_PREDICATE
from registry.signing import IN_TOTO_PAYLOAD_TYPE, envelope, key_id, public_b64
from skillgate_cli.signing import bundle_sha256


@dataclass(frozen=True)
class Entry:
    """One tar entry: a regular file by default; ``kind`` and ``target`` make links, devices."""

    name: str
    content: bytes = b""
    kind: bytes = tarfile.REGTYPE
    target: str = ""


def tar_gz(entries: Iterable[Entry]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            info = tarfile.TarInfo(entry.name)
            info.type = entry.kind
            info.linkname = entry.target
            if entry.kind == tarfile.REGTYPE:
                info.size = len(entry.content)
                tar.addfile(info, io.BytesIO(entry.content))
            else:
                tar.addfile(info)
    return gzip.compress(raw.getvalue(), mtime=0)


class FakeRegistry:
    """Serves one skill, OWNER/NAME@VERSION, whose archive is ``archive``; the version detail
    lists ``files``. Like the real registry it signs the version's verdict and status with its
    own key (``key``; ``resign`` switches to another at the same URL) and serves that key at the
    well-known URL; the signed archive sha256 is the true one unless told otherwise, and
    ``signed=False`` serves no signatures at all."""

    def __init__(
        self,
        archive: bytes,
        files: dict[str, bytes],
        *,
        owner: str = "mallory",
        name: str = "evil",
        version: str = "1.0.0",
        archive_sha256: str | None = None,
        status: str = "published",
        signed: bool = True,
        key: Ed25519PrivateKey | None = None,
    ) -> None:
        self.owner, self.name, self.version = owner, name, version
        self.archive = archive
        self.files = files
        self.status = status
        self.signed = signed
        self.signed_sha256 = archive_sha256 or hashlib.sha256(archive).hexdigest()
        self.key = key or Ed25519PrivateKey.generate()
        self.routes: dict[str, tuple[str, bytes | str]] = {}
        self.base = f"/api/v1/skills/{owner}/{name}"
        self._build()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def resign(self, key: Ed25519PrivateKey) -> None:
        """Sign with another key from now on (and serve only that key)."""
        self.key = key
        self._build()

    def _build(self) -> None:
        ref = f"{self.owner}/{self.name}@{self.version}"
        detail: dict[str, object] = {
            "owner": self.owner,
            "name": self.name,
            "version": self.version,
            "status": self.status,
            "status_reason": "",
            "bundle_sha256": bundle_sha256(self.files),
            "archive_sha256": self.signed_sha256,
            "advisory": None,
            "files": [
                {"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                for path, data in self.files.items()
            ],
        }
        if self.signed:
            now = datetime.now(UTC)
            detail["attestations"] = {
                "verdict": self._statement(
                    VERDICT_PREDICATE,
                    {"skill": ref.split("@")[0], "version": self.version,
                     "bundle_sha256": bundle_sha256(self.files)},
                ),
                "status": self._statement(
                    STATUS_PREDICATE,
                    {"skill": ref.split("@")[0], "version": self.version, "status": self.status,
                     "issued_at": now.isoformat(),
                     "valid_until": (now + timedelta(days=1)).isoformat()},
                ),
            }  # fmt: skip
        public = self.key.public_key()
        keys = {"keys": [{"keyid": key_id(public), "public_key": public_b64(public)}]}
        root = {"endpoints": [{"url": "/api/v1/skills", "who": "anyone", "what": "skills"}]}
        listing = {"count": 1, "results": [{"owner": self.owner, "name": self.name}]}
        self.routes.update(
            {
                "/api/v1/": ("application/json", json.dumps(root)),
                f"/api/v1/skills?name={self.name}&limit=50": (
                    "application/json",
                    json.dumps(listing),
                ),
                self.base: (
                    "application/json",
                    json.dumps({"latest_version": self.version}).encode(),
                ),
                f"{self.base}/versions/{self.version}": ("application/json", json.dumps(detail)),
                f"{self.base}/versions/{self.version}/archive": ("application/gzip", self.archive),
                "/.well-known/skillgate/keys.json": ("application/json", json.dumps(keys)),
            }
        )

    def _statement(self, predicate_type: str, predicate: dict[str, object]) -> dict[str, object]:
        statement = {
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [
                {
                    "name": f"{self.owner}/{self.name}@{self.version}.tar.gz",
                    "digest": {"sha256": self.signed_sha256},
                }
            ],
            "predicateType": predicate_type,
            "predicate": predicate,
        }
        return envelope(IN_TOTO_PAYLOAD_TYPE, json.dumps(statement).encode(), self.key)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FakeRegistry:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        routes = self.routes

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                content_type, served = routes.get(self.path, ("application/json", b""))
                body = served.encode() if isinstance(served, str) else served
                self.send_response(200 if self.path in routes else 404)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
