"""A turn that gets killed: run as `python -m trainer_dev.testing.crash_turn_child` in a subprocess by the
turn-crash test and bench/bench_lease.py, on the real DynamoDB adapter (the moto server the caller
started). It prints `RUNNING <session id>` once its model call has started, then waits inside that call
until the caller kills the process."""

from __future__ import annotations

import asyncio
import sys

from trainer.providers.ports import ModelRequest, ModelResponse, TextDeltaCallback
from trainer.settings import Settings
from trainer.store.sessions import DynamoSessionStore

from trainer_dev.testing.agent_harness import USER, make_harness
from trainer_dev.testing.scripted_model import ScriptedModel, call


async def main() -> None:
    settings = Settings()
    store = DynamoSessionStore(settings)
    session = await store.create_session(USER)

    def announce(request: object) -> object:
        print(f"RUNNING {session.id}", flush=True)
        return call("idle", reason="never reached")

    model = ScriptedModel([call("message_notify_user", message="working on it"), announce], latency=0.05)
    harness = make_harness(model=model, store=store, settings=settings)  # type: ignore[arg-type]
    original = model.complete

    async def hang_on_second_call(
        request: ModelRequest, on_text_delta: TextDeltaCallback | None = None
    ) -> ModelResponse:
        response = await original(request, on_text_delta)
        if len(model.requests) == 2:
            await asyncio.sleep(3600)
        return response

    model.complete = hang_on_second_call  # type: ignore[method-assign]
    await harness.loop.run_turn(USER, "the turn that gets killed", session_id=session.id)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
