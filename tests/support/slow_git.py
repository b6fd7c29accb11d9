"""A deliberately slow git host on 127.0.0.1: it accepts every connection and never answers,
as a git server stuck behind a dead backend does. git (over https) waits for the TLS handshake
until the registry's own time limit kills it."""

from __future__ import annotations

import socket
import threading


class HangingGitHost:
    def __init__(self) -> None:
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._held: list[socket.socket] = []
        self._stopped = threading.Event()
        self.accepted = 0
        self.host = f"127.0.0.1:{self._listener.getsockname()[1]}"
        """The host entry to allow (``127.0.0.1:PORT``)."""

    def url(self, owner: str = "slow", repo: str = "skills") -> str:
        return f"https://{self.host}/{owner}/{repo}"

    def start(self) -> HangingGitHost:
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self) -> None:
        self._listener.settimeout(0.2)
        while not self._stopped.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self._held.append(connection)

    def stop(self) -> None:
        self._stopped.set()
        for connection in self._held:
            connection.close()
        self._listener.close()
