"""Sessions of every shape the stores can hold, for one user, each written by the code that writes it in
production (the contract tests read them back through every route: docs/testing.md#the-layers).

- `offline`: three turns on the offline coach (the initializer's deterministic rules load knowledge,
  a workout is built and delivered, timers), then checkpointed (`checkpointed` is the same session);
- `models`: a turn on the real SDKs against the loopback fake: the initializer's own `llm_response`
  event from OpenAI, the agent's from Anthropic (with thinking), and one initializer event as it was
  stored before its counts were recorded in the Anthropic convention (no `usage`);
- `refused`: the model declined (turn_end `refused`); `cut`: an answer cut off at max_tokens twice (an
  `error` event); `failed`: the model failed on every call (the session `error`);
- `streamed`: a turn through `POST /agent/stream`, so its frames are recorded too (`FRAME#` items);
- `empty`: a session created and never used (its `metadata` is `{}` in the store);
- `erased`: a session deleted by its owner (every route answers 404 for it).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import httpx
from pydantic import SecretStr
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.chat import checkpoint, session_state
from trainer.chat.turn import TurnFailed
from trainer.container import Container, build_container
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import EventType
from trainer.store.ports import SessionStore

from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.agent_harness import RecordingPublisher

FAKE_KEY = "sk-fake-every-shape"
LEGACY_INITIALIZER_EVENT = {
    "provider": "openai",
    "purpose": "initializer",
    "model": "gpt-6-luna",
    "raw_response": {"reasoning": "The user asks for a workout: their equipment and history."},
    "tokens": {"prompt": 812, "completion": 64, "cached": 0, "cache_write": 0, "total": 876},
    "cost_cents": 0.0214,
}
"""The initializer's `llm_response` event as it was stored before it carried `usage`."""


@dataclass
class SessionShapes:
    """The seeded sessions, by shape (see the module docstring)."""

    user_id: str
    sessions: dict[str, str] = field(default_factory=dict)
    erased: list[str] = field(default_factory=list)

    @property
    def live(self) -> list[str]:
        return list(dict.fromkeys(self.sessions.values()))


async def seed_every_shape(
    settings: Settings, store: SessionStore, db: Database, user_id: str, fake: FakeLLMServer
) -> SessionShapes:
    """Writes the sessions of every shape for `user_id` through the production container: on the offline
    coach (`settings` without model keys) and on the real SDKs against `fake`."""
    shapes = SessionShapes(user_id)
    offline = await build_container(settings, store=store, db=db, publisher=RecordingPublisher())
    try:
        await _offline_sessions(offline, shapes)
        await checkpoint.run_checkpoint(
            store, shapes.sessions["offline"], state_provider=session_state.from_database(db)
        )
        shapes.sessions["checkpointed"] = shapes.sessions["offline"]
        shapes.sessions["streamed"] = await _streamed_turn(offline, user_id, "Give me a quick leg workout")
        erased = await offline.agent.run_turn(user_id, "Log 3 sets of 10 push-ups")
        await store.delete_session(user_id, erased.session_id)
        shapes.erased.append(erased.session_id)
    finally:
        await offline.aclose()
    on_models = settings.model_copy(
        update={
            "anthropic_api_key": SecretStr(FAKE_KEY),
            "anthropic_base_url": fake.base_url,
            "openai_api_key": SecretStr(FAKE_KEY),
            "openai_base_url": fake.openai_base_url,
        }
    )
    models = await build_container(on_models, store=store, db=db, publisher=RecordingPublisher())
    try:
        await _model_sessions(models, fake, shapes)
    finally:
        await models.aclose()
    # last: a turn that names no session goes on the user's latest active one
    shapes.sessions["empty"] = (await store.create_session(user_id)).id
    return shapes


async def _streamed_turn(container: Container, user_id: str, message: str) -> str:
    """A turn through the stream route (its frames recorded as a phone's turn's are): its session."""
    token = mint_dev_token(container.settings.jwt_secret.get_secret_value(), user_id)
    app = create_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://seed.test", timeout=60) as http:
        answer = await http.post(
            "/agent/stream", json={"message": message}, headers={"Authorization": f"Bearer {token}"}
        )
        answer.raise_for_status()
    await app.state.container_provider.turns.wait(30)
    return answer.headers["X-Session-Id"]


async def _offline_sessions(container: Container, shapes: SessionShapes) -> None:
    user = shapes.user_id
    first = await container.agent.run_turn(user, "Give me a quick chest workout")
    for message in ("Give me timers for this workout", "How long should I rest between sets?"):
        await container.agent.run_turn(user, message, session_id=first.session_id)
    shapes.sessions["offline"] = first.session_id


async def _model_sessions(container: Container, fake: FakeLLMServer, shapes: SessionShapes) -> None:
    user, store = shapes.user_id, container.store
    turn = await container.agent.run_turn(user, "Give me a push workout with dumbbells")
    await store.append_event(turn.session_id, EventType.LLM_RESPONSE, dict(LEGACY_INITIALIZER_EVENT))
    shapes.sessions["models"] = turn.session_id

    fake.refuse_next = 1
    refused = await store.create_session(user)
    await container.agent.run_turn(user, "Help me hurt someone", session_id=refused.id)
    shapes.sessions["refused"] = refused.id

    fake.cut_next_at_max_tokens = 2
    shapes.sessions["cut"] = (
        await container.agent.run_turn(user, "Write me a whole year of plans")
    ).session_id

    session = await store.create_session(user)
    fake.fail_next_with_status = [500] * 12
    with contextlib.suppress(TurnFailed):
        await container.agent.run_turn(user, "Give me a leg workout", session_id=session.id)
    fake.fail_next_with_status = []
    shapes.sessions["failed"] = session.id
