"""Schemathesis (pytest integration) against the app on real stores — DynamoDB on moto, embedded
Postgres, the agent loop on the offline model — with a valid bearer token and every built-in check.

The routes that read stored sessions run on stores seeded with sessions of every shape they can hold
(trainer_dev.testing.session_shapes: turns on the offline coach and on the real SDKs against the
loopback fake, the initializer's events from OpenAI and from its rules, an event as stored before,
refused, cut, failed, checkpointed, empty and erased sessions), and every seeded session is read back
through every route that serves it, with every check.

The schema is the app's own OpenAPI document, loaded when the module is collected; the `api`
fixture checks that the app on real stores serves that same document, and every case is sent to it.
Schemathesis serves ASGI apps from an event loop of its own and a Postgres pool belongs to the loop
that opened it, so `RealStoresApp` builds the container in its lifespan, inside that loop.
(`schemathesis.pytest.from_fixture` would load the schema from a fixture instead, but it sets
`node._nodeid`, which pytest 9.2 no longer has.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from zoneinfo import available_timezones

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.python import asgi as schemathesis_asgi
from trainer.api.app import create_app
from trainer.api.auth import mint_dev_token
from trainer.api.openapi import BEARER_SCHEME
from trainer.api.schemas import TIME_ZONE_FORMAT
from trainer.settings import Settings
from trainer.store.db import Database
from trainer.store.sessions import DynamoSessionStore
from trainer_dev.local.fake_llm import FakeLLMServer
from trainer_dev.testing.session_shapes import SessionShapes, seed_every_shape

from tests.integration.conftest import RealStoresApp

EXAMPLES_PER_OPERATION = 50
EXAMPLES_PER_AGENT_TURN = 3
"""Each positive example of /agent/chat and /agent/stream runs a real agent turn."""
MAX_RESPONSE_SECONDS = 30.0
USER = "5d6f3c2a-8b1e-4f7a-9c0d-2e3f4a5b6c7d"
"""The token's user; the API creates its rows on first contact (sessions live in fresh tables)."""
LEAVING_USER = "7e1d2c3b-4a5f-4e6d-8c7b-9a0f1e2d3c4b"
"""`DELETE /me` is sent with this user's token: the deletion is real, and USER must stay."""

BUILTIN_CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "positive_data_acceptance",
    "negative_data_rejection",
    "use_after_free",
    "ensure_resource_availability",
    "missing_required_header",
    "ignored_auth",
    "object_level_authorization",
    "unsupported_method",
    "allow_header_conformance",
    "max_response_time",
)

NEGATIVE_DATA_STATUSES = [
    *("400", "401", "403", "404", "405", "406", "409"),
    *("415", "422", "428", "429", "5xx"),
]
"""Schemathesis's default list: a value over a schema limit (a message over `maxLength`) is the
validation error the schema promises, never 413 (which only a body over the byte limit answers)."""
POSITIVE_DATA_STATUSES = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]
"""Schemathesis's default for valid requests."""
SEMANTIC_422_STATUSES = [*POSITIVE_DATA_STATUSES, "422"]
TIME_ZONES = frozenset(available_timezones())
# The documented custom format of time zones: generated values are zones zoneinfo knows.
schemathesis.openapi.format(TIME_ZONE_FORMAT, st.sampled_from(sorted(TIME_ZONES)))


