"""The programs API on the real adapters (embedded Postgres, DynamoDB on moto, the offline agents): a
plan requested over HTTP is built in the background and polled until ready; plans and planned workouts
are scoped to their user; bad input and bad ranges are documented 4xx answers; a pasted workout imports
and a text with no workout in it is refused. Every answer is checked against the OpenAPI document."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import Container, build_container
from trainer.programs.models import PlanRequest
from trainer.programs.pipeline import PLAN_REQUESTED, ProgramDeps, build_plan, request_plan
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.repositories import locations
from trainer.store.sessions import DynamoSessionStore

from tests.integration.api.test_api_contract import Contract

READY_TIMEOUT_S = 90
HOME_GYM = [
    {"name": "Dumbbells", "weights": [5, 7.5, 10, 12.5, 15, 17.5, 20, 22.5, 25], "unit": "kg"},
    {"name": "Adjustable Bench"},
    {"name": "Pull-up Bar"},
]
PASTED = """Upper body - from my coach
Warm-up: 5 min easy row
A1. Bench press 4x8 @ 60kg
A2. Pull-ups 4x6
Goblet squat 3 sets of 12 @ 20kg
Plank 3 x 45s
"""


@dataclass
class BuildingPublisher:
    """An in-process bus for `PlanRequested`: the plan is built in a background task, as the local
    stack's bus hands the event to the plan function while the request has already been answered."""

    programs: ProgramDeps | None = None
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    hold: asyncio.Event | None = None
    """When given, builds start only once it is set: a test keeps a plan pending for as long as it needs."""

    async def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        self.published.append((detail_type, detail))
        if detail_type == PLAN_REQUESTED and self.programs is not None:
            self.tasks.append(asyncio.create_task(self._build(self.programs, detail)))

    async def _build(self, programs: ProgramDeps, detail: dict[str, Any]) -> None:
        if self.hold is not None:
            await self.hold.wait()
        await build_plan(programs, detail["user_id"], detail["plan_id"])

    async def drain(self) -> None:
        """Releases any held build and waits for every build to end."""
        if self.hold is not None:
            self.hold.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@pytest.fixture
async def bus() -> AsyncIterator[BuildingPublisher]:
    publisher = BuildingPublisher()
    yield publisher
    await publisher.drain()


@pytest.fixture
async def container(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database, bus: BuildingPublisher
) -> AsyncIterator[Container]:
    built = await build_container(aws_settings, store=session_store, db=db, publisher=bus)
    bus.programs = built.programs
    yield built
    await bus.drain()
    await built.aclose()


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test", timeout=120) as http:
        yield http


@pytest.fixture
async def contract(client: httpx.AsyncClient) -> Contract:
    return Contract((await client.get("/openapi.json")).json())


@pytest.fixture
def headers_for(aws_settings: Settings) -> Callable[[str], dict[str, str]]:
    secret = aws_settings.jwt_secret.get_secret_value()
    return lambda user_id: {"Authorization": f"Bearer {mint_dev_token(secret, user_id)}"}


@pytest.fixture
async def lifter(make_user: Callable[..., str], db: Database) -> str:
    """A user with a home gym (dumbbells, bench, pull-up bar)."""
    user_id = make_user()
    async with db.transaction() as conn:
        await locations.create_location(conn, user_id, "Home Gym", equipment=HOME_GYM, make_current=True)
    return user_id


async def ready_plan(container: Container, user_id: str, **request: Any) -> dict[str, Any]:
    """A plan built inline (no publisher): ready, with its first week."""
    assert container.programs is not None
    inline = ProgramDeps(db=container.programs.db, agents=container.programs.agents, publisher=None)
    row = await request_plan(inline, user_id, PlanRequest(**request))
    assert row["status"] == "ready", row.get("error")
    return row


async def poll_until_settled(
    client: httpx.AsyncClient, contract: Contract, plan_id: str, headers: dict[str, str]
) -> dict[str, Any]:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        body: dict[str, Any] = contract.check(await client.get(f"/plans/{plan_id}", headers=headers))
        # A plan is marked ready just after its first week is built: a poll in between sees both.
        status = body["plan"]["status"]
        settled = status == "failed" or (
            status == "ready" and any(w["status"] == "ready" for w in body["weeks"])
        )
        if settled or time.monotonic() > deadline:
            return body
        await asyncio.sleep(0.2)


