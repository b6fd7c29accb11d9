"""A real git host on 127.0.0.1: ``git http-backend`` (smart HTTP, protocol v2) behind a small
HTTPS server, with a certificate of its own that the registry is told to trust
(``SKILLGATE_GIT_CA_BUNDLE``).

It serves real repositories as a hosting site does, including what such sites serve to anyone:
pull request heads (``refs/pull/N/head``, advertised like any ref) and any commit by its id
(``uploadpack.allowAnySHA1InWant``: a fork's commits through the parent repository).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.git_repos import git

HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, written to ``folder``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "git-host.pem", folder / "git-host.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class GitHost:
    """Serves the repositories under ``root`` (``root/OWNER/REPO``, made by
    ``tests.support.git_repos.make_repo``) at ``https://127.0.0.1:PORT/OWNER/REPO``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project_root = root / ".served"
        self.project_root.mkdir(parents=True, exist_ok=True)
        self.ca_bundle, key = self_signed_certificate(root)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.ca_bundle, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        """The host entry to allow (``127.0.0.1:PORT``)."""
        self.requests: list[str] = []

    def serve(self, repo: Path) -> str:
        """Publish the repository ``repo`` (ROOT/OWNER/REPO); returns its URL."""
        owner, name = repo.parent.name, repo.name
        git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
        git(repo, "config", "http.receivepack", "false")
        served = self.project_root / owner / f"{name}.git"
        served.parent.mkdir(parents=True, exist_ok=True)
        if not served.exists():
            served.symlink_to(repo / ".git")
        return self.url(owner, name)

    def url(self, owner: str, name: str) -> str:
        return f"https://{self.host}/{owner}/{name}"

    def start(self) -> GitHost:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:
                self._backend()

            def do_POST(self) -> None:
                self._backend()

            def _backend(self) -> None:
                path, _, query = self.path.partition("?")
                host.requests.append(path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                env = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": str(host.project_root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "GIT_CONFIG_GLOBAL": os.devnull,
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_ADDR": self.client_address[0],
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                }
                result = subprocess.run(
                    [HTTP_BACKEND], input=body, env=env, capture_output=True, timeout=60
                )
                head, _, payload = result.stdout.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