def contract_config(token: str) -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            "generation": {"max-examples": EXAMPLES_PER_OPERATION, "database": "none"},
            "auth": {"openapi": {BEARER_SCHEME: {"bearer": token}}},
            "checks": {
                "negative_data_rejection": {"expected-statuses": NEGATIVE_DATA_STATUSES},
                "max_response_time": MAX_RESPONSE_SECONDS,
            },
            # Call sequences follow the document's own links only: links inferred from list answers
            # would depend on what earlier examples left in the store (flaky for Hypothesis).
            "phases": {"stateful": {"inference": {"algorithms": []}}},
            "operations": [
                {
                    # An `Idempotency-Key` that an earlier example sent with another body is refused
                    # with 422 idempotency_key_reused: valid by the schema, refused for what came before.
                    "include-path-regex": "^/agent/(chat|stream)$",
                    "generation": {"max-examples": EXAMPLES_PER_AGENT_TURN},
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEMANTIC_422_STATUSES}},
                },
                {
                    # What a schema cannot say: `to` after `from` (within 92 days), a start date near
                    # today, a text that holds a workout, a push token of its platform's shape, a
                    # morning the deployment serves, SMS with a verified number. Valid by the schema,
                    # refused with a 422 of their own documented code (invalid_range,
                    # invalid_plan_request, not_a_workout, invalid_device, invalid_notification_settings,
                    # phone_not_verified).
                    "include-path-regex": "^/(plans|workouts|workouts/import|devices|notification-settings)$",
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEMANTIC_422_STATUSES}},
                },
                {
                    # A calendar change the schema cannot refuse: a move and a swap at once, or a move
                    # into the past (422 invalid_workout_change, answered before the id is looked up).
                    "include-operation-id": "updateWorkout",
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEMANTIC_422_STATUSES}},
                },
                {
                    # A health sample's rules a schema cannot say: its unit and value range by its type,
                    # its dates within 400 days back and a day ahead, its platform's own HRV measure, a
                    # consent granted for its type (422 invalid_request, 409 consent_required).
                    "include-path-regex": "^/health/samples$",
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEMANTIC_422_STATUSES}},
                },
                {
                    # The settings screens' rules a schema cannot say either: a birth date after 1900,
                    # names listed once and percentages not all zero, an expiry in the future
                    # (invalid_profile, invalid_goals, invalid_preference).
                    "include-path-regex": "^/me/(profile|goals|preferences)$",
                    "checks": {"positive_data_acceptance": {"expected-statuses": SEMANTIC_422_STATUSES}},
                },
            ],
        }
    )


DOCUMENT = create_app(settings=Settings()).openapi()
APP = RealStoresApp()
SECRET = Settings().jwt_secret.get_secret_value()
TOKEN, LEAVING_TOKEN = mint_dev_token(SECRET, USER), mint_dev_token(SECRET, LEAVING_USER)
schema = schemathesis.openapi.from_dict(DOCUMENT, config=contract_config(TOKEN))
schema.app = APP  # as `from_asgi` does: every request, the checks' probes included, goes to the app


@schema.hook
def filter_body(context: schemathesis.HookContext, body: Any) -> bool:
    """Schemathesis also tries string constants found in the app's source as values, screened by a
    validator that ignores custom formats: keep only time zones of the documented format."""
    timezone = body.get("timezone") if isinstance(body, dict) else None
    return not isinstance(timezone, str) or timezone in TIME_ZONES


def _whole_numbers_as_integers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers_as_integers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers_as_integers(item) for item in value]
    return value


@schema.hook
def map_body(context: schemathesis.HookContext, body: Any) -> Any:
    """A whole number is sent as an integer. Bodies are strict about JSON types (an integer field refuses
    `7.0`, as it refuses `"7"` and `true`: docs/api.md), which JSON Schema cannot say: to it `7.0` is the
    integer 7, and schemathesis spells some integers that way. tests/unit/api/test_inputs.py checks that
    `7.0` is refused."""
    return _whole_numbers_as_integers(body)


@schemathesis.hook
def before_call(context: schemathesis.HookContext, case: schemathesis.Case, kwargs: dict[str, Any]) -> None:
    """`DELETE /me` really deletes: it is sent as LEAVING_USER (a probe without the token stays one).
    A global hook (schemathesis runs `before_call` only so); it touches nothing but this case."""
    headers = case.headers or {}
    if (case.method.upper(), case.path) == ("DELETE", "/me") and headers.get(
        "Authorization"
    ) == f"Bearer {TOKEN}":
        headers["Authorization"] = f"Bearer {LEAVING_TOKEN}"


STORED_READS = ("GET /agent/sessions", "GET /me/export", "in_call_sequences", "stored_shape")
"""The tests whose stores are seeded with sessions of every shape (the operations that read them)."""


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(api_key="sk-fake-every-shape") as server:
        yield server


