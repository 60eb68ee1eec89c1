"""`Idempotency-Key` on the POSTs that start work (Stripe's model) and on the calendar's
writes (a retried add must not add the session twice, nor a retried swap swap it back): the
same key from the same user within 24 hours never starts a second turn or plan, nor writes twice. The
first request claims the key atomically (trainer.store.stream_records); a retry with the same body gets
the first request's response (waiting for it while it runs), a retry with another body is `422
idempotency_key_reused`. A request that fails gives its key up, so a retry can run it (nothing was
started that a retry would repeat).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Header
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from trainer.api.errors import ApiError
from trainer.store.stream_records import IdempotencyKeys, IdempotencyRecord, IdempotencyScope

IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
POLL_SECONDS = 0.2

IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias=IDEMPOTENCY_HEADER,
        pattern=KEY_PATTERN,
        description=(
            "A key of the client's choosing (a UUID), the same on every retry of one request: within "
            "24 hours a request with the same key and body gets the first request's result and starts "
            "nothing again; with another body it is `422 idempotency_key_reused`."
        ),
    ),
]
KEY_ERRORS = {409: ("request_in_progress",), 422: ("idempotency_key_reused",)}
"""What a route with the header can answer because of it."""


def body_hash(body: BaseModel | dict[str, Any]) -> str:
    """The hash of a request body as validated (key order and whitespace do not matter)."""
    data = body.model_dump(mode="json", by_alias=True) if isinstance(body, BaseModel) else body
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def key_reused() -> ApiError:
    return ApiError(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was used with another request body; use a new key for a new request.",
    )


async def claim_or_existing(
    keys: IdempotencyKeys, user_id: str, scope: IdempotencyScope, key: str, hashed: str
) -> IdempotencyRecord | None:
    """None when this request now owns the key; else the first request's record (same body)."""
    existing = await keys.claim(user_id, scope, key, hashed)
    if existing is not None and existing.body_hash != hashed:
        raise key_reused()
    return existing


async def run_once(
    keys: IdempotencyKeys | None,
    user_id: str,
    scope: IdempotencyScope,
    key: str | None,
    body: BaseModel | dict[str, Any],
    run: Callable[[], Awaitable[tuple[int, BaseModel]]],
    *,
    wait_seconds: float,
) -> JSONResponse:
    """Runs `run` once per key: its status and JSON body, stored with the key, are what every retry
    gets. A retry while the first runs waits for it (up to `wait_seconds`, then `409
    request_in_progress`). `body` is what a retry must repeat to be the same request (its hash): the
    validated body, with the path's ids when the route has any."""
    if keys is None or key is None:
        status, model = await run()
        return JSONResponse(model.model_dump(mode="json", by_alias=True), status_code=status)
    hashed = body_hash(body)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_seconds
    while True:
        existing = await claim_or_existing(keys, user_id, scope, key, hashed)
        if existing is None:
            break
        done = await _first_response(keys, user_id, scope, key, existing, deadline)
        if done is not None:
            return done
        # the first request failed and gave the key up: this one runs it
    try:
        status, model = await run()
    except BaseException:
        await asyncio.shield(keys.release(user_id, scope, key))
        raise
    content = model.model_dump(mode="json", by_alias=True)
    await keys.finished(user_id, scope, key, status, content)
    return JSONResponse(content, status_code=status)


async def _first_response(
    keys: IdempotencyKeys,
    user_id: str,
    scope: IdempotencyScope,
    key: str,
    record: IdempotencyRecord | None,
    deadline: float,
) -> JSONResponse | None:
    """The first request's response once it has one; None if it gave its key up."""
    loop = asyncio.get_running_loop()
    while record is not None and record.state != "done":
        if loop.time() >= deadline:
            raise ApiError(
                409, "request_in_progress", "The first request with this key is still running; retry later."
            )
        await asyncio.sleep(POLL_SECONDS)
        record = await keys.get(user_id, scope, key)
    if record is None:
        return None
    return JSONResponse(record.response, status_code=record.status_code or 200)
