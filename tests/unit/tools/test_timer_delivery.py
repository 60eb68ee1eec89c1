"""Timers are deliverable: each timer call stores a `timer` artifact (the timer objects of
docs/architecture.md#tools in its payload), message_notify_user delivers it like a workout (SSE tool-result
frame with the artifact), and the turn's reply carries the timers (`ClientResponse.timers`, in the chat
response)."""

from __future__ import annotations

from typing import Any

from trainer.api.schemas import ChatResponse
from trainer.chat.turn import ClientResponse
from trainer.store.models import EventType
from trainer.tools.base import Reply, ToolContext
from trainer.tools.communication import MessageNotifyUser
from trainer.tools.timers import GenerateExerciseTimer, GenerateWorkoutTimers, TimersResult
from trainer_dev.testing.agent_harness import USER, chest_workout, make_harness
from trainer_dev.testing.memory_store import InMemorySessionStore
from trainer_dev.testing.scripted_model import call

TABATA = {
    "exercise_name": "Tabata",
    "exercise_type": "intervals",
    "rounds": 8,
    "work_sec": 20,
    "rest_sec": 10,
}
TIMER_KEYS = {"exercise_name", "exercise_type", "total_duration_sec", "phases"}


def context() -> tuple[InMemorySessionStore, ToolContext]:
    store = InMemorySessionStore()
    session = store.new_session(USER)
    return store, ToolContext(user_id=USER, session_id=session.id, store=store)


async def test_a_timer_call_stores_a_timer_artifact_in_the_seed_timer_format() -> None:
    store, ctx = context()
    tool = GenerateExerciseTimer()
    result = await tool.execute(tool.Args.model_validate({"exercise": TABATA}), ctx)

    assert result.artifact_id is not None and result.artifact_id.startswith("art_")
    artifacts = await ctx.get_state("artifacts")
    assert artifacts is not None
    artifact = artifacts[result.artifact_id]
    assert artifact["type"] == "timer" and artifact["title"] == "Tabata timer"
    assert artifact["summary"] == {"timer_count": 1, "total_duration_sec": 240, "timers": ["Tabata"]}
    (timer,) = artifact["payload"]["timers"]
    assert set(timer) == TIMER_KEYS and timer["total_duration_sec"] == 240 == result.total_duration_sec
    assert set(timer["phases"][0]) == {"phase_type", "duration_sec", "cue", "detail", "countdown"}
    assert set(timer["phases"][1]) == {
        "phase_type",
        "duration_sec",
        "cue",
        "detail",
        "countdown",
        "set_number",
    }
    events = [e for e in store.all_events(ctx.session_id) if e.event_type == EventType.ARTIFACT]
    assert [e.data["artifact_id"] for e in events] == [result.artifact_id]
    delivered = result.delivered_artifact()
    assert delivered is not None and (delivered.artifact_id, delivered.artifact) == (result.artifact_id, None)
    assert result.delivery_note() == f"artifact_id={result.artifact_id} is not shown to the user yet."


async def test_workout_timers_are_one_artifact_titled_after_the_workout() -> None:
    _, ctx = context()
    await ctx.put_state("current_workout", {"title": "Chest & Core", "exercises": _ids(chest_workout())})
    tool = GenerateWorkoutTimers()
    result = await tool.execute(tool.Args.model_validate({}), ctx)
    artifacts = await ctx.get_state("artifacts") or {}
    artifact = artifacts[result.artifact_id or ""]
    assert artifact["title"] == "Chest & Core timers"
    assert [t["exercise_name"] for t in artifact["payload"]["timers"]] == ["Bench Press", "Push-ups", "Plank"]
    assert artifact["payload"]["total_duration_sec"] == result.total_duration_sec


