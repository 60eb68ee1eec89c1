"""DynamoDB write units a turn costs (docs/architecture.md#sessions-events-and-the-lease), counted by `make
capacity`'s own tally (scripts/capacity_model.py `DynamoTally`: 1 unit per started KB of an item, twice in a
transaction) over real turns of the fake harness against moto; moto reports no consumed capacity for
transactions, so the units are computed from the requests the store sends."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from trainer.store.sessions import DynamoSessionStore

ROOT = Path(__file__).resolve().parents[3]

UNITS_PER_TURN = 20
"""The write budget, for a first turn in a new session that generates and delivers a workout (70
units when every event, state and the lease and META were items of a transaction per commit) and
for the same turn again in that session (71)."""


@pytest.fixture(scope="module")
def capacity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("capacity_model", ROOT / "scripts" / "capacity_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["capacity_model"] = module
    spec.loader.exec_module(module)
    return module


def workout_turn() -> list[Any]:
    from trainer_dev.testing.agent_harness import chest_workout
    from trainer_dev.testing.scripted_model import call

    def notify(request: Any) -> Any:
        text = request.messages[-1]["content"][0]["content"]
        return call(
            "message_notify_user", message="Here", artifact_id=text.split("artifact_id=")[1].split(" ")[0]
        )

    return [call("generate_workout", workout=chest_workout()), notify, call("idle", reason="done")]


async def test_a_workout_turn_writes_few_units_cold_and_later(
    session_store: DynamoSessionStore, capacity: ModuleType
) -> None:
    from trainer_dev.testing.agent_harness import FakeSelector, make_harness, selection

    tally = capacity.DynamoTally()
    session_store.table.client.meta.events.register("before-parameter-build.dynamodb", tally.before_call)
    selector = FakeSelector([selection("category_goals"), selection("workout_history", days_back=14)])
    h = make_harness(workout_turn(), store=session_store, selector=selector)  # type: ignore[arg-type]

    first = await h.loop.run_turn("user-1", "chest workout")
    cold = tally.write_units
    await session_store.update_session(first.session_id, status="active")
    h.model.steps = workout_turn()
    before = tally.write_units
    later = await h.loop.run_turn("user-1", "another one", session_id=first.session_id)
    warm = tally.write_units - before

    assert first.status == later.status == "completed"
    assert cold <= UNITS_PER_TURN, cold
    assert warm <= UNITS_PER_TURN, warm
    stored = (await session_store.read_events(first.session_id)).events
    assert [e.sequence_number for e in stored] == list(range(1, len(stored) + 1))
    artifacts = await session_store.get_state(first.session_id, "artifacts")
    assert artifacts is not None and len(artifacts) == 2, "both turns' artifacts read back whole"
