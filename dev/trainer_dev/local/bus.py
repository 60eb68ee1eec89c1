"""In-process stand-in for EventBridge in the local stack: delivers the same envelope a Lambda receives."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
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

    def publish_nowait(self, detail_type: str, detail: dict[str, Any]) -> None:
        envelope = self.envelope(detail_type, detail)
        text = json.dumps(envelope)
        for handler in list(self._handlers.get(detail_type, ())):
            future = self._executor.submit(self._deliver, handler, json.loads(text))
            with self._lock:
                self._pending.add(future)
            future.add_done_callback(self._forget)

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
