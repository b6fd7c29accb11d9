"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1 for the LLM judge tests (no mocks)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay_s: float = 0.0


def completion(
    content: str | None, *, finish_reason: str = "stop", refusal: str | None = None
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-judge-1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def answer(**overrides: Any) -> str:
    data: dict[str, Any] = {
        "score": 92,
        "verdict": "PASS",
        "concerns": [],
        "criteria": {
            "instruction_integrity": 95,
            "transparency": 90,
            "data_protection": 95,
            "execution_safety": 90,
            "system_safety": 95,
            "supply_chain": 90,
        },
        "confidence": 0.8,
    }
    data.update(overrides)
    return json.dumps(data)


@dataclass
class FakeEndpoint:
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


def serve() -> Iterator[FakeEndpoint]:
    endpoint = FakeEndpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            endpoint.requests.append(
                {"path": self.path, "json": json.loads(self.rfile.read(length))}
            )
            reply = (
                endpoint.replies.pop(0) if endpoint.replies else Reply(500, {"error": "no reply"})
            )
            time.sleep(reply.delay_s)
            payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload.encode())))
                self.end_headers()
                self.wfile.write(payload.encode())
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
