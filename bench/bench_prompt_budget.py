"""The size of the main request when the user's data is as large as the API lets it be.

One chat turn ("Give me a full body workout for 45 minutes") through the production container on a
fresh Postgres, the in-memory session store and the offline model, for four users: a new account; 35
preferences of 3 KB; one current location of 200 items with 120 loads each; and a user at the limits:
50 active preferences (the cap), each with the longest description and guidance the API takes (1,000
and 2,000 characters; one in ten an injury), and the largest location it takes (200 items of 200 loads,
every name and description at its longest). For each, the largest request the turn sent to the model:
its JSON (system blocks, tools, messages) in KB and its estimated tokens (characters / 4, as the
context builder counts), and what the user's data added to a new account's.

    .venv/bin/python -m bench prompt_budget
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from trainer.chat.context import estimate_tokens
from trainer.chat.hooks import TurnHooks
from trainer.container import build_container
from trainer.providers.ports import ModelRequest
from trainer.services.user_data import UserData, UserDataService
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.models import Session
from trainer_dev.testing.agent_harness import RecordingPublisher
from trainer_dev.testing.memory_store import InMemorySessionStore

from bench.postgres import on_fresh_postgres

MESSAGE = "Give me a full body workout for 45 minutes"


@dataclass
class LargestRequest(TurnHooks):
    """Keeps the size of the largest model request of a turn."""

    sizes: list[tuple[int, int]] = field(default_factory=list)

    async def on_llm_start(self, session: Session, request: ModelRequest) -> None:
        sent = {"system": request.system, "tools": request.tools, "messages": request.messages}
        size = len(json.dumps(sent, ensure_ascii=False, separators=(",", ":")).encode())
        self.sizes.append((size, estimate_tokens(request)))


async def _new_account(data: UserData) -> None:
    return None


async def _issue_preferences(data: UserData) -> None:
    for n in range(35):
        await data.preferences.create(
            type="exercise", description=f"preference {n} " + "d" * 980, guidance="g" * 2000
        )


async def _issue_location(data: UserData) -> None:
    weights = [round(1 + 0.5 * k, 2) for k in range(120)]
    equipment = [
        {"name": f"Item {n}", "type": "free_weights", "weights": weights, "unit": "kg"} for n in range(200)
    ]
    await data.locations.create("Big gym", equipment=equipment, make_current=True)


async def _at_the_limits(data: UserData) -> None:
    for n in range(50):
        kind = "injury" if n % 10 == 0 else "exercise"
        await data.preferences.create(
            type=kind, description=f"preference {n} " + "d" * 980, guidance="g" * 2000
        )
    weights = [round(1 + 0.25 * k, 2) for k in range(200)]
    equipment = [
        {"name": f"Item {n:03d} " + "n" * 91, "type": "t" * 50, "weights": weights, "unit": "kg"}
        for n in range(200)
    ]
    await data.locations.create("G" * 100, description="D" * 1000, equipment=equipment, make_current=True)


USERS: tuple[tuple[str, Callable[[UserData], Awaitable[None]]], ...] = (
    ("a new account", _new_account),
    ("35 preferences of 3 KB", _issue_preferences),
    ("a location of 200 items x 120 loads", _issue_location),
    ("at the limits: 50 preferences of 3 KB, 200 items x 200 loads", _at_the_limits),
)


async def _measure(url: str) -> list[str]:
    db = Database(url, min_size=1, max_size=4)
    await db.open()
    lines: list[str] = []
    try:
        baseline: tuple[int, int] | None = None
        for label, fill in USERS:
            user = str(uuid.uuid4())
            hook = LargestRequest()
            container = await build_container(
                Settings(), store=InMemorySessionStore(), db=db, publisher=RecordingPublisher(), hooks=[hook]
            )
            try:
                await container.ensure_user(user)
                await fill(UserDataService(db).for_user(user))
                await container.agent.run_turn(user, MESSAGE)
            finally:
                await container.aclose()
            size, tokens = max(hook.sizes)
            baseline = baseline or (size, tokens)
            added = (
                f" (+{(size - baseline[0]) / 1000:.0f} KB, +{tokens - baseline[1]:,} tokens)"
                if size != baseline[0]
                else ""
            )
            lines.append(f"{label}: main request {size / 1000:.0f} KB, ~{tokens:,} tokens{added}")
    finally:
        await db.close()
    return lines


def run() -> list[str]:
    return on_fresh_postgres(_measure)


def main() -> None:
    for line in run():
        print(line)


if __name__ == "__main__":
    main()
