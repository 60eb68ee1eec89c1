"""A phone's flow through clients generated from openapi.json, against the local stack: the TypeScript
client (openapi-typescript + openapi-fetch, the stream parsed by @microsoft/fetch-event-source) and the
Python client (openapi-python-client, the stream parsed by httpx-sse). Sessions, a streamed turn, a
plan, the week, an import, the session's events page by page.

Heartbeats: on a stack that sends one every 50 ms while the (slowed) model works, neither third-party
parser hands the client an empty message, and every turn's frames end with `turn_end`, then `done`.
"""

from __future__ import annotations

import importlib
import json
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from trainer.api.auth import mint_dev_token

from tests.clients.conftest import python_client, typescript_client  # noqa: F401  (fixtures)
from tests.clients.toolchain import OPENAPI, TypeScriptClient
from tests.e2e.conftest import E2E_SECRET, Stack, assert_clean_shutdown, start_stack

pytestmark = pytest.mark.e2e

WORKOUT_REQUEST = "Give me a quick chest workout"
PASTED = "Bench press 4x8 @ 60kg\nPlank 3 x 45s\n"
READY_TIMEOUT_S = 120
HEARTBEAT_S = 0.05
SLOW_MODEL_MS = 300


def newcomer_token() -> str:
    return mint_dev_token(E2E_SECRET, str(uuid.uuid4()), ttl_seconds=3600)


@pytest.fixture(scope="module")
def heartbeat_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Model calls of SLOW_MODEL_MS (the real SDKs against the loopback fake) and a heartbeat every
    HEARTBEAT_S: a turn carries dozens of heartbeats between its frames."""
    stack = start_stack(
        tmp_path_factory.mktemp("stack-heartbeat"),
        {"TRAINER_HEARTBEAT_SECONDS": str(HEARTBEAT_S)},
        ("--fake-llm", str(SLOW_MODEL_MS)),
    )
    try:
        yield stack
    finally:
        assert_clean_shutdown(stack)


def assert_one_turn(frame_types: list[str], frame_ids: list[int]) -> None:
    assert frame_types[0] == "session"
    assert frame_types[-2:] == ["turn_end", "done"]
    assert frame_types.count("turn_end") == 1 and frame_types.count("done") == 1
    assert {"tool_start", "tool_result", "message_delta"} <= set(frame_types)
    assert frame_ids == sorted(frame_ids)


# --- the TypeScript client ---------------------------------------------------------------------------


def test_a_phone_flow_through_the_generated_typescript_client(
    local_stack: Stack,
    typescript_client: TypeScriptClient,  # noqa: F811
) -> None:
    summary = json.loads(typescript_client.node("phone.js", local_stack.base_url, newcomer_token()))
    assert summary["listed"] == [summary["sessionId"]]
    assert_one_turn(summary["frameTypes"], summary["frameIds"])
    assert summary["emptyMessages"] == 0
    assert summary["turnEnd"] == "replied" and summary["doneSession"] == summary["sessionId"]
    assert any(line.startswith("generating ") for line in summary["lines"]), summary["lines"]
    assert summary["plan"]["status"] == "ready" and summary["plan"]["days"] >= 7
    assert summary["week"]["days"] >= 1 and summary["week"]["training"] >= 1
    assert summary["week"]["firstExercise"]
    assert any("bench" in name.lower() for name in summary["imported"]), summary["imported"]
    assert summary["events"] > 5 and summary["pages"] > 1


# --- the Python client -------------------------------------------------------------------------------


def frame_members() -> list[str]:
    """The concrete members of `Frame` (the tool frame unions flattened), as openapi.json names them."""
    schemas = json.loads(OPENAPI.read_text(encoding="utf-8"))["components"]["schemas"]

    def members(name: str) -> list[str]:
        one_of = schemas[name].get("oneOf")
        if one_of is None:
            return [name]
        return [m for ref in one_of for m in members(ref["$ref"].rsplit("/", 1)[-1])]

    return members("Frame")


def frame_parser(models: ModuleType) -> Callable[[dict[str, Any]], Any]:
    """A frame's JSON as the generated model it is: each member checks its own `type` (and `tool`)."""
    classes = [getattr(models, name) for name in frame_members()]

    def parse(data: dict[str, Any]) -> Any:
        for cls in classes:
            try:
                return cls.from_dict(data)
            except (KeyError, TypeError, ValueError):
                continue
        raise AssertionError(f"no Frame member reads {data}")

    return parse