async def test_a_requested_plan_is_accepted_at_once_then_polled_until_ready(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    bus: BuildingPublisher,
) -> None:
    headers = headers_for(lifter)
    request = {"weeks": 12, "days_per_week": 4, "session_minutes": 45, "goal": "get stronger"}
    accepted = await client.post("/plans", json=request, headers=headers)
    assert accepted.status_code == 202
    plan = contract.check(accepted)["plan"]
    assert plan["status"] == "pending" and plan["title"] is None
    assert (plan["weeks"], plan["days_per_week"], plan["session_minutes"]) == (12, 4, 45)
    assert bus.published == [(PLAN_REQUESTED, {"user_id": lifter, "plan_id": plan["id"]})]

    detail = await poll_until_settled(client, contract, plan["id"], headers)
    assert detail["plan"]["status"] == "ready", detail["plan"]["error"]
    assert detail["plan"]["active"] and detail["plan"]["title"]
    assert detail["markdown"].startswith("# ")
    structured = detail["structured"]
    assert len(structured["microcycles"]) >= 3
    assert any(cycle["deload_weeks"] for cycle in structured["microcycles"])
    assert [(w["week_number"], w["status"]) for w in detail["weeks"]] == [(1, "ready")]
    days = detail["days"]
    assert len(days) == 7 and [d["date"] for d in days] == sorted(d["date"] for d in days)
    training = [d for d in days if d["kind"] == "training"]
    assert len(training) == 4
    for day in training:
        assert day["workout"]["exercises"] and day["message"]
        assert len(day["message"]) <= 1600
    for day in days:
        if day["kind"] == "rest":
            assert day["workout"] is None and day["recovery_notes"]

    listed = contract.check(await client.get("/plans", headers=headers))
    assert [p["id"] for p in listed["plans"]] == [plan["id"]]
    assert listed["plans"][0]["status"] == "ready"


async def test_plans_and_workouts_are_scoped_to_their_user(
    client: httpx.AsyncClient,
    contract: Contract,
    container: Container,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    make_user: Callable[..., str],
) -> None:
    plan = await ready_plan(container, lifter, weeks=8, days_per_week=3)
    plan_id = str(plan["id"])
    owner = contract.check(await client.get(f"/plans/{plan_id}", headers=headers_for(lifter)))
    workout_id = next(d["id"] for d in owner["days"] if d["kind"] == "training")
    mine = contract.check(await client.get(f"/workouts/{workout_id}", headers=headers_for(lifter)))
    assert mine["workout"]["id"] == workout_id and mine["workout"]["plan_id"] == plan_id

    stranger = headers_for(make_user())
    assert contract.check(await client.get(f"/plans/{plan_id}", headers=stranger))["error"]["code"] == (
        "plan_not_found"
    )
    assert contract.check(await client.get(f"/workouts/{workout_id}", headers=stranger))["error"]["code"] == (
        "workout_not_found"
    )
    assert contract.check(await client.get("/plans", headers=stranger))["plans"] == []
    start = date.fromisoformat(str(plan["start_date"]))
    window = {"from": start.isoformat(), "to": (start + timedelta(days=6)).isoformat()}
    assert contract.check(await client.get("/workouts", params=window, headers=stranger))["workouts"] == []
    for path in ("/plans/not-a-plan", "/workouts/not-a-workout", f"/plans/{workout_id}"):
        answer = contract.check(await client.get(path, headers=headers_for(lifter)))
        assert answer["error"]["code"] in ("plan_not_found", "workout_not_found"), path


async def test_bad_plan_requests_are_documented_4xx(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    bus: BuildingPublisher,
) -> None:
    headers = headers_for(lifter)
    long_ago = (datetime.now(UTC).date() - timedelta(days=400)).isoformat()
    cases: list[tuple[Any, int, str]] = [
        ({"weeks": 3}, 422, "invalid_request"),
        ({"weeks": 17}, 422, "invalid_request"),
        ({"session_minutes": 5}, 422, "invalid_request"),
        ({"training_days": ["Funday"]}, 422, "invalid_request"),
        ({"weeks": 12, "colour": "blue"}, 422, "invalid_request"),
        ({"start_date": long_ago}, 422, "invalid_plan_request"),
        (["weeks", 12], 400, "invalid_body"),
    ]
    for body, status, code in cases:
        answer = await client.post("/plans", json=body, headers=headers)
        assert (answer.status_code, contract.check(answer)["error"]["code"]) == (status, code), body
    malformed = await client.post(
        "/plans", content=b"{", headers={**headers, "content-type": "application/json"}
    )
    assert contract.check(malformed)["error"]["code"] == "malformed_json"
    assert contract.check(await client.get("/plans?limit=0", headers=headers))["error"]["code"] == (
        "invalid_request"
    )
    assert bus.published == []
    missing = await client.post("/plans", json={"weeks": 12})
    assert contract.check(missing)["error"]["code"] == "missing_token"


