"""A fault-injecting model server for the fault suite: a loopback HTTP proxy in front
of the loopback fake (`trainer_dev.local.fake_llm.FakeLLMServer`, which it forwards to unchanged) that, on
demand, answers the chat agent's next Messages API calls with a fault instead:

- `overloaded`: HTTP 529 `overloaded_error` (the SDK retries it, then gives up);
- `server_error`: HTTP 500 `api_error`;
- `cut`: a stream that starts a `message_notify_user` answer and ends mid-sentence, without
  `content_block_stop`, `message_delta` or `message_stop` (the connection just closes);
- `hang`: the request is read and never answered (until `release()` or the server stops);
- `bad_json`: a complete stream whose tool input is not JSON;
- `off_schema`: a complete, well-formed answer whose tool arguments break the tool's schema;
- `hold`: the request waits until `release()`, then is forwarded (a point mid-turn where the test
  breaks a store while the turn waits for its model).

The code under test talks to it through the real anthropic SDK over HTTP (`ANTHROPIC_BASE_URL`).
Requests of the registry agents (the `x-trainer-agent` header) are always forwarded: the faults target
the chat agent's calls. Runs in its own threads, so the test's event loop stays free."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from trainer.providers.ports import AGENT_HEADER

Fault = Literal["overloaded", "server_error", "cut", "hang", "bad_json", "off_schema", "hold"]
HANG_LIMIT_S = 120.0
"""A hung request is released after this long at the latest (a stuck test must not hold a thread)."""
CUT_TEXT = "Here is half of a sente"
HOP_HEADERS = {"connection", "transfer-encoding", "content-length", "keep-alive", "host"}


@dataclass
class Exchange:
    """One request the server saw: what it did with it and when."""

    path: str
    fault: Fault | None
    agent: str | None
    received_at: float = field(default_factory=time.monotonic)


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def message_start(model: str) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_fault",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": model,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 1},
        },
    }


def tool_use_events(
    model: str, tool: str, partial_json: list[str], *, finished: bool
) -> list[dict[str, Any]]:
    """A tool_use answer streamed in `partial_json` pieces; `finished=False` stops before the block ends."""
    events = [
        message_start(model),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "tool_use",
                "id": f"toolu_{time.monotonic_ns()}",
                "name": tool,
                "input": {},
            },
        },
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
            for p in partial_json
        ),
    ]
    if finished:
        events += [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
            {"type": "message_stop"},
        ]
    return events


def error_body(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


class FaultyModelServer:
    """`with FaultyModelServer(fake.base_url) as faulty:` then point ANTHROPIC_BASE_URL at
    `faulty.base_url`; `inject("cut")` faults the chat agent's next call, `always("hang")` every one
    until `always(None)`."""

    def __init__(self, upstream_base_url: str) -> None:
        parts = urlsplit(upstream_base_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.exchanges: list[Exchange] = []
        self._next: deque[Fault] = deque()
        self._always: Fault | None = None
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- control ---

    def inject(self, *faults: Fault) -> None:
        """The chat agent's next calls get these faults, one each, in order."""
        with self._lock:
            self._next.extend(faults)

    def always(self, fault: Fault | None) -> None:
        """Every chat agent call gets `fault` (None: forwarded again)."""
        with self._lock:
            self._always = fault
        if fault not in ("hang", "hold"):
            self._released.set()
        else:
            self._released.clear()

    def release(self) -> None:
        """Ends every hung request (its connection closes without an answer) and forwards the held ones."""
        self._released.set()

    def hold_next(self) -> None:
        """The chat agent's next call waits for `release()` (then is answered as usual)."""
        self._released.clear()
        self.inject("hold")

    def wait_for_chat_calls(self, count: int, timeout: float = 30.0) -> None:
        """Blocks until the chat agent made `count` calls (raises TimeoutError after `timeout`)."""
        end = time.monotonic() + timeout
        while len(self.chat_calls()) < count:
            if time.monotonic() > end:
                raise TimeoutError(f"{len(self.chat_calls())} chat calls, waited for {count}")
            time.sleep(0.02)

    def faulted(self) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if e.fault is not None]

    def chat_calls(self) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if e.agent is None and e.path.endswith("/messages")]

    def _take(self, path: str, agent: str | None) -> Fault | None:
        with self._lock:
            fault: Fault | None = None
            if agent is None and path.endswith("/messages"):
                fault = self._next.popleft() if self._next else self._always
            self.exchanges.append(Exchange(path, fault, agent))
            return fault

    # --- lifecycle ---

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the faulty model server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Self:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="faulty-model",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def wait_released(self) -> None:
        self._released.wait(HANG_LIMIT_S)


def _handler(server: FaultyModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        """Responses end when the connection closes: a cut stream is a closed connection."""

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_GET(self) -> None:
            self._forward(b"")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            fault = server._take(self.path, self.headers.get(AGENT_HEADER))
            if fault is None:
                self._forward(body)
                return
            model = str(json.loads(body or b"{}").get("model") or "claude-haiku-4-5")
            match fault:
                case "overloaded":
                    self._json(529, error_body("overloaded_error", "Overloaded"))
                case "server_error":
                    self._json(500, error_body("api_error", "Internal server error"))
                case "hang":
                    server.wait_released()
                case "hold":
                    server.wait_released()
                    self._forward(body)
                case "cut":
                    pieces = ['{"message": "', CUT_TEXT[:10], CUT_TEXT[10:]]
                    self._stream(tool_use_events(model, "message_notify_user", pieces, finished=False))
                case "bad_json":
                    pieces = ['{"message": "Hi', '"}}, ]nope{']
                    self._stream(tool_use_events(model, "message_notify_user", pieces, finished=True))
                case "off_schema":
                    pieces = [json.dumps({"message": {"not": "a string"}, "extra": [1, 2, 3]})]
                    self._stream(tool_use_events(model, "message_notify_user", pieces, finished=True))

        def _json(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("retry-after-ms", "20")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, events: list[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(sse(events))
            self.wfile.flush()

        def _forward(self, body: bytes) -> None:
            upstream = http.client.HTTPConnection(*server.upstream, timeout=HANG_LIMIT_S)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                headers["content-length"] = str(len(body))
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in HOP_HEADERS:
                        self.send_header(key, value)
                self.end_headers()
                while chunk := answer.read1(65536):
                    self.wfile.write(chunk)
                    self.wfile.flush()
            finally:
                upstream.close()

    return Handler
