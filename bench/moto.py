"""A moto server with the template's tables under fresh names, for benches counting DynamoDB requests."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from trainer.settings import Settings
from trainer_dev.local.moto_server import create_resources, start_moto

TEMPLATE = Path(__file__).resolve().parent.parent / "template.yaml"


@asynccontextmanager
async def moto_tables() -> AsyncIterator[Settings]:
    """Settings naming the new tables and bus; the server stops afterwards."""
    handle = await asyncio.to_thread(start_moto, 0)
    try:
        suffix = uuid.uuid4().hex[:10]
        settings = Settings(
            AWS_ENDPOINT_URL=handle.endpoint_url,
            AWS_REGION="us-east-1",
            TRAINER_TABLE_NAME=f"bench-sessions-{suffix}",
            TRAINER_IDEMPOTENCY_TABLE_NAME=f"bench-idem-{suffix}",
            TRAINER_EVENT_BUS_NAME=f"bench-bus-{suffix}",
        )
        await asyncio.to_thread(create_resources, settings, TEMPLATE)
        yield settings
    finally:
        await asyncio.to_thread(handle.stop)


def _serve_moto(endpoint: Any) -> None:
    handle = start_moto(0)
    endpoint.put(handle.endpoint_url)
    while True:
        time.sleep(3600)


@contextmanager
def moto_in_a_process(**settings: Any) -> Iterator[Settings]:
    """Settings naming fresh tables and a bus on a moto server in a process of its own (spawned), for the
    benches that trace this process's memory or time: the server's work stays out of their figures. The
    resources are not created here (the bench's own set-up does it); the server stops afterwards."""
    context = multiprocessing.get_context("spawn")
    endpoint = context.Queue()
    server = context.Process(target=_serve_moto, args=(endpoint,), daemon=True)
    server.start()
    try:
        suffix = uuid.uuid4().hex[:10]
        yield Settings(
            AWS_ENDPOINT_URL=endpoint.get(timeout=60),
            AWS_REGION="us-east-1",
            TRAINER_TABLE_NAME=f"bench-sessions-{suffix}",
            TRAINER_IDEMPOTENCY_TABLE_NAME=f"bench-idem-{suffix}",
            TRAINER_EVENT_BUS_NAME=f"bench-bus-{suffix}",
            **settings,
        )
    finally:
        server.terminate()
        server.join(10)