async def test_message_notify_user_delivers_a_timer_artifact_with_its_payload() -> None:
    _, ctx = context()
    built = await GenerateExerciseTimer().execute(
        GenerateExerciseTimer.Args.model_validate({"exercise": TABATA}), ctx
    )
    notify = MessageNotifyUser()
    sent = await notify.execute(
        notify.Args(message="Here is your tabata timer", artifact_id=built.artifact_id), ctx
    )
    delivered = sent.delivered_artifact()
    assert delivered is not None and delivered.artifact is not None
    assert delivered.artifact["payload"]["timers"] == built.timer_dicts()

    reply = Reply()
    sent.add_to_reply(reply)
    assert reply.messages == ["Here is your tabata timer"] and reply.timers == built.timer_dicts()
    built.add_to_reply(reply)
    assert len(reply.timers) == 1, "a timer built and delivered in the same turn is carried once"


def test_a_stored_timer_result_without_an_artifact_adds_nothing() -> None:
    old = TimersResult.model_validate({"success": True, "timers": [], "total_duration_sec": 0})
    reply = Reply()
    old.add_to_reply(reply)
    assert reply.timers == [] and old.delivered_artifact() is None


async def test_the_turn_reply_and_the_sse_frames_carry_the_timer() -> None:
    h = make_harness(
        [call("generate_exercise_timer", exercise=TABATA), "NOTIFY", call("idle", reason="delivered")],
        extra_tools=[GenerateExerciseTimer()],
    )

    def notify(request: Any) -> Any:
        text = request.messages[-1]["content"][0]["content"]
        art = text.split("artifact_id=")[1].split(" ")[0]
        return call("message_notify_user", message="Your tabata timer is ready", artifact_id=art)

    h.model.steps[1] = notify
    result = await h.loop.run_turn(USER, "tabata timer please", emit=h.emit)

    art = result.actions[0].as_json()["result"]["artifact_id"]
    assert result.response.messages == ["Your tabata timer is ready"]
    assert result.response.timers is not None and len(result.response.timers) == 1
    assert result.response.timers[0]["exercise_name"] == "Tabata"
    assert result.response.timers[0]["total_duration_sec"] == 240
    frames = [f for f in h.emitted if f["type"] == "tool_result" and f["tool"] == "message_notify_user"]
    assert frames[0]["artifact_id"] == art and frames[0]["artifact"]["type"] == "timer"
    built = [f for f in h.emitted if f["type"] == "tool_result" and f["tool"] == "generate_exercise_timer"]
    assert built[0]["artifact_id"] == art and built[0].get("artifact") is None


async def test_a_timer_built_but_not_delivered_still_reaches_the_reply() -> None:
    h = make_harness(
        [
            call("generate_exercise_timer", exercise=TABATA),
            call("message_notify_user", message="Ready"),
            call("idle", reason="done"),
        ],
        extra_tools=[GenerateExerciseTimer()],
    )
    result = await h.loop.run_turn(USER, "tabata timer please")
    assert [t["exercise_name"] for t in result.response.timers or []] == ["Tabata"]


async def test_a_turn_without_timers_has_none() -> None:
    h = make_harness([call("message_notify_user", message="Hi"), call("idle", reason="done")])
    result = await h.loop.run_turn(USER, "hello")
    assert result.response.timers is None


def test_the_chat_response_types_the_timers() -> None:
    timer = {
        "exercise_name": "Tabata",
        "exercise_type": "intervals",
        "total_duration_sec": 30,
        "phases": [
            {
                "phase_type": "transition",
                "duration_sec": 10,
                "cue": "Get ready",
                "detail": "",
                "countdown": True,
            },
            {
                "phase_type": "work",
                "duration_sec": 20,
                "cue": "Go",
                "detail": "",
                "countdown": True,
                "set_number": 1,
            },
        ],
    }
    body = ChatResponse.model_validate(
        {
            "sessionId": "s",
            "response": ClientResponse(messages=["Ready"], timers=[timer]).__dict__,
            "iterations": 1,
            "actions": [],
            "status": "completed",
        }
    ).model_dump(mode="json", by_alias=True)
    phases = body["response"]["timers"][0]["phases"]
    assert phases[0]["set_number"] is None and phases[1]["set_number"] == 1


def _ids(workout: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**ex, "id": f"ex_{i:06d}"} for i, ex in enumerate(workout["exercises"], start=1)]