async def test_planned_workouts_are_read_by_a_bounded_date_range(
    client: httpx.AsyncClient,
    contract: Contract,
    container: Container,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
) -> None:
    headers = headers_for(lifter)
    plan = await ready_plan(container, lifter, weeks=8, training_days=["Monday", "Wednesday", "Friday"])
    start = date.fromisoformat(str(plan["start_date"]))

    default = contract.check(await client.get("/workouts", headers=headers))
    assert default["from"] == start.isoformat()
    assert default["to"] == (start + timedelta(days=6)).isoformat()
    assert [w["date"] for w in default["workouts"]] == [
        (start + timedelta(days=n)).isoformat() for n in range(7)
    ]
    training = [w for w in default["workouts"] if w["kind"] == "training"]
    assert {w["weekday"] for w in training} == {"Monday", "Wednesday", "Friday"}
    for workout in training:
        assert workout["workout"]["exercises"] and 0 < len(workout["message"]) <= 1600

    two = {"from": (start + timedelta(days=1)).isoformat(), "to": (start + timedelta(days=2)).isoformat()}
    assert len(contract.check(await client.get("/workouts", params=two, headers=headers))["workouts"]) == 2
    later = {"from": (start + timedelta(days=30)).isoformat(), "to": (start + timedelta(days=40)).isoformat()}
    assert contract.check(await client.get("/workouts", params=later, headers=headers))["workouts"] == []

    bad: list[tuple[dict[str, str], str]] = [
        ({"from": "2026-03-10", "to": "2026-03-01"}, "invalid_range"),
        ({"from": "2026-01-01", "to": "2026-06-30"}, "invalid_range"),
        ({"from": "2026-02-30"}, "invalid_request"),
        ({"to": "next tuesday"}, "invalid_request"),
    ]
    for params, code in bad:
        answer = await client.get("/workouts", params=params, headers=headers)
        assert (answer.status_code, contract.check(answer)["error"]["code"]) == (422, code), params
    widest = {"from": "2026-01-01", "to": "2026-04-03"}
    listed = contract.check(await client.get("/workouts", params=widest, headers=headers))
    assert (listed["from"], listed["to"]) == ("2026-01-01", "2026-04-03")


async def test_a_pasted_workout_imports_and_a_text_without_one_is_refused(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    aws_settings: Settings,
) -> None:
    headers = headers_for(lifter)
    imported = contract.check(await client.post("/workouts/import", json={"text": PASTED}, headers=headers))
    names = [e["exercise_name"].lower() for e in imported["workout"]["exercises"]]
    assert any("bench" in n for n in names) and any("pull" in n for n in names)
    assert any("squat" in n for n in names) and any("plank" in n for n in names)
    bench = next(e for e in imported["workout"]["exercises"] if "bench" in e["exercise_name"].lower())
    assert (bench["sets"], bench["reps"], bench["load_each"]) == (4, [8] * 4, [60.0] * 4)

    refused = await client.post(
        "/workouts/import", json={"text": "Had a lovely walk with the dog, feeling great."}, headers=headers
    )
    assert refused.status_code == 422
    error = contract.check(refused)["error"]
    assert error["code"] == "not_a_workout" and "workout" in error["message"].lower()

    for body, status, code in [
        ({"text": "   "}, 422, "invalid_request"),
        ({"text": "x" * 20_001}, 422, "invalid_request"),
        ({}, 422, "invalid_request"),
        ({"text": "y" * (aws_settings.max_body_bytes + 10)}, 413, "body_too_large"),
    ]:
        answer = await client.post("/workouts/import", json=body, headers=headers)
        assert (answer.status_code, contract.check(answer)["error"]["code"]) == (status, code)