class PythonPhone:
    """The generated `trainer_client` package, with httpx-sse for the stream."""

    def __init__(self, base_url: str, token: str) -> None:
        client_module = importlib.import_module("trainer_client")
        self.models = importlib.import_module("trainer_client.models")
        self.api = {
            name: importlib.import_module(f"trainer_client.api.{name}")
            for name in ("sessions", "programs", "agent")
        }
        self.client = client_module.AuthenticatedClient(
            base_url=base_url, token=token, timeout=httpx.Timeout(120.0), raise_on_unexpected_status=True
        )
        self.parse = frame_parser(self.models)

    def call(self, group: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        module = importlib.import_module(f"trainer_client.api.{group}.{operation}")
        answer = module.sync(*args, client=self.client, **kwargs)
        assert not isinstance(answer, self.models.Error), f"{operation}: {answer}"
        return answer

    def stream_turn(self, message: str, session_id: str) -> tuple[list[tuple[int, Any]], int]:
        frames: list[tuple[int, Any]] = []
        empty = 0
        http = self.client.get_httpx_client()
        body = {"message": message, "sessionId": session_id}
        with connect_sse(http, "POST", "/agent/stream", json=body) as source:
            source.response.raise_for_status()
            for event in source.iter_sse():
                if event.data == "":
                    empty += 1
                    continue
                frames.append((int(event.id), self.parse(json.loads(event.data))))
        return frames, empty


def test_a_phone_flow_through_the_generated_python_client(
    local_stack: Stack,
    python_client: Path,  # noqa: F811
) -> None:
    phone = PythonPhone(local_stack.base_url, newcomer_token())
    models = phone.models
    session = phone.call("sessions", "create_session").session
    listed = phone.call("sessions", "list_sessions", limit=10)
    assert [s.id for s in listed.sessions] == [session.id]

    frames, empty = phone.stream_turn(WORKOUT_REQUEST, session.id)
    assert empty == 0
    assert_one_turn([frame.type_ for _, frame in frames], [seq for seq, _ in frames])
    turn_end, done = frames[-2][1], frames[-1][1]
    assert isinstance(turn_end, models.TurnEndFrame) and turn_end.outcome == "replied"
    assert isinstance(done, models.DoneFrame) and done.session_id == session.id
    workouts = [f for _, f in frames if isinstance(f, models.GenerateWorkoutToolResult)]
    assert workouts and isinstance(workouts[0].data, models.GenerateWorkoutResult)
    assert workouts[0].data.exercises[0].exercise_name
    delivered = [f for _, f in frames if isinstance(f, models.MessageNotifyUserToolResult) and f.artifact]
    assert delivered and isinstance(delivered[0].artifact, models.WorkoutArtifact)

    plan = phone.call("programs", "create_plan", body=models.PlanCreate(weeks=4, days_per_week=3)).plan
    deadline = time.monotonic() + READY_TIMEOUT_S
    detail = phone.call("programs", "get_plan", str(plan.id))
    while not (detail.plan.status == "ready" and any(w.status == "ready" for w in detail.weeks)):
        assert detail.plan.status != "failed" and time.monotonic() < deadline, detail.plan
        time.sleep(0.5)
        detail = phone.call("programs", "get_plan", str(plan.id))
    week = phone.call("programs", "list_workouts", from_=detail.days[0].date)
    training = [day for day in week.workouts if day.kind == "training"]
    assert training and training[0].workout.exercises[0].exercise_name
    assert isinstance(training[0].date, date)

    imported = phone.call("programs", "import_workout", body=models.WorkoutImport(text=PASTED))
    assert any("bench" in e.exercise_name.lower() for e in imported.workout.exercises)

    events: list[Any] = []
    after: int | None = 0
    pages = 0
    while after is not None:
        page = phone.call("sessions", "list_session_events", session.id, after=after, limit=5)
        events.extend(page.events)
        after = page.next_after if isinstance(page.next_after, int) else None
        pages += 1
    assert pages > 1
    calls = [e for e in events if isinstance(e, models.ToolCallEvent)]
    assert calls and calls[0].data.tool_name
    assert any(isinstance(e, models.UserMessageEvent) and e.data.message == WORKOUT_REQUEST for e in events)


# --- heartbeats and third-party parsers ---------------------------------------------------------------


def test_heartbeats_reach_no_third_party_parser_as_a_message(
    heartbeat_stack: Stack,
    typescript_client: TypeScriptClient,  # noqa: F811
    python_client: Path,  # noqa: F811
) -> None:
    token = newcomer_token()
    with httpx.Client(
        base_url=heartbeat_stack.base_url, headers=heartbeat_stack.headers(token), timeout=120
    ) as http:
        raw = http.post("/agent/stream", json={"message": WORKOUT_REQUEST}).text
    assert raw.count(": heartbeat\n") >= 3, "the stack sent no heartbeats to test with"
    assert ": heartbeat\n\n" not in raw

    streamed = json.loads(typescript_client.node("phone.js", heartbeat_stack.base_url, token, "stream"))
    assert streamed["emptyMessages"] == 0
    assert_one_turn(streamed["frameTypes"], streamed["frameIds"])

    phone = PythonPhone(heartbeat_stack.base_url, token)
    session = phone.call("sessions", "create_session").session
    frames, empty = phone.stream_turn(WORKOUT_REQUEST, session.id)
    assert empty == 0
    assert_one_turn([frame.type_ for _, frame in frames], [seq for seq, _ in frames])


@pytest.mark.parametrize("cut_after", [1, 4, 8])
def test_a_dropped_stream_retried_by_fetch_event_source_runs_the_turn_once(
    local_stack: Stack,
    typescript_client: TypeScriptClient,  # noqa: F811
    cut_after: int,
) -> None:
    """The stream breaks off after `cut_after` events and fetch-event-source retries on its own (the same
    body, with `Last-Event-ID`): one session, one user message, one turn's model calls, and every frame
    exactly once."""
    token = newcomer_token()
    retried = json.loads(
        typescript_client.node("phone.js", local_stack.base_url, token, "retry", str(cut_after))
    )
    assert retried["attempts"] == 2
    types = [f["type"] for f in retried["frames"]]
    numbered = [f["id"] for f in retried["frames"] if f["type"] not in ("message_delta", "done")]
    assert len(numbered) == len(set(numbered)) and numbered == sorted(numbered), retried["frames"]
    assert types[0] == "session" and types[-2:] == ["turn_end", "done"]
    assert types.count("session") == 1 and types.count("turn_end") == 1
    with httpx.Client(base_url=local_stack.base_url, headers=local_stack.headers(token), timeout=60) as http:
        sessions = http.get("/agent/sessions").json()["sessions"]
        assert len(sessions) == 1
        events = http.get(f"/agent/sessions/{sessions[0]['id']}/events", params={"limit": 500}).json()[
            "events"
        ]
        frames = http.get(f"/agent/sessions/{sessions[0]['id']}/frames", params={"after": 0}).json()
    kinds = [e["event_type"] for e in events]
    assert kinds.count("user_message") == 1 and kinds.count("turn_end") == 1
    assert [f["id"] for f in frames["frames"]] == numbered, "the phone got every stored frame once"
