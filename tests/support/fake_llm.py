"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1, so the judge's real client code runs.

Answers are chosen in this order: the next scripted reply (``replies``, for a test that knows
exactly which calls come), then the first behaviour whose marker appears in the request (for
tests where several submissions share one endpoint: "slow the first time", "always 500"), then
``default``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import cycle
from typing import Any

from grading.judges.prompt import CRITERIA_NAMES


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay_s: float = 0.0


@dataclass
class Behaviour:
    marker: str
    reply: Reply
    first_calls: int | None = None
    calls: int = 0


def completion(
    content: str | None, *, finish_reason: str = "stop", refusal: str | None = None
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
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
    """A valid judgement in the judge's JSON schema, with ``overrides`` applied."""
    data: dict[str, Any] = {
        "score": 92,
        "verdict": "PASS",
        "concerns": [],
        "criteria": dict(zip(CRITERIA_NAMES, cycle((95, 90)), strict=False)),
        "confidence": 0.8,
    }
    data.update(overrides)
    return json.dumps(data)


GOOD_ANSWER = Reply(body=completion(answer()))
NO_REPLY = Reply(500, {"error": {"message": "no reply scripted", "type": "server"}})


@dataclass
class FakeLLM:
    default: Reply = field(default_factory=lambda: GOOD_ANSWER)
    replies: list[Reply] = field(default_factory=list)
    behaviours: list[Behaviour] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def on(self, marker: str, *, first_calls: int | None = None, **reply: Any) -> Behaviour:
        """Answer requests containing ``marker`` with ``Reply(**reply)`` (the first N only)."""
        failing = reply.get("status", 200) != 200
        reply.setdefault("body", NO_REPLY.body if failing else GOOD_ANSWER.body)
        behaviour = Behaviour(marker, Reply(**reply), first_calls)
        with self._lock:
            self.behaviours.append(behaviour)
        return behaviour

    def calls_with(self, marker: str) -> int:
        with self._lock:
            return sum(marker in json.dumps(request["json"]) for request in self.requests)

    def _choose(self, request: dict[str, Any]) -> Reply:
        text = json.dumps(request["json"])
        with self._lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.pop(0)
            for behaviour in self.behaviours:
                if behaviour.marker in text and (
                    behaviour.first_calls is None or behaviour.calls < behaviour.first_calls
                ):
                    behaviour.calls += 1
                    return behaviour.reply
        return self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"null")
                reply = fake._choose({"path": self.path, "json": body})
                time.sleep(reply.delay_s)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload.encode())))
                    self.end_headers()
                    self.wfile.write(payload.encode())
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler
