"""The contract of a health-data batch (trainer.api.health_schemas), in memory: what a sample must be to be
stored, each refusal a validation error naming the sample's field (the route answers 422 with it)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from pydantic import ValidationError
from trainer.api.health_schemas import MAX_BATCH, HealthConsentUpdate, HealthSampleBatch

NOW = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def clock() -> Iterator[None]:
    with time_machine.travel(NOW, tick=False):
        yield


def sample(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "hrv_rmssd",
        "sample_id": "5b0f7c1e-0d4f-4c43-9d6b-3f8e2f1a9c01",
        "start": "2026-03-02T05:10:00+01:00",
        "end": "2026-03-02T05:10:00+01:00",
        "value": 52.5,
        "unit": "ms",
        "source": "com.google.android.apps.fitness",
    }
    return {**base, **changes}


def batch(*samples: dict[str, Any], platform: str = "health_connect") -> dict[str, Any]:
    return {"platform": platform, "samples": list(samples)}


def refusal(body: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        HealthSampleBatch.model_validate_json(__import__("json").dumps(body))
    return str(caught.value)


def test_a_sample_of_each_type_is_accepted() -> None:
    night_end, midnight = "2026-03-02T06:30:00+00:00", "2026-03-02T00:00:00+00:00"
    accepted = HealthSampleBatch.model_validate(
        batch(
            sample(),
            sample(type="resting_heart_rate", sample_id="r1", value=52, unit="bpm"),
            sample(
                type="sleep_session",
                sample_id="s1",
                start="2026-03-01T22:30:00+00:00",
                end=night_end,
                value=450,
                unit="min",
                stages=[
                    {"stage": "light", "start": "2026-03-01T22:30:00+00:00", "end": midnight},
                    {"stage": "deep", "start": midnight, "end": night_end},
                ],
            ),
            sample(type="steps", sample_id="st1", value=1200, unit="count", end="2026-03-02T06:00:00+00:00"),
            sample(
                type="workout",
                sample_id="w1",
                start="2026-03-01T17:00:00+00:00",
                end="2026-03-01T18:02:00+00:00",
                value=62,
                unit="min",
                source="Strava",
                workout={"activity": "running", "distance_m": 12400, "average_heart_rate": 148},
            ),
        )
    )
    sleep, run = accepted.samples[2], accepted.samples[4]
    assert sleep.details() == {"stages": [s.model_dump(mode="json") for s in sleep.stages or []]}
    assert run.details() == {"activity": "running", "distance_m": 12400.0, "average_heart_rate": 148.0}
    assert accepted.samples[0].details() is None


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"unit": "s"}, "unit"),
        ({"unit": "bpm"}, "is in ms"),
        ({"value": 0.05}, "between 1 and 500"),
        ({"value": 52000}, "between 1 and 500"),
        ({"value": True}, "value"),
        ({"value": "52"}, "value"),
        ({"start": "2026-03-02T05:10:00"}, "timezone"),
        ({"start": 1772428200}, "ISO 8601"),
        ({"start": "2026-03-02T05:11:00+01:00"}, "end is before start"),
        ({"start": "2025-01-01T00:00:00Z", "end": "2025-01-01T00:00:00Z"}, "400 days"),
        ({"start": "2026-03-04T00:00:00Z", "end": "2026-03-04T00:00:00Z"}, "a day ahead"),
        ({"start": "2026-02-28T05:00:00+01:00"}, "24 hours"),
        ({"source": "\u200b\u200b"}, "source"),
        ({"source": "   "}, "source"),
        ({"source": "x" * 201}, "source"),
        ({"sample_id": ""}, "sample_id"),
        ({"sample_id": "id with spaces"}, "sample_id"),
        ({"sample_id": "a" * 129}, "sample_id"),
        ({"type": "blood_pressure"}, "type"),
        ({"extra": 1}, "extra"),
        ({"workout": {"activity": "running"}}, "workout"),
        ({"stages": []}, "stages belong to a sleep_session"),
    ],
)
def test_a_sample_out_of_the_contract_refuses_the_batch(changes: dict[str, Any], says: str) -> None:
    message = refusal(batch(sample(sample_id="fine"), sample(**changes)))
    assert "samples.1" in message and says in message


def test_invisible_characters_are_dropped_from_a_samples_texts() -> None:
    """As in every request body: Postgres text cannot hold NUL, and a bidirectional or zero-width
    character would reach the coach's prompt."""
    accepted = HealthSampleBatch.model_validate_json(
        __import__("json").dumps(batch(sample(source="Pixel\x00Watch\u202e")))
    )
    assert accepted.samples[0].source == "PixelWatch"


def test_hrv_is_taken_from_the_platform_that_measures_it() -> None:
    """HealthKit records SDNN, Health Connect RMSSD; neither is relabelled as the other."""
    assert "healthkit does not record hrv_rmssd" in refusal(batch(sample(), platform="healthkit"))
    sdnn = sample(type="hrv_sdnn")
    assert "health_connect does not record hrv_sdnn" in refusal(batch(sdnn))
    assert HealthSampleBatch.model_validate(batch(sdnn, platform="healthkit"))


def test_a_sleep_session_keeps_its_stages_within_it_and_its_minutes_within_its_length() -> None:
    night = {
        "type": "sleep_session",
        "start": "2026-03-01T23:00:00+00:00",
        "end": "2026-03-02T06:00:00+00:00",
        "unit": "min",
    }
    assert "do not fit" in refusal(batch(sample(**night, value=430)))
    outside = [{"stage": "rem", "start": "2026-03-01T22:00:00+00:00", "end": "2026-03-01T23:30:00+00:00"}]
    assert "within its session" in refusal(batch(sample(**night, value=400, stages=outside)))
    assert "stage" in refusal(batch(sample(**night, value=400, stages=[{**outside[0], "stage": "dreaming"}])))


def test_a_workout_needs_its_details() -> None:
    workout = sample(
        type="workout",
        start="2026-03-01T17:00:00+00:00",
        end="2026-03-01T18:00:00+00:00",
        value=60,
        unit="min",
    )
    assert "needs `workout`" in refusal(batch(workout))
    assert "activity" in refusal(batch({**workout, "workout": {"activity": "quidditch"}}))
    assert "average_heart_rate" in refusal(
        batch({**workout, "workout": {"activity": "running", "average_heart_rate": 400}})
    )


def test_a_batch_holds_one_to_a_thousand_samples() -> None:
    many = [sample(sample_id=f"s{i}") for i in range(MAX_BATCH)]
    assert len(HealthSampleBatch.model_validate(batch(*many)).samples) == MAX_BATCH
    assert "at most 1000" in refusal(batch(*many, sample(sample_id="one-more")))
    assert "at least 1" in refusal(batch())
    assert "platform" in refusal({"platform": "fitbit", "samples": [sample()]})


def test_a_consent_update_names_at_least_one_type_with_a_boolean() -> None:
    assert HealthConsentUpdate.model_validate({"sleep": True, "steps": False}).grants() == {
        "sleep": True,
        "steps": False,
    }
    for body in ({}, {"sleep": None}, {"sleep": 1}, {"blood_pressure": True}):
        with pytest.raises(ValidationError):
            HealthConsentUpdate.model_validate(body)


def test_the_bounds_follow_the_clock() -> None:
    """400 days back from the server's now, not from a fixed date."""
    old = (NOW - timedelta(days=399)).isoformat()
    assert HealthSampleBatch.model_validate(batch(sample(start=old, end=old)))
    with time_machine.travel(NOW + timedelta(days=2), tick=False):
        assert "400 days" in refusal(batch(sample(start=old, end=old)))
