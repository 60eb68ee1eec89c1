"""Progress computed in code (trainer.domain.progress) and the offline parsers that feed it: streaks,
adherence, milestone progress with a time limit or reps, effort ratings and milestone targets."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from trainer.domain.progress import milestone_progress, plan_adherence, training_streaks
from trainer.domain.statistics import progress_trends
from trainer.offline.conversation import PastCall
from trainer.offline.goal_parsing import parse_milestone, time_limit_minutes
from trainer.offline.replies import answer_question, failure_message
from trainer.offline.set_parsing import parse_logged_exercise, split_effort
from trainer.tools.base import ToolFailure
from trainer.tools.effort import effort_fields
from trainer.tools.logging import LogCompletedExerciseArgs

TZ = ZoneInfo("America/Los_Angeles")
TODAY = date(2026, 11, 25)  # a Wednesday


def done(day: date, hour: int = 18, **fields: Any) -> dict[str, Any]:
    return {
        "performed_at": datetime(day.year, day.month, day.day, hour, tzinfo=TZ),
        "exercise_name": "Squat",
        **fields,
    }


def days_ago(n: int, **fields: Any) -> dict[str, Any]:
    return done(TODAY - timedelta(days=n), **fields)


def test_streaks_count_local_days_and_weeks() -> None:
    rows = [days_ago(n) for n in (0, 1, 2, 5, 6, 7, 8, 30)]
    # 23:30 in Los Angeles is the next day in UTC: still the user's day
    rows.append(
        done(TODAY - timedelta(days=3), hour=23) | {"performed_at": datetime(2026, 11, 23, 7, 30, tzinfo=UTC)}
    )
    streaks = training_streaks(rows, TODAY, TZ)
    assert streaks["current_days"] == 4  # 22 (late evening), 23, 24, 25
    assert streaks["longest_days"] == 4
    assert streaks["current_weeks"] == 2  # the weeks of 16 and 23 Nov (9 Nov had none)
    assert streaks["training_days"] == 9


def test_a_streak_survives_until_today_is_over() -> None:
    rows = [days_ago(n) for n in (1, 2, 3)]
    assert training_streaks(rows, TODAY, TZ)["current_days"] == 3
    assert training_streaks([days_ago(2)], TODAY, TZ)["current_days"] == 0
    assert training_streaks([], TODAY, TZ) == {
        "current_days": 0, "longest_days": 0, "current_weeks": 0, "longest_weeks": 0, "training_days": 0,
        "weekly": True, "days_this_week": 0, "planned_days": 0,
    }  # fmt: skip


def scheduled(n: int, status: str = "scheduled") -> dict[str, Any]:
    day = TODAY - timedelta(days=n)
    return {"scheduled_date": datetime(day.year, day.month, day.day, 7, tzinfo=TZ), "status": status}


def test_adherence_counts_past_sessions_done_in_their_week() -> None:
    plan = [
        scheduled(9),
        scheduled(7),
        scheduled(5, "completed"),
        scheduled(3),
        scheduled(2, "cancelled"),
        scheduled(0),
    ]
    logged = [days_ago(9), days_ago(4)]
    result = plan_adherence(plan, logged, TODAY, TZ)
    # the week of 16 Nov: Monday done on its day, Friday marked completed, Sunday's session moved to
    # Saturday (trained the day before); Wednesday missed
    assert (result["planned"], result["done"], result["percent"]) == (4, 3, 75)
    assert result["missed_days"] == [TODAY - timedelta(days=7)]
    assert plan_adherence([], logged, TODAY, TZ)["percent"] is None


def run(km: float, minutes: float, unit: str = "km") -> dict[str, Any]:
    return days_ago(3, exercise_name="Running", distance=km, distance_unit=unit, duration_min=minutes)


def test_a_distance_milestone_keeps_its_time_limit() -> None:
    goal = {"goal_name": "Run 5 km", "target_value": 5, "target_unit": "km", "time_limit_min": 30}
    slow = milestone_progress(goal, [run(5, 33), run(3, 15)], weight_unit="kg")
    assert (slow["kind"], slow["best"], slow["best_time_min"], slow["met"]) == ("distance", 5, 33, False)
    assert slow["percent"] == 91  # 30 of 33 minutes
    fast = milestone_progress(goal, [run(5, 33), run(3.2, 29, "mi")], weight_unit="kg")
    assert fast["met"] is True and fast["best_time_min"] == 29
    short = milestone_progress(goal, [run(3, 15)], weight_unit="kg")
    assert (short["met"], short["percent"], short["best_time_min"]) == (False, 60, None)


def lift(name: str, reps: list[int], load: float, unit: str = "kg") -> dict[str, Any]:
    return days_ago(2, exercise_name=name, reps=reps, load_each=[load] * len(reps), load_unit=unit)


def test_a_load_milestone_counts_only_sets_of_its_reps_on_its_exercise() -> None:
    goal = {"goal_name": "Bench 100 kg", "target_value": 100, "target_unit": "kg", "target_reps": 5}
    rows = [
        lift("Barbell Bench Press - Medium Grip", [3, 3], 100),
        lift("Barbell Bench Press - Medium Grip", [5, 5], 90),
        lift("Barbell Squat", [5], 140),
    ]
    result = milestone_progress(goal, rows, weight_unit="kg")
    assert (result["kind"], result["best"], result["met"], result["percent"]) == ("load", 90, False, 90)
    single = milestone_progress(goal | {"target_reps": None}, rows, weight_unit="kg")
    assert single["best"] == 100 and single["met"] is True
    pounds = milestone_progress(goal | {"target_unit": "lbs", "target_value": 200}, rows, weight_unit="kg")
    assert pounds["best"] == pytest.approx(198.4, abs=0.1)


def test_a_reps_milestone_and_one_without_a_number() -> None:
    goal = {"goal_name": "15 pull-ups", "target_value": 15, "target_unit": "reps"}
    rows = [days_ago(1, exercise_name="Pull-ups", reps=[12, 10, 8])]
    assert milestone_progress(goal, rows, weight_unit="kg")["percent"] == 80
    assert milestone_progress({"goal_name": "Feel fit"}, rows, weight_unit="kg")["met"] is None


def test_the_e1rm_trend_is_the_best_estimate_of_each_week_and_names_its_set() -> None:
    rows = [lift("Squat", [5, 5], 100) | {"performed_at": datetime(2026, 11, 10, 18, tzinfo=UTC)},
            lift("Squat", [3], 110) | {"performed_at": datetime(2026, 11, 18, 18, tzinfo=UTC)}]  # fmt: skip
    trend = progress_trends(rows, "e1rm", "Squat", "quarter", now=datetime(2026, 11, 25, tzinfo=UTC))
    # the RTS chart at RPE 10: 5 reps = 86.3%, 3 reps = 92.2%
    assert [p["value"] for p in trend["series"]] == [115.87, 119.31]
    assert [(p["set"]["load"], p["set"]["reps"]) for p in trend["series"]] == [(100, 5), (110, 3)]
    assert trend["direction"] == "up"


@pytest.mark.parametrize(
    ("text", "effort", "rest"),
    [
        ("3x8 goblet squats at 30 kg, RPE 8", {"rpe": 8.0}, "3x8 goblet squats at 30 kg "),
        ("deadlift 3x5 at 140 kg @ RPE 9.5", {"rpe": 9.5}, "deadlift 3x5 at 140 kg "),
        ("rows 3x10 at 40kg @8", {"rpe": 8.0}, "rows 3x10 at 40kg "),
        ("squat 3x5 at 100kg, RPE 7, 8, 9", {"rpe_each": [7.0, 8.0, 9.0]}, "squat 3x5 at 100kg "),
        ("bench 3x8 at 60kg with 2 reps in reserve", {"rir": 2.0}, "bench 3x8 at 60kg "),
        ("squat 3x5 at 100kg rir 2/1/0", {"rir_each": [2.0, 1.0, 0.0]}, "squat 3x5 at 100kg "),
        ("bench 3x8 at 60kg", {}, "bench 3x8 at 60kg"),
    ],
)
def test_an_effort_rating_is_split_from_a_logging_message(
    text: str, effort: dict[str, Any], rest: str
) -> None:
    assert split_effort(text) == (effort, rest)


def test_an_effort_never_becomes_part_of_the_exercise_name() -> None:
    logged = parse_logged_exercise("Log 3x8 goblet squats at 30 kg, RPE 8")
    assert logged is not None and logged.exercise_name == "Goblet Squats" and logged.rpe == 8
    assert effort_fields(**{k: v for k, v in logged.model_dump().items() if k in ("rpe", "rir")}) == {
        "rpe": 8, "rpe_each": None,
    }  # fmt: skip


def test_reps_in_reserve_are_stored_as_rpe() -> None:
    assert effort_fields(rir=2) == {"rpe": 8, "rpe_each": None}
    assert effort_fields(rir_each=[2, 1, 0]) == {"rpe": 10, "rpe_each": [8, 9, 10]}
    with pytest.raises(ValueError, match="not both"):
        effort_fields(rpe=8, rir=2)
    with pytest.raises(ValueError, match="hardest set"):
        effort_fields(rpe=7, rpe_each=[7, 8])
    with pytest.raises(ValueError):
        LogCompletedExerciseArgs.model_validate(
            {"exercise_name": "Squat", "exercise_type": "reps", "reps": [5], "rpe": 8, "rir": 2}
        )


def test_milestone_targets_keep_every_number() -> None:
    run5k = parse_milestone("I want to run 5 km under 30 minutes by March", TODAY)
    assert (run5k.target_value, run5k.target_unit, run5k.time_limit_min) == (5, "km", 30)
    assert run5k.target_date == date(2027, 3, 31)
    assert parse_milestone("sub 2 hour half marathon by October", TODAY).time_limit_min == 120
    bench = parse_milestone("Bench 100 kg for 5 reps by June", TODAY)
    assert (bench.target_value, bench.target_unit, bench.target_reps) == (100, "kg", 5)
    assert time_limit_minutes("a 10k in 52:30") == 52.5
    assert time_limit_minutes("a 10k in under an hour") == 60
    assert time_limit_minutes("run a 10k") is None


def test_the_offline_coach_says_plainly_when_a_question_needs_the_live_model() -> None:
    reply = answer_question("Why has my bench stalled since I changed jobs?")
    assert reply.startswith("I can't answer that one here") and "needs the live coach model" in reply


def test_an_undo_refused_for_older_history_is_said_in_words() -> None:
    error = "logged exercise 1 was logged before this conversation: undo only removes what it logged"
    failed = ToolFailure(error=error)
    call = PastCall(call_id="c1", name="undo_logged_exercise", arguments={}, result=failed, failed=True)
    reply = failure_message(call)
    assert "nothing was deleted" in reply and "logged before this conversation" in reply
