"""In-process stand-in for EventBridge in the local stack: delivers the same envelope a Lambda receives.

`BusEndpoint` lets another process publish to it: an HTTP endpoint on 127.0.0.1 that answers
EventBridge's `PutEvents` (the JSON protocol boto3's events client speaks), so `trainer schedule` hands
events to the running stack's handlers with the production publisher (trainer.store.bus), as the
scheduler does to the bus in AWS. The stack writes where it listens to `bus.json` in its data directory
(`running_bus` reads it) and deletes the file when it stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from trainer.store.bus import SOURCE, encode_detail

logger = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], Any], Any]
LOCAL_ACCOUNT = "000000000000"


@dataclass
class LocalLambdaContext:
    """The parts of the Lambda context object handlers and Powertools read."""

    function_name: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    memory_limit_in_mb: int = 512
    timeout_ms: int = 900_000
    invoked_function_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""

    def __post_init__(self) -> None:
        self._started = datetime.now(UTC)
        if not self.invoked_function_arn:
            self.invoked_function_arn = f"arn:aws:lambda:local:{LOCAL_ACCOUNT}:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        elapsed = (datetime.now(UTC) - self._started).total_seconds() * 1000
        return max(0, int(self.timeout_ms - elapsed))


class InProcessBus:
    """`EventPublisher` that dispatches to subscribed handlers in worker threads, without blocking the caller.

    Handler errors are logged and kept in `failures`; `await drain()` waits for dispatches in flight.
    """

    def __init__(self, region: str = "us-east-1", account: str = LOCAL_ACCOUNT, max_workers: int = 4) -> None:
        self._region = region
        self._account = account
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="bus")
        self._pending: set[Future[None]] = set()
        self._lock = threading.Lock()
        self.failures: list[tuple[str, BaseException]] = []

    def subscribe(self, detail_type: str, handler: Handler) -> None:
        self._handlers[detail_type].append(handler)

    def envelope(self, detail_type: str, detail: dict[str, Any]) -> dict[str, Any]:
        return {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": detail_type,
            "source": SOURCE,
            "account": self._account,
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self._region,
            "resources": [],
            "detail": json.loads(encode_detail(detail)),
        }

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        self.publish_nowait(detail_type, detail)

    def publish_nowait(self, detail_type: str, detail: dict[str, Any]) -> str:
        """Hands the event to each handler of its type (none: it is dropped, as EventBridge drops an event
        no rule matches); the envelope's id."""
        envelope = self.envelope(detail_type, detail)
        text = json.dumps(envelope)
        for handler in list(self._handlers.get(detail_type, ())):
            future = self._executor.submit(self._deliver, handler, json.loads(text))
            with self._lock:
                self._pending.add(future)
            future.add_done_callback(self._forget)
        return str(envelope["id"])

    async def drain(self) -> None:
        while True:
            with self._lock:
                pending = list(self._pending)
            if not pending:
                return
            await asyncio.gather(*(asyncio.wrap_future(future) for future in pending))

    def close(self) -> None:
        self._executor.shutdown(wait=True)

    def _forget(self, future: Future[None]) -> None:
        with self._lock:
            self._pending.discard(future)

    def _deliver(self, handler: Handler, event: dict[str, Any]) -> None:
        name = getattr(handler, "__name__", type(handler).__name__)
        try:
            handler(event, LocalLambdaContext(function_name=name))
        except Exception as exc:
            logger.exception("bus handler %s failed on %s %s", name, event["detail-type"], event["id"])
            with self._lock:
                self.failures.append((name, exc))


BUS_FILE = "bus.json"
"""In the local stack's data directory: where its bus listens (`BusEndpoint`), while it runs."""
PUT_EVENTS = "AWSEvents.PutEvents"


@dataclass(frozen=True)
class RunningBus:
    """The bus of a running local stack, as its `bus.json` says."""

    endpoint_url: str
    event_bus_name: str
    pid: int


class BusEndpoint:
    """`PutEvents` on 127.0.0.1 (a free port) for `bus`: each entry from `SOURCE` on `event_bus_name` is
    published on it (its handlers run as for the stack's own events); any other entry is refused in the
    answer, as EventBridge refuses one for a bus that does not exist. Serves from a thread of its own."""

    def __init__(self, bus: InProcessBus, event_bus_name: str) -> None:
        self.bus = bus
        self.event_bus_name = event_bus_name
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _put_events_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="bus-endpoint", daemon=True)
        self._file: Path | None = None

    @property
    def endpoint_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self, data_dir: Path | None = None) -> BusEndpoint:
        """Serves; with `data_dir`, writes `bus.json` there for `running_bus`."""
        self._thread.start()
        if data_dir is not None:
            data_dir.mkdir(parents=True, exist_ok=True)
            self._file = data_dir / BUS_FILE
            about = {"endpoint_url": self.endpoint_url, "event_bus_name": self.event_bus_name}
            self._file.write_text(json.dumps({**about, "pid": os.getpid()}), encoding="utf-8")
        return self

    def stop(self) -> None:
        if self._file is not None:
            self._file.unlink(missing_ok=True)
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def put_events(self, entries: list[dict[str, Any]]) -> dict[str, Any]:
        """The PutEvents answer for `entries`: an EventId for each entry published, an ErrorCode for
        each refused."""
        results: list[dict[str, Any]] = []
        for entry in entries:
            refusal = self._refusal(entry)
            if refusal is not None:
                results.append({"ErrorCode": "InvalidArgument", "ErrorMessage": refusal})
                continue
            detail = json.loads(entry["Detail"])
            results.append({"EventId": self.bus.publish_nowait(str(entry["DetailType"]), detail)})
        return {"FailedEntryCount": sum("ErrorCode" in r for r in results), "Entries": results}

    def _refusal(self, entry: dict[str, Any]) -> str | None:
        if entry.get("EventBusName", self.event_bus_name) != self.event_bus_name:
            return f"the local stack's bus is {self.event_bus_name}"
        if entry.get("Source") != SOURCE or not entry.get("DetailType"):
            return f"an event needs the source {SOURCE} and a detail type"
        try:
            detail = json.loads(entry.get("Detail") or "")
        except ValueError:
            return "the detail is not JSON"
        return None if isinstance(detail, dict) else "the detail is not a JSON object"


def _put_events_handler(endpoint: BusEndpoint) -> type[BaseHTTPRequestHandler]:
    class PutEventsHandler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("X-Amz-Target") != PUT_EVENTS:
                self._answer(400, {"__type": "UnknownOperationException", "message": "PutEvents only"})
                return
            try:
                entries = json.loads(body or b"{}").get("Entries") or []
            except (ValueError, AttributeError):
                self._answer(400, {"__type": "ValidationException", "message": "not a PutEvents request"})
                return
            self._answer(200, endpoint.put_events(entries))

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            text = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/x-amz-json-1.1")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("bus endpoint: " + format, *args)

    return PutEventsHandler


def running_bus(data_dir: Path) -> RunningBus | None:
    """The bus of the local stack running on `data_dir` (its `bus.json`, written by a process still
    alive); None when no stack runs there."""
    try:
        about = json.loads((data_dir / BUS_FILE).read_text(encoding="utf-8"))
        running = RunningBus(str(about["endpoint_url"]), str(about["event_bus_name"]), int(about["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(running.pid, 0)
    except ProcessLookupError:
        return None  # a stack that was killed left it
    except PermissionError:
        pass
    return running
