"""The coach on the phone's health data, on Postgres (docs/health-data.md#the-coach): health_summary and the
health_data source say why today is lighter, how the user slept, the HRV and resting heart rate trends and
other apps' workouts, with numbers computed in code from the stored samples; check_readiness answers from
the data when there is no check-in; generate_workout lowers the leg volume after another app's long run and
says so; other apps' cardio minutes count toward the cardio goal the composer balances. The clock stands
at 09:00 in Berlin on 2 March 2026."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from trainer.services.user_data import UserDataService
from trainer.sources.registry import fetch_sources
from trainer.sources.training_facts import load_training_facts
from trainer.store.db import Database
from trainer.tools.base import ToolContext
from trainer.tools.generate_workout import GenerateWorkout
from trainer.tools.health import HealthSummary
from trainer.tools.readiness import CheckReadiness
from trainer_dev.testing.health_series import PhoneHealthData
from trainer_dev.testing.memory_store import InMemorySessionStore

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def morning() -> Iterator[datetime]:
    with time_machine.travel(NOW, tick=False):
        yield NOW


@pytest.fixture
def berliner(make_user: Callable[..., str]) -> str:
    return make_user(timezone="Europe/Berlin")


def context(db: Database, user_id: str) -> ToolContext:
    store = InMemorySessionStore()
    return ToolContext(
        user_id=user_id, session_id=store.new_session(user_id).id, store=store, db=db, now=lambda: NOW
    )


async def call(tool: Any, ctx: ToolContext, **args: Any) -> Any:
    return await tool.execute(tool.Args.model_validate(args), ctx)


async def test_why_is_today_lighter_names_the_signal_its_numbers_and_the_source(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=60, hrv_drop_days=3, steps=False).store(db, berliner, NOW, BERLIN)
    result = await call(HealthSummary(), context(db, berliner), topic="today")

    assert result.text.startswith(
        "Today is a lighter day: about a third fewer sets and roughly 10% less weight"
    )
    assert "HRV (RMSSD) averaging" in result.text and "below it 3 days running" in result.text
    assert "(from your phone's health data)" in result.text
    assert "resting heart rate" in result.text and "of sleep last night" in result.text


async def test_how_did_i_sleep_this_week_counts_the_nights_and_their_stages(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=30, steps=False).store(db, berliner, NOW, BERLIN)
    result = await call(HealthSummary(), context(db, berliner), topic="sleep", days=7)

    assert result.text.startswith("7 nights recorded in the last 7 days: ")
    assert "asleep on average, against your usual" in result.text
    assert "% deep" in result.text and "% REM" in result.text


async def test_the_trend_reads_hrv_and_resting_heart_rate_against_the_baseline(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=60, platform="healthkit", steps=False).store(db, berliner, NOW, BERLIN)
    lines = (await call(HealthSummary(), context(db, berliner), topic="trends", days=28)).text.splitlines()

    assert lines[0].startswith("HRV (SDNN): ") and "within your normal range of" in lines[0]
    assert lines[0].count(",") >= 4, "four weeks, week by week"
    assert lines[1].startswith("Resting heart rate: 5") and "bpm" in lines[1]


async def test_without_data_the_coach_says_so(morning: datetime, db: Database, berliner: str) -> None:
    ctx = context(db, berliner)
    assert "not enough health data" in (await call(HealthSummary(), ctx, topic="today")).text
    assert (await call(HealthSummary(), ctx, topic="sleep")).text == "No sleep recorded in the last 7 days."
    assert "No HRV" in (await call(HealthSummary(), ctx, topic="trends")).text
    assert "No workouts from other apps" in (await call(HealthSummary(), ctx, topic="workouts")).text


async def test_the_health_data_source_holds_the_same_words(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=60, hrv_drop_days=3, steps=False).store(db, berliner, NOW, BERLIN)
    (result,) = await fetch_sources(db, berliner, [("health_data", {"days_back": 7})], now=NOW)
    assert result.error is None
    assert result.formatted.startswith("<health_data>\nToday: Today is a lighter day")
    assert (
        "Trend: HRV (RMSSD)" in result.formatted
        and "Other apps: 2 workouts from other apps" in result.formatted
    )


async def test_should_i_train_is_answered_from_the_data_without_a_check_in(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=60, hrv_drop_days=3, steps=False).store(db, berliner, NOW, BERLIN)
    result = await call(CheckReadiness(), context(db, berliner))
    assert result.from_health_data and result.level == "reduce" and not result.recorded
    assert "From your phone's health data: Train, but lighter" in result.say(_reply(), {})


async def test_a_generated_leg_workout_has_fewer_leg_sets_after_yesterdays_long_run(
    morning: datetime, db: Database, berliner: str
) -> None:
    await PhoneHealthData(days=2, long_run_yesterday=True, steps=False).store(db, berliner, NOW, BERLIN)
    workout = {
        "title": "Legs",
        "exercises": [
            {
                "exercise_name": "Bodyweight Squat",
                "exercise_type": "reps",
                "order": 1,
                "sets": 3,
                "reps": [15, 15, 15],
                "rest_sec": 60,
                "muscles_utilized": [
                    {"muscle": "Quadriceps", "share": 0.7},
                    {"muscle": "Glutes", "share": 0.3},
                ],
                "goals_addressed": [{"goal": "Strength", "share": 1.0}],
                "reasoning": "Legs.",
                "equipment": [],
            }
        ],
    }
    result = await call(GenerateWorkout(), context(db, berliner), workout=workout)
    assert result.exercises[0].detail.startswith("2x[15,15]")
    assert result.adjusted_from == "other_workouts"
    assert "Based on your workouts in other apps I cut a third of the sets of Bodyweight Squat" in result.say(
        _reply(), {}
    )


async def test_other_apps_cardio_minutes_count_toward_the_cardio_goal(
    morning: datetime, db: Database, berliner: str
) -> None:
    await (
        UserDataService(db)
        .for_user(berliner)
        .goals.set_categories(
            [{"category": "Strength", "percentage": 50}, {"category": "Cardio", "percentage": 50}]
        )
    )
    before = {r.name: r for r in (await load_training_facts(db, berliner, NOW)).category_debt}
    await PhoneHealthData(days=30, steps=False).store(db, berliner, NOW, BERLIN)
    after = {r.name: r for r in (await load_training_facts(db, berliner, NOW)).category_debt}

    assert before["Cardio"].debt == pytest.approx(0.5)
    assert after["Cardio"].actual == pytest.approx(1.0) and after["Cardio"].debt == pytest.approx(-0.5)


def _reply() -> Any:
    from trainer.tools.wording import ReplyContext

    return ReplyContext(text="")
