"""What a request may hold (trainer.api.inputs), on the models themselves and on every body the app
serves: one shared base cleans every string and types every value strictly; dates are ISO text that
exists; integers in queries and headers are ASCII digits. No I/O: the app is built, never served."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any, get_args

import pytest
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from trainer.api.app import create_app
from trainer.api.delivery_schemas import NotificationSettingsUpdate
from trainer.api.inputs import FRAME_ID_PATTERN, IsoDate, IsoDatetime, QueryInt, RequestBody
from trainer.api.me_schemas import LocationCreate, ProfileUpdate
from trainer.api.readiness_schemas import ReadinessCheckIn
from trainer.api.schemas import PlanCreate, WorkoutCreate
from trainer.settings import Settings

SETTINGS = {"push_enabled": True, "morning_hour": 8, "quiet_hours": None, "sms_enabled": False}


def models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        for field in annotation.model_fields.values():
            yield from models_in(field.annotation)
    for arg in get_args(annotation):
        yield from models_in(arg)


def api_routes(routes: Any) -> Iterator[APIRoute]:
    """The app's routes, those of the routers it includes too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from api_routes(route.original_router.routes)


def request_bodies() -> dict[str, type[BaseModel]]:
    app = create_app(settings=Settings())
    bodies: dict[str, type[BaseModel]] = {}
    for route in api_routes(app.routes):
        for param in route.dependant.body_params:
            model = param.field_info.annotation
            assert isinstance(model, type) and issubclass(model, BaseModel), (route.path, model)
            bodies[f"{sorted(route.methods)[0]} {route.path}"] = model
    return bodies


BODIES = request_bodies()


def test_the_app_has_the_bodies_this_test_walks() -> None:
    assert len(BODIES) >= 15 and "PUT /notification-settings" in BODIES and "POST /agent/stream" in BODIES


@pytest.mark.parametrize("route", sorted(BODIES))
def test_every_request_body_is_a_request_body_all_the_way_down(route: str) -> None:
    """Nested models the API defines are `RequestBody`s too; the domain's (a client's workout, a plan
    request's weekday) are validated strictly by their parent and cleaned by it."""
    body = BODIES[route]
    assert issubclass(body, RequestBody), route
    assert body.model_config.get("strict") is True, route
    api_models = {m for m in models_in(body) if m.__module__.startswith("trainer.api.")}
    assert all(issubclass(m, RequestBody) for m in api_models), (route, api_models)


def test_every_string_is_cleaned_nested_ones_and_keys_included() -> None:
    location = LocationCreate.model_validate(
        {
            "name": "\u202eHome\x00",
            "description": "bell\x07\nsecond line",
            "equipment": [{"name": "Dumb\u200bbells\x1b", "type": "free\x00weights", "weights": [5]}],
        }
    )
    assert (location.name, location.description) == ("Home", "bell\nsecond line")
    assert (location.equipment[0].name, location.equipment[0].type) == ("Dumbbells", "freeweights")
    check_in = ReadinessCheckIn.model_validate({"soreness": {"Quadriceps\u200b": 3}, "notes": "a\x00b"})
    assert check_in.soreness == {"Quadriceps": 3} and check_in.notes == "ab"


@pytest.mark.parametrize("name", ["\u200b", "\x00", "\u202e\u2066", "\x1b\x07", "\ufeff \u200d"])
def test_a_name_the_cleaning_empties_is_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="display_name"):
        ProfileUpdate.model_validate({"display_name": name})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("push_enabled", 1),
        ("push_enabled", "true"),
        ("morning_hour", "8"),
        ("morning_hour", 7.0),
        ("morning_hour", True),
        ("sms_enabled", 0),
    ],
)
def test_notification_settings_take_only_their_json_types(field: str, value: Any) -> None:
    NotificationSettingsUpdate.model_validate(SETTINGS)
    with pytest.raises(ValidationError, match=field):
        NotificationSettingsUpdate.model_validate({**SETTINGS, field: value})


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (PlanCreate, {"weeks": "8"}),
        (PlanCreate, {"weeks": 8.0}),
        (PlanCreate, {"start_date": 0}),
        (WorkoutCreate, {"date": "2026-12-24", "workout_type": "Run", "duration_minutes": "30"}),
        (WorkoutCreate, {"date": 20261224, "workout_type": "Run"}),
        (ReadinessCheckIn, {"energy": "3"}),
        (ReadinessCheckIn, {"energy": 3.0}),
        (ReadinessCheckIn, {"soreness": {"Quadriceps": "2"}}),
    ],
)
def test_bodies_that_were_read_loosely_are_refused(model: type[BaseModel], body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(body)


def test_a_number_is_a_number_where_the_schema_says_number() -> None:
    assert ReadinessCheckIn.model_validate({"sleep_hours": 7}).sleep_hours == 7.0
    plan = PlanCreate.model_validate({"weeks": 8, "start_date": "2026-12-24"})
    assert plan.start_date == date(2026, 12, 24)


@pytest.mark.parametrize(
    "value", ["2026-1-5", "٢٠٢٦-٠١-٠٥", "2026-01-05T00:00:00", 0, "20260105", "0000-01-01", "2026-02-30"]
)
def test_a_date_is_iso_text_in_ascii_digits(value: Any) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(IsoDate).validate_python(value)


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T23:00:00-12:00",
        "0001-01-01T00:00:00+14:00",
        "1767225600",
        "2026-12-24",
        "2026-12-24T10:00:00",
    ],
    ids=["past-year-9999-in-utc", "before-year-1-in-utc", "a-timestamp", "a-date", "no-offset"],
)
def test_a_time_is_iso_text_with_an_offset_that_exists_in_utc(value: str) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(IsoDatetime).validate_python(value)
    assert TypeAdapter(IsoDatetime).validate_python("9999-12-31T10:00:00-12:00").year == 9999


@pytest.mark.parametrize("value", ["²", "¹²³", "١٢", "1_0", " 5", "+5", "5.0", "0x10", "9" * 19, "9" * 5000])
def test_an_integer_in_a_query_is_ascii_digits(value: str) -> None:
    import re

    with pytest.raises(ValidationError):
        TypeAdapter(QueryInt).validate_python(value)
    assert not re.fullmatch(FRAME_ID_PATTERN, value)
    assert TypeAdapter(QueryInt).validate_python("9" * 18) == 10**18 - 1