async def test_an_import_of_abusive_text_is_a_422_saying_what_was_not_understood(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
) -> None:
    """A number of 20,000 digits (inside the 20,000-character limit) once raised Python's 4,300-digit
    int() limit after minutes of regex backtracking and answered 503; too many lines are refused before
    anything is read."""
    headers = headers_for(lifter)
    bomb = await client.post("/workouts/import", json={"text": "Squat " + "1" * 19_990}, headers=headers)
    assert bomb.status_code == 422, bomb.text
    error = contract.check(bomb)["error"]
    assert error["code"] == "not_a_workout"
    assert "Not understood:" in error["message"] and '"Squat 1111' in error["message"]

    lines = await client.post("/workouts/import", json={"text": "Squat 3x5\n" * 401}, headers=headers)
    assert lines.status_code == 422, lines.text
    error = contract.check(lines)["error"]
    assert error["code"] == "import_too_large" and "at most 400" in error["message"]

    mixed = await client.post(
        "/workouts/import", json={"text": PASTED + "Deadlift " + "9" * 5000 + "\n"}, headers=headers
    )
    imported = contract.check(mixed)
    assert any("bench" in e["exercise_name"].lower() for e in imported["workout"]["exercises"])
    assert any(line.startswith("Deadlift 9999") for line in imported["unrecognised"])


async def test_an_import_is_parsed_off_the_event_loop(
    client: httpx.AsyncClient,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a paste is read, the loop keeps serving: a ticker task advances during the parse."""
    from trainer.programs import agents as program_agents
    from trainer.programs.structure import parse_workout_text

    ticks: list[float] = []
    parse_ticks: list[int] = []

    def slow_parse(text: str) -> Any:
        before = len(ticks)
        time.sleep(0.3)
        parse_ticks.append(len(ticks) - before)
        return parse_workout_text(text)

    monkeypatch.setattr(program_agents, "parse_workout_text", slow_parse)

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    task = asyncio.create_task(ticker())
    try:
        answer = await client.post("/workouts/import", json={"text": PASTED}, headers=headers_for(lifter))
    finally:
        task.cancel()
    assert answer.status_code == 200, answer.text
    assert parse_ticks and parse_ticks[0] >= 5, parse_ticks


async def test_simultaneous_plan_requests_make_one_plan_and_the_calendar_lists_each_day_once(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    bus: BuildingPublisher,
) -> None:
    """Two identical requests at once are one plan (both answers name it); a different one while it is
    built is 409; once it is ready exactly one plan is active, its first week built. The build is held
    until the third request is answered, so the plan cannot be ready before it."""
    headers = headers_for(lifter)
    bus.hold = asyncio.Event()
    body = {"weeks": 4, "days_per_week": 3, "session_minutes": 45}
    first, second = await asyncio.gather(
        client.post("/plans", json=body, headers=headers), client.post("/plans", json=body, headers=headers)
    )
    assert (first.status_code, second.status_code) == (202, 202), (first.text, second.text)
    plan_id = contract.check(first)["plan"]["id"]
    assert contract.check(second)["plan"]["id"] == plan_id
    other = await client.post("/plans", json={**body, "weeks": 8}, headers=headers)
    assert other.status_code == 409, other.text
    assert contract.check(other)["error"]["code"] == "plan_in_progress"
    assert len([p for p in bus.published if p[0] == PLAN_REQUESTED]) == 1
    bus.hold.set()

    detail = await poll_until_settled(client, contract, plan_id, headers)
    assert detail["plan"]["status"] == "ready" and detail["weeks"][0]["status"] == "ready"
    plans = contract.check(await client.get("/plans", headers=headers))["plans"]
    assert [p["id"] for p in plans if p["active"]] == [plan_id]
    week = contract.check(await client.get("/workouts", headers=headers))["workouts"]
    dates = [w["date"] for w in week]
    assert dates and len(dates) == len(set(dates)), "each day once"


async def test_the_calendar_shows_only_the_active_plans_days(
    client: httpx.AsyncClient,
    contract: Contract,
    headers_for: Callable[[str], dict[str, str]],
    lifter: str,
    container: Container,
    db: Database,
) -> None:
    """A replaced plan's days (even those kept as done) are not listed beside the new plan's."""
    headers = headers_for(lifter)
    old = await ready_plan(container, lifter, weeks=4, days_per_week=3)
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE plan_workouts SET status = 'completed' WHERE user_id = %s AND plan_id = %s",
            (lifter, old["id"]),
        )
    new = await ready_plan(container, lifter, weeks=4, days_per_week=5)
    listed = contract.check(await client.get("/workouts", headers=headers))["workouts"]
    assert listed and {w["plan_id"] for w in listed} == {str(new["id"])}
