"""Values at each type's edge, at every input of every route of openapi.json, on the real stores
(DynamoDB on moto, embedded Postgres, the offline model): never a 5xx, every refusal the API's JSON
error, nothing stored by a 4xx, and a value of another JSON type than the schema's always refused.

For each operation of the document a valid request is built (`valid_request`: the ids of resources set
up for the user); then each of its inputs in turn takes each edge value, the others keeping theirs:
every path, query and header parameter (`PARAMETER_EDGES`) and every member of the JSON body, nested
ones and whole objects and lists included (`BODY_EDGES`): unicode digits, NUL, lone surrogates,
invisible characters, far dates, numbers past 64 bits, past a float and past Python's 4,300 digits,
NaN, and every wrong JSON type. A case is one such request; `test_every_operation_is_covered` says how
many each route gets (routes x cases).

"Nothing stored" compares the user's rows in every Postgres table that has them and every item of the
DynamoDB tables before and after each refused request (the values of another JSON type, which must
all be refused, go first and are compared once around them all), the accounting aside: request rates
(every request counts) and the record of model work that ran (`agent_invocations`, the day's usage
counters: `POST /workouts/import` answers `422 not_a_workout` once the model has read the text, and
that call is counted)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.container import build_container
from trainer.settings import Settings
from trainer.store.db import POOLER_SAFE, Database
from trainer.store.dynamo_tables import aws_client
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.testing.agent_harness import RecordingPublisher

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi.json").read_text())
METHODS = ("get", "post", "put", "patch", "delete")
OPERATIONS = sorted(
    (operation["operationId"], method.upper(), path)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if method in METHODS
)


@dataclass(frozen=True)
class Raw:
    """A JSON token json.dumps cannot write (a number past Python's 4,300 digits, NaN, a lone surrogate)."""

    token: str


LONE_SURROGATE = Raw('"\\ud800x"')
WRONG_TYPES: list[Any] = [True, False, None, [], {}, ["x"], {"x": 1}]
NUMBERS: list[Any] = [
    0, -1, 1.5, -0.0, 2**31, 2**63, 2**64 + 1, 10**30, 1e308, -1e308,
    Raw("1" + "0" * 5000), Raw("1e400"), Raw("NaN"), Raw("-Infinity"),
]  # fmt: skip
STRINGS: list[Any] = [
    "", " ", "\x00", "a\x00b", "\u202eevil", "\x1b[31m\x07", "\u200b", "\u200d", "\ufeff",
    "²", "¹²³", "١٢٣", "０", "9" * 5000, "x" * 20_000, "\U0001f600" * 40, "<knowledge>", "../x",
    "9999-12-31", "9999-12-31T23:00:00-12:00", "0001-01-01", "0001-01-01T00:00:00+14:00", "10000-01-01",
    "2026-02-30", "٢٠٢٦-٠١-٠١", "1767225600", "true", "null", "NaN", "-1", "Etc/GMT+12",
    LONE_SURROGATE,
]  # fmt: skip
BODY_EDGES: list[Any] = [*STRINGS, *NUMBERS, *WRONG_TYPES]
PARAMETER_EDGES: list[str] = [
    "", "²", "¹²³", "١٢", "٠" * 32, "9" * 5000, "9" * 19, "-1", "0", "1_0", " 5", "5.0", "1e3", "0x10",
    "9999-12-31", "0001-01-01", "10000-01-01", "٢٠٢٦-٠١-٠١", "\u202e", "\x00", "true", "a" * 3000,
    "..", "%", "\U0001f600",
]  # fmt: skip


@dataclass
class Request:
    method: str
    path: str
    path_params: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False

    def url(self) -> str:
        path = self.path
        for name, value in self.path_params.items():
            path = path.replace("{" + name + "}", quote(value, safe="") or "%20")
        return path


@dataclass(frozen=True)
class Case:
    label: str
    request: Request
    wrong_type: bool
    """The value's JSON type is not one the schema allows: the request must be refused."""


# --- the document -------------------------------------------------------------------------------------


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = DOCUMENT["components"]["schemas"][name]
    return schema


def members(schema: dict[str, Any]) -> list[dict[str, Any]]:
    schema = resolve(schema)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return [m for option in schema[key] for m in members(option)]
    return [schema]


def json_types(schema: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema allows; None when it does not say."""
    found: set[str] = set()
    for member in members(schema):
        kind = member.get("type")
        if kind is None and "const" in member:
            kind = type_of(member["const"])
        if kind is None and "enum" in member:
            kind = [type_of(value) for value in member["enum"]]
        if kind is None:
            return None
        found |= set(kind) if isinstance(kind, list) else {kind}
    return found


def child_schema(schema: dict[str, Any], key: str | int) -> dict[str, Any]:
    for member in members(schema):
        if isinstance(key, int) and "items" in member:
            return dict(member["items"])
        if isinstance(key, str) and key in member.get("properties", {}):
            return dict(member["properties"][key])
        if isinstance(key, str) and isinstance(member.get("additionalProperties"), dict):
            return dict(member["additionalProperties"])
    return {}


def type_of(value: Any) -> str:
    if isinstance(value, Raw):
        return "string" if value.token.startswith('"') else "number"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


def allowed(value: Any, types: set[str] | None) -> bool:
    if types is None:
        return True
    kind = type_of(value)
    return kind in types or (kind == "integer" and "number" in types)


def body_schema(method: str, path: str) -> dict[str, Any]:
    body = DOCUMENT["paths"][path][method.lower()].get("requestBody")
    return dict(body["content"]["application/json"]["schema"]) if body else {}


# --- the cases ----------------------------------------------------------------------------------------


def nodes(value: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """The path of every member of a JSON value (objects and lists too, their first item)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key)
            yield from nodes(item, (*at, key))
    elif isinstance(value, list) and value:
        yield (*at, 0)
        yield from nodes(value[0], (*at, 0))


def with_value(value: Any, at: tuple[str | int, ...], new: Any) -> Any:
    if not at:
        return new
    head, *rest = at
    copied = dict(value) if isinstance(value, dict) else list(value)
    copied[head] = with_value(value[head], tuple(rest), new)  # type: ignore[index,call-overload]
    return copied


def cases(request: Request) -> Iterator[Case]:
    operation = DOCUMENT["paths"][request.path][request.method.lower()]
    for parameter in operation.get("parameters", []):
        name, where = parameter["name"], parameter["in"]
        for edge in PARAMETER_EDGES:
            if where == "header" and ("\x00" in edge or not edge):
                continue  # not a header value HTTP can carry
            changed = replace(
                request,
                path_params={**request.path_params, **({name: edge} if where == "path" else {})},
                query={**request.query, **({name: edge} if where == "query" else {})},
                headers={**request.headers, **({name: edge} if where == "header" else {})},
            )
            yield Case(f"{where} {name}={edge[:12]!r}", changed, wrong_type=False)
    if request.has_body:
        schema = body_schema(request.method, request.path)
        for at in nodes(request.body):
            leaf = schema
            for key in at:
                leaf = child_schema(leaf, key)
            types = json_types(leaf)
            for edge in BODY_EDGES:
                changed = replace(request, body=with_value(request.body, at, edge))
                label = ".".join(map(str, at)) + f"={str(edge)[:12]!r}"
                yield Case(label, changed, wrong_type=not allowed(edge, types))
    if not operation.get("parameters") and not request.has_body:
        yield Case("as is", request, wrong_type=False)


def encode(body: Any) -> bytes:
    raws: dict[str, str] = {}

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            marker = f"__raw_{len(raws)}__"
            raws[f'"{marker}"'] = value.token
            return marker
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    text = json.dumps(swap(body))
    for marker, token in raws.items():
        text = text.replace(marker, token)
    return text.encode()


def header_bytes(value: str) -> bytes:
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode()


# --- what is stored -----------------------------------------------------------------------------------


Snapshot = tuple[frozenset[tuple[str, str]], frozenset[str]]


class Stored:
    """Everything stored for a user: their Postgres rows and every DynamoDB item (see the module)."""

    def __init__(self, settings: Settings, pg_url: str, user: str) -> None:
        self.user = user
        self.pg = psycopg.connect(pg_url, **POOLER_SAFE)
        tables = [
            row[0]
            for row in self.pg.execute(
                "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public'"
                " AND column_name = 'user_id' AND table_name <> 'agent_invocations' ORDER BY table_name"
            )
        ]
        parts = [f"SELECT '{t}', to_jsonb(r)::text FROM {t} r WHERE user_id = %(u)s" for t in tables]
        parts.append("SELECT 'users', to_jsonb(r)::text FROM users r WHERE id = %(u)s")
        self.query = " UNION ALL ".join(parts)
        self.dynamodb = aws_client("dynamodb", settings)
        self.tables = (settings.table_name, settings.idempotency_table_name)
        self.threads = ThreadPoolExecutor(max_workers=len(self.tables))

    def snapshot(self) -> Snapshot:
        """The user's rows and every item, the three reads side by side (the scans, over moto's HTTP
        API, are most of a case's time)."""
        scans = [self.threads.submit(self.items, table) for table in self.tables]
        rows = frozenset((str(t), str(j)) for t, j in self.pg.execute(self.query.encode(), {"u": self.user}))
        return rows, frozenset().union(*(scan.result() for scan in scans))

    def items(self, table: str) -> frozenset[str]:
        found: set[str] = set()
        pages = self.dynamodb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
        for page in pages:
            for item in page["Items"]:
                keys = json.dumps([item.get(k) for k in ("PK", "SK", "pk", "sk")])
                if "RATE#" not in keys and "DAY#" not in keys:
                    found.add(json.dumps(item, sort_keys=True, default=repr))
        return frozenset(found)

    def close(self) -> None:
        self.threads.shutdown()
        self.pg.close()


def what_changed(before: Snapshot, after: Snapshot) -> str:
    rows = sorted(after[0] ^ before[0])
    items = sorted(after[1] ^ before[1])
    return f"rows {[t for t, _ in rows]} {str(rows[:1])[:200]}, items {str(items[:1])[:200]}"


# --- the app and the user's resources -----------------------------------------------------------------


@pytest.fixture
async def edge_app(
    aws_settings: Settings, session_store: DynamoSessionStore, db: Database
) -> AsyncIterator[FastAPI]:
    """The API with request rates off (thousands of requests from one user)."""
    settings = aws_settings.model_copy(update={"rate_limits_enabled": False})
    container = await build_container(settings, store=session_store, db=db, publisher=RecordingPublisher())
    app = create_app(container)
    yield app
    await app.state.container_provider.turns.wait(60)
    await container.aclose()


async def valid_request(
    http: httpx.AsyncClient, operation_id: str, method: str, path: str, now: datetime
) -> Request:
    """A request the route accepts, on resources of the user where its path names one."""
    tomorrow = (now + timedelta(days=1)).date().isoformat()
    today = now.date().isoformat()

    async def created(route: str, body: Any = None, key: str = "id") -> str:
        response = await http.post(route, json=body)
        assert response.status_code in (200, 201, 202), response.text
        answer = response.json()
        return str(next(iter(answer.values()))[key] if len(answer) == 1 else answer[key])

    ids: dict[str, str] = {}
    if "{session_id}" in path:
        ids["session_id"] = await created("/agent/sessions")
    if "{device_id}" in path:
        ids["device_id"] = await created("/devices", {"platform": "apns", "token": uuid.uuid4().hex * 2})
    if "{location_id}" in path:
        ids["location_id"] = await created("/me/locations", {"name": "Home", "equipment": []})
    if "{preference_id}" in path:
        ids["preference_id"] = await created("/me/preferences", {"type": "other", "description": "short"})
    if "{plan_id}" in path:
        ids["plan_id"] = await created("/plans", {"weeks": 8})
    if "{workout_id}" in path:
        ids["workout_id"] = await created("/workouts", {"date": tomorrow, "workout_type": "Run"})
    session = await created("/agent/sessions") if operation_id == "sendChatMessage" else None
    if operation_id == "sendHealthSamples":  # a sample is refused (409) without consent for its type
        granted = await http.put("/health/consent", json={"sleep": True, "workouts": True})
        assert granted.status_code == 200, granted.text
    night_end, run_end = now - timedelta(hours=2), now - timedelta(hours=20)
    bed, run_start = night_end - timedelta(hours=8), run_end - timedelta(minutes=45)
    deep_end = bed + timedelta(hours=1)

    queries: dict[str, dict[str, str]] = {
        "listSessions": {"limit": "10"},
        "listSessionEvents": {"after": "0", "limit": "100"},
        "listFrames": {"after": "0"},
        "getExerciseHistory": {"days_back": "30", "limit": "50"},
        "listNotifications": {"limit": "20", "before": today},
        "listPlans": {"limit": "20"},
        "getReadiness": {"days_back": "14"},
        "listWorkouts": {"from": today, "to": tomorrow},
    }
    equipment = [{"name": "Dumbbells", "type": "free_weights", "weights": [5.0, 10.0], "unit": "kg"}]
    bodies: dict[str, Any] = {
        "sendChatMessage": {"message": "How should I warm up?", "sessionId": session},
        "streamChatTurn": {"message": "How should I warm up?"},
        "updateUserSettings": {
            "weight_unit": "kg", "distance_unit": "km", "timezone": "UTC", "preferred_days": ["Monday"],
        },
        "createPlan": {
            "weeks": 8, "days_per_week": 3, "training_days": ["Monday", "Wednesday", "Friday"],
            "session_minutes": 45, "goal": "get stronger", "experience": "beginner", "start_date": tomorrow,
        },
        "createWorkout": {
            "date": tomorrow, "time": "07:30", "workout_type": "Zone 2 Run", "duration_minutes": 45,
            "notes": "easy",
        },
        "importWorkout": {"text": "Bench press 4x8 @ 60kg"},
        "updateWorkout": {"date": (now + timedelta(days=3)).date().isoformat(), "status": "scheduled"},
        "createPreference": {
            "type": "injury", "description": "bad knee", "guidance": "no jumps",
            "expires_at": (now + timedelta(days=10)).isoformat(), "delete_after_use": False,
        },
        "updateProfile": {
            "display_name": "Sam", "sex": "other", "birth_date": "1990-05-01", "height_cm": 180.0,
            "weight_kg": 80.0, "body_fat_pct": 15.0, "experience": "beginner", "session_minutes": 45,
            "goal_statement": "run a 10k", "no_limitations": True, "available_days": ["Monday", "Thu"],
        },
        "updateGoals": {
            "categories": [
                {"category": "Strength", "description": "heavy", "percentage": 60.0},
                {"category": "Cardio", "percentage": 40.0},
            ],
            "muscles": {"Chest": 50.0, "Quadriceps": 50.0},
        },
        "createLocation": {
            "name": "Gym", "description": "downtown", "equipment": equipment, "current": False,
        },
        "updateLocation": {"name": "Home gym", "description": "garage", "equipment": equipment},
        "deleteAccount": {"confirm": "delete my account"},
        "registerDevice": {
            "platform": "apns", "token": "ab" * 32, "app_version": "1.4.0 (212)", "locale": "en-GB",
            "timezone": "Europe/Berlin",
        },
        "updateNotificationSettings": {
            "push_enabled": True, "morning_hour": 7, "quiet_hours": {"start": "22:00", "end": "06:30"},
            "sms_enabled": False,
        },
        "updateHealthConsent": {"sleep": True, "steps": False},
        "sendHealthSamples": {
            "platform": "healthkit",
            "samples": [
                {
                    "type": "sleep_session", "sample_id": "night-1", "start": bed.isoformat(),
                    "end": night_end.isoformat(), "value": 420.0, "unit": "min", "source": "Apple Watch",
                    "stages": [
                        {"stage": "deep", "start": bed.isoformat(), "end": deep_end.isoformat()},
                    ],
                },
                {
                    "type": "workout", "sample_id": "run-1", "start": run_start.isoformat(),
                    "end": run_end.isoformat(), "value": 45.0, "unit": "min", "source": "Strava",
                    "workout": {
                        "activity": "running", "distance_m": 8000.0, "average_heart_rate": 150.0,
                        "energy_kcal": 600.0,
                    },
                },
            ],
        },
        "createReadinessCheckIn": {
            "sleep_hours": 7.5, "sleep_quality": 4, "energy": 3, "stress": 2, "soreness": {"Quadriceps": 2},
            "last_session_rpe": 7.0, "notes": "fine",
        },
    }  # fmt: skip
    has_body = "requestBody" in DOCUMENT["paths"][path][method.lower()]
    assert not has_body or operation_id in bodies, f"give {operation_id} a valid body here"
    return Request(
        method,
        path,
        path_params=ids,
        query=queries.get(operation_id, {}),
        body=bodies.get(operation_id),
        has_body=has_body,
    )


def test_every_operation_is_covered() -> None:
    """The document's operations are what the test below walks: 44 routes today."""
    assert len(OPERATIONS) == len({op for op, _, _ in OPERATIONS}) >= 44


@pytest.mark.parametrize(("operation_id", "method", "path"), OPERATIONS, ids=[op for op, _, _ in OPERATIONS])
async def test_no_edge_value_is_a_5xx_or_stores_anything_when_refused(
    edge_app: FastAPI,
    aws_settings: Settings,
    pg_url: str,
    user: str,
    operation_id: str,
    method: str,
    path: str,
    record_property: Any,
) -> None:
    app = edge_app
    token = mint_dev_token(aws_settings.jwt_secret.get_secret_value(), user)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://api.test", headers=headers, timeout=60
    ) as http:
        request = await valid_request(http, operation_id, method, path, datetime.now(UTC))
        stored = Stored(aws_settings, pg_url, user)
        every = list(cases(request))
        problems: list[str] = []
        try:
            # the values of another JSON type must all be refused: one snapshot around them all
            before = stored.snapshot()
            for case in (c for c in every if c.wrong_type):
                status, problem = await sent(http, case)
                problems.extend(filter(None, [problem]))
                if status < 400:
                    problems.append(f"{case.label}: another JSON type was taken ({status})")
            after = stored.snapshot()
            if after != before:
                problems.append(f"a value of another JSON type stored {what_changed(before, after)}")
            current: Snapshot | None = after
            for case in (c for c in every if not c.wrong_type):
                current = current or stored.snapshot()
                status, problem = await sent(http, case)
                problems.extend(filter(None, [problem]))
                if status < 400:
                    current = None  # taken: what it stored is the route's to check, not this test's
                    continue
                after = stored.snapshot()
                if after != current:
                    problems.append(f"{case.label}: {status} stored {what_changed(current, after)}")
                current = after
        finally:
            stored.close()
    count = len(every)
    record_property("cases", count)
    print(f"{method} {path}: {count} cases")
    assert not problems, "\n".join(problems[:40])


async def sent(http: httpx.AsyncClient, case: Case) -> tuple[int, str | None]:
    """The case's request sent: its status, and what is wrong with the answer (a 5xx, a refusal that
    is not the API's JSON error)."""
    request = case.request
    headers: dict[str, Any] = {k: header_bytes(v) for k, v in request.headers.items()}
    response = await http.request(
        request.method,
        request.url(),
        params=request.query,
        headers={**headers, "Content-Type": "application/json"},
        content=encode(request.body) if request.has_body else None,
    )
    status = response.status_code
    if status >= 500:
        return status, f"{case.label}: {status} {response.text[:200]}"
    if status >= 400:
        body = response.json()
        if set(body) != {"error"} or not body["error"].get("code"):
            return status, f"{case.label}: {status} is not the JSON error: {response.text[:200]}"
    return status, None
