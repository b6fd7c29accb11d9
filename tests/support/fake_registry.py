"""A stand-in Skillgate registry on 127.0.0.1 serving whatever archive a test builds, so the
real ``skillgate`` client can be fed hostile bytes that the real registry would never send."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
    lists ``files`` and publishes the archive's true sha256 unless told otherwise."""

    def __init__(
        self,
        archive: bytes,
        files: dict[str, bytes],
        *,
        owner: str = "mallory",
        name: str = "evil",
        version: str = "1.0.0",
        archive_sha256: str | None = None,
    ) -> None:
        self.owner, self.name, self.version = owner, name, version
        self.archive = archive
        base = f"/api/v1/skills/{owner}/{name}"
        detail = {
            "owner": owner,
            "name": name,
            "version": version,
            "status": "published",
            "status_reason": "",
            "bundle_sha256": "0" * 64,
            "archive_sha256": archive_sha256 or hashlib.sha256(archive).hexdigest(),
            "advisory": None,
            "files": [
                {"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                for path, data in files.items()
            ],
        }
        root = {"endpoints": [{"url": "/api/v1/skills", "who": "anyone", "what": "skills"}]}
        listing = {"count": 1, "results": [{"owner": owner, "name": name}]}
        self.routes: dict[str, tuple[str, bytes]] = {
            "/api/v1/": ("application/json", json.dumps(root).encode()),
            f"/api/v1/skills?name={name}&limit=50": (
                "application/json",
                json.dumps(listing).encode(),
            ),
            base: ("application/json", json.dumps({"latest_version": version}).encode()),
            f"{base}/versions/{version}": ("application/json", json.dumps(detail).encode()),
            f"{base}/versions/{version}/archive": ("application/gzip", archive),
        }
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

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
                content_type, body = routes.get(self.path, ("application/json", b""))
                self.send_response(200 if self.path in routes else 404)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