def seed(settings: Settings, store: DynamoSessionStore, pg_url: str, fake: FakeLLMServer) -> SessionShapes:
    async def run() -> SessionShapes:
        db = Database(pg_url, min_size=1, max_size=4)
        await db.open()
        try:
            return await seed_every_shape(settings, store, db, USER, fake)
        finally:
            await db.close()

    return asyncio.run(run())


@pytest.fixture
def stored(
    request: pytest.FixtureRequest,
    aws_settings: Settings,
    session_store: DynamoSessionStore,
    pg_url: str,
    fake_llm: FakeLLMServer,
) -> SessionShapes | None:
    """Sessions of every shape for USER, for the tests of the routes that read them (None elsewhere)."""
    if not any(name in request.node.name for name in STORED_READS):
        return None
    return seed(aws_settings, session_store, pg_url, fake_llm)


@pytest.fixture
def api(
    aws_settings: Settings, session_store: DynamoSessionStore, pg_url: str, stored: SessionShapes | None
) -> Iterator[RealStoresApp]:
    """The app on this test's fresh tables (seeded for the routes that read sessions); it must serve
    the document under test."""
    APP.use(aws_settings, session_store, pg_url)
    try:
        with schemathesis_asgi.get_client(APP) as client:  # type: ignore[arg-type]
            assert client.get("/openapi.json").json() == DOCUMENT
        yield APP
    finally:
        schemathesis_asgi.shutdown_lifespans()
        APP.stores = None


def test_every_builtin_check_is_enabled() -> None:
    checks = schema.config.checks
    assert [name for name in BUILTIN_CHECKS if not checks.get_by_name(name=name).enabled] == []


@schema.parametrize()
# One app on fresh tables per operation, shared by that operation's examples on purpose.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_api_conforms_to_its_openapi(case: schemathesis.Case, api: RealStoresApp) -> None:
    case.call_and_validate()


def test_api_conforms_to_its_openapi_in_call_sequences(api: RealStoresApp) -> None:
    """Stateful: sequences that follow the document's links (a session created, then read, its
    events paged, deleted, read again), every built-in check on every answer."""
    schema.as_state_machine().run(
        settings=settings(max_examples=10, stateful_step_count=8, deadline=None, database=None)
    )


SESSION_READS = [
    (path, "GET")
    for path, methods in DOCUMENT["paths"].items()
    if "{session_id}" in path and "get" in methods
]


def test_every_route_that_reads_sessions_is_covered() -> None:
    assert sorted(path for path, _ in SESSION_READS) == [
        "/agent/sessions/{session_id}",
        "/agent/sessions/{session_id}/events",
        "/agent/sessions/{session_id}/frames",
    ]


def test_every_stored_shape_conforms_through_every_route_that_reads_it(
    api: RealStoresApp, stored: SessionShapes | None
) -> None:
    """Each seeded session (and each erased one) through each route that reads a session, the list and
    the export, with every check: no server error, every answer as the document describes it."""
    assert stored is not None and len(stored.live) == 7 and stored.erased
    auth = {"Authorization": f"Bearer {TOKEN}"}
    cases = [
        (schema["/agent/sessions"]["GET"].Case(headers=auth, query={"limit": 100}), 200),
        (schema["/me/export"]["GET"].Case(headers=auth), 200),
    ]
    for path, method in SESSION_READS:
        operation = schema[path][method]
        for session_id, status in [*((s, 200) for s in stored.live), *((s, 404) for s in stored.erased)]:
            ids = {"session_id": session_id}
            cases.append((operation.Case(headers=auth, path_parameters=ids), status))
            if path.endswith("/events"):
                cases.append((operation.Case(headers=auth, path_parameters=ids, query={"limit": 3}), status))
            if path.endswith("/frames"):
                cases.append((operation.Case(headers=auth, path_parameters=ids, query={"after": 0}), status))
    for case, status in cases:
        response = case.call_and_validate()
        assert response.status_code == status, (case.path, case.path_parameters, response.text[:500])
    listed = schema["/agent/sessions"]["GET"].Case(headers=auth, query={"limit": 100}).call().json()
    assert {s["id"] for s in listed["sessions"]} == set(stored.live)
