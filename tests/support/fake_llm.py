"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1 for the judge's real client code.

Tests script its answers by marker: when a request's text contains a marker, the matching
behaviour answers (a status code, a delay, a canned body); otherwise it answers a valid
judgement. Each behaviour can apply to the first N matching calls only, so "slow the first
time, fast on redelivery" is expressible.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from grading.judges.prompt import CRITERIA_NAMES

GOOD_JUDGEMENT = {
    "score": 92,
    "verdict": "PASS",
    "concerns": [],
    "criteria": dict.fromkeys(CRITERIA_NAMES, 92),
    "confidence": 0.9,
}


@dataclass
class Behaviour:
    marker: str
    status: int = 200
    delay_s: float = 0.0
    content: str | None = None
    first_calls: int | None = None
    calls: int = 0


@dataclass
class FakeLLM:
    behaviours: list[Behaviour] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    default_content: str = json.dumps(GOOD_JUDGEMENT)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def on(self, marker: str, **kwargs: object) -> Behaviour:
        behaviour = Behaviour(marker, **kwargs)  # type: ignore[arg-type]
        with self._lock:
            self.behaviours.append(behaviour)
        return behaviour

    def calls_with(self, marker: str) -> int:
        with self._lock:
            return sum(marker in request for request in self.requests)

    def _choose(self, text: str) -> Behaviour | None:
        with self._lock:
            self.requests.append(text)
            for behaviour in self.behaviours:
                if behaviour.marker in text and (
                    behaviour.first_calls is None or behaviour.calls < behaviour.first_calls
                ):
                    behaviour.calls += 1
                    return behaviour
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                text = self.rfile.read(length).decode("utf-8", "replace")
                behaviour = fake._choose(text)
                if behaviour and behaviour.delay_s:
                    time.sleep(behaviour.delay_s)
                status = behaviour.status if behaviour else 200
                content = (behaviour.content if behaviour else None) or fake.default_content
                if status != 200:
                    body = {"error": {"message": f"fake failure {status}", "type": "server"}}
                else:
                    body = completion(content)
                payload = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler


def completion(content: str, finish_reason: str = "stop") -> dict[str, object]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-judge",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }
