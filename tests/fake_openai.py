"""A scripted OpenAI-compatible server on 127.0.0.1 for testing the LLM backend offline.

Use the `fake_openai` fixture: import `fake_openai_server` into a test module (the fixture
is registered under the name `fake_openai`), push scripted replies, point OPENAI_BASE_URL
at `.base_url`, then assert on `.requests`.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class HTTPError:
    """Reply with this HTTP status and an OpenAI-style error body."""

    status: int = 500
    message: str = "scripted server error"


@dataclass(frozen=True)
class Broken:
    """Reply 200 with a body that is not JSON at all."""

    body: str = '{"id": "chatcmpl-broken", "choices": [ <truncated'


@dataclass(frozen=True)
class Sleep:
    """Wait `seconds` (interrupted at shutdown), then reply with `content`."""

    seconds: float
    content: str = "{}"


Script = str | dict | HTTPError | Broken | Sleep


class FakeOpenAI:
    """The running server: `.base_url` (ends in /v1), `.requests` (JSON bodies), `.push()`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # Daemon handler threads: a handler still sleeping cannot block teardown.
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        # A short poll interval keeps shutdown (once per test) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def push(self, *items: Script) -> None:
        """Queue replies, served in order: a content string, a dict (sent as JSON) or an action."""
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been served yet."""
        with self._lock:
            return len(self._queue)

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self) -> Script | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep pytest output clean

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                with fake._lock:
                    fake.requests.append(body)
                item = fake._next()
                if item is None:
                    return self._send(500, {"error": {"message": "fake_openai: script empty"}})
                if isinstance(item, HTTPError):
                    return self._send(item.status, {"error": {"message": item.message}})
                if isinstance(item, Broken):
                    return self._send(200, item.body)
                if isinstance(item, Sleep):
                    if fake._stopping.wait(item.seconds):
                        return None
                    item = item.content
                content = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
                self._send(200, _completion(body.get("model", "fake"), content))
                return None

            def _send(self, status: int, payload: dict | str) -> None:
                data = payload if isinstance(payload, str) else json.dumps(payload)
                raw = data.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test): nothing to deliver

        return Handler


def _completion(model: str, content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@pytest.fixture(name="fake_openai")
def fake_openai_server() -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI on 127.0.0.1, shut down after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
