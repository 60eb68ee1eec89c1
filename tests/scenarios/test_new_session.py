"""A turn marked `new_session` opens a new conversation: it goes to the API without the session id, so
it runs on a session of its own whose history holds none of the earlier turns, while what the earlier
conversation stored (a milestone here) is still there. Played on the offline model through the
production container (DynamoDB on moto, the embedded Postgres)."""

from __future__ import annotations

import json

import pytest

from tests.scenarios.runner import Runners
from tests.scenarios.schema import Scenario

pytestmark = pytest.mark.scenarios

GOAL = "goal for the spring: a sub-30 5k by end of March"
RECALL = "what am i training for again?"


def two_conversations(new_session: bool) -> Scenario:
    return Scenario.model_validate(
        {
            "id": "two-conversations",
            "title": "a goal said, then asked about",
            "areas": ["milestones"],
            "turns": [
                {"say": GOAL, "expect": {"tools": ["manage_milestone"]}},
                {"say": RECALL, "new_session": new_session, "expect": {"mentions": ["/5 ?km/", "/30 min/"]}},
            ],
        }
    )


async def said_in(runners: Runners, user_id: str, session_id: str) -> str:
    runner = await runners.get("offline")
    return json.dumps(await runner.session_events(user_id, session_id))


@pytest.mark.parametrize("new_session", [True, False], ids=["new-session", "same-session"])
async def test_a_new_session_turn_runs_on_a_session_without_the_earlier_turns(
    scenario_runners: Runners, new_session: bool
) -> None:
    runner = await scenario_runners.get("offline")
    await scenario_runners.fresh_tables()
    result = await runner.run(two_conversations(new_session))
    assert result.passed, result.explain()
    assert result.user_id is not None
    first, second = (turn.session_id for turn in result.turns)
    assert first is not None and second is not None
    earlier, later = (
        await said_in(scenario_runners, result.user_id, first),
        await said_in(scenario_runners, result.user_id, second),
    )
    assert GOAL in earlier and RECALL in later
    if new_session:
        assert second != first
        assert GOAL not in later, "the new session's history holds the earlier conversation"
        assert RECALL not in earlier
    else:
        assert second == first


def test_the_first_turn_cannot_ask_for_a_new_session() -> None:
    with pytest.raises(ValueError, match="new_session is for a later turn"):
        Scenario.model_validate(
            {"id": "x1", "title": "t", "areas": ["milestones"], "turns": [{"say": GOAL, "new_session": True}]}
        )
