"""A moto server with the template's tables under fresh names, for benches counting DynamoDB requests."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

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
