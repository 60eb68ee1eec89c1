"""Tool formatters (docs/architecture.md#tools): confirmations stay one word, summaries one line naming what
changed, full-data results compact with rounded numbers. Also the argument contract the offline model
and the system prompt rely on."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.domain import statistics
from trainer.services.rows import plain
from trainer.tools import analytics, calendar, data, goals, injuries, location, logging, preferences, timers
from trainer.tools.analytics import (
    BreakdownItem,
    ExerciseBreakdownResult,
    ProgressTrends,
    ProgressTrendsResult,
    StatsSummaryResult,
    TrendPoint,
    WorkoutStatisticsResult,
    WorkoutStats,
)
from trainer.tools.base import AnyTool, ToolFailure, ToolResult
from trainer.tools.calendar import (
    DeleteScheduledWorkoutResult,
    ManageMilestoneResult,
    Milestone,
    ScheduledWorkout,
    ScheduledWorkoutRow,
    ScheduleWorkoutResult,
    milestone_type,
)
from trainer.tools.catalog_match import catalog_entry
from trainer.tools.data import FetchDataResult, number_text
from trainer.tools.goals import GoalEntry, SetGoalsResult
from trainer.tools.location import CurrentLocation, SetCurrentLocationResult
from trainer.tools.log_corrections import UndoLoggedExerciseResult
from trainer.tools.logged_entries import LoggedExercise, logged_line
from trainer.tools.logging import LogCompletedExerciseResult, LogWorkoutResult, MarkExerciseCompleteResult
from trainer.tools.preferences import DeletePreferenceResult, Preference, SetPreferenceResult
from trainer.tools.timers import duration_text

AT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

ALL_TOOLS: list[AnyTool] = [
    *data.TOOLS,
    *goals.TOOLS,
    *preferences.TOOLS,
    *injuries.TOOLS,
    *logging.TOOLS,
    *timers.TOOLS,
    *calendar.TOOLS,
    *analytics.TOOLS,
    *location.TOOLS,
]
BY_NAME = {t.name: t for t in ALL_TOOLS}

AGREED_ARGS: dict[str, set[str]] = {
    "fetch_data": {"sources", "params"},
    "set_goals": {"goal_type", "category_goals", "muscle_goals"},
    "set_preference": {"type", "description", "guidance", "expires_at", "delete_after_use"},
    "delete_preference": {"preference_id"},
    "record_injury": {"injury", "until"},
    "log_workout": {"completed_exercises", "workout_notes"},
    "log_completed_exercise": {
        "exercise_name",
        "exercise_type",
        "sets",
        "reps",
        "load",
        "load_each",
        "load_unit",
        "hold_sec",
        "duration_min",
        "distance",
        "distance_unit",
        "rpe",
        "rpe_each",
        "muscles_utilized",
        "goals_addressed",
        "performed_at",
        "notes",
    },
    "undo_logged_exercise": {"exercise_id"},
    "adjust_logged_exercise": {
        "exercise_id",
        "exercise_name",
        "exercise_type",
        "sets",
        "reps",
        "load",
        "load_each",
        "load_unit",
        "hold_sec",
        "duration_min",
        "distance",
        "distance_unit",
        "rounds",
        "work_sec",
        "rest_sec",
        "rpe",
        "performed_at",
        "notes",
        "muscles_utilized",
        "goals_addressed",
    },
    "mark_exercise_complete": {
        "exercise_id",
        "actual_sets",
        "actual_reps",
        "actual_load",
        "actual_load_each",
        "actual_duration_min",
        "rpe",
        "rpe_each",
        "notes",
    },
    "generate_exercise_timer": {"exercise_id", "exercise"},
    "generate_workout_timers": {"exercise_ids"},
    "schedule_workout": {"scheduled_date", "workout_type", "duration_minutes", "notes", "exercises"},
    "update_scheduled_workout": {
        "workout_id",
        "scheduled_date",
        "workout_type",
        "duration_minutes",
        "notes",
        "exercises",
        "status",
    },
    "delete_scheduled_workout": {"workout_id"},
    "swap_scheduled_workouts": {"first_id", "second_id"},
    "missed_sessions": {"days_back"},
    "create_workout_plan": {
        "plan_name",
        "start_date",
        "duration_weeks",
        "goal_description",
        "workouts_per_week",
        "preferred_days",
        "workout_types",
    },
    "manage_milestone": {
        "action",
        "milestone_id",
        "goal_name",
        "goal_type",
        "target_value",
        "target_unit",
        "target_date",
        "current_value",
        "time_limit_min",
        "target_reps",
    },
    "get_workout_statistics": {"time_period", "start_date", "end_date", "days_back"},
    "get_milestone_progress": {"milestone_id"},
    "get_exercise_breakdown": {"breakdown_type", "time_period"},
    "get_progress_trends": {"metric", "exercise_name", "time_period"},
    "generate_stats_summary": {"time_period", "include_sections"},
    "set_current_location": {"location_id", "location_name"},
    "create_location": {
        "name", "description", "equipment", "make_current", "unit", "bar_weight", "plates", "dumbbells",
        "dumbbells_up_to",
    },
    "update_location": {
        "location_name", "new_name", "add_equipment", "remove_equipment", "unit", "bar_weight", "plates",
        "dumbbells", "dumbbells_up_to",
    },
}  # fmt: skip
COMPLETED_EXERCISE_FIELDS = {
    "exercise_id",
    "exercise_name",
    "sets",
    "reps",
    "load",
    "load_each",
    "load_unit",
    "duration_min",
    "distance",
    "distance_unit",
    "rpe",
    "rpe_each",
    "notes",
}


def test_every_agreed_tool_exists_with_exactly_the_agreed_arguments() -> None:
    assert set(BY_NAME) == set(AGREED_ARGS)
    assert len(BY_NAME) == len(ALL_TOOLS)
    for name, fields in AGREED_ARGS.items():
        schema = BY_NAME[name].input_schema()
        assert set(schema["properties"]) == fields, name
        json.dumps(schema)
    completed = BY_NAME["log_workout"].input_schema()["$defs"]["CompletedExerciseIn"]["properties"]
    assert set(completed) == COMPLETED_EXERCISE_FIELDS


def status_of(name: str) -> dict[str, str]:
    status = BY_NAME[name].status
    assert status is not None
    return status.model_dump()


def test_every_tool_has_a_status_message_and_a_description() -> None:
    for tool in ALL_TOOLS:
        assert tool.status is not None and tool.status.start.endswith("...") and tool.status.done, tool.name
        assert len(tool.description) > 30, tool.name
    assert status_of("fetch_data") == {
        "start": "Gathering your info...",
        "done": "Context ready",
    }
    assert status_of("log_workout") == {
        "start": "Saving your workout...",
        "done": "Workout logged",
    }
    assert status_of("set_current_location") == {
        "start": "Switching location...",
        "done": "Location updated",
    }
    assert status_of("set_goals") == {
        "start": "Updating your goals...",
        "done": "Goals updated",
    }


def test_categories_follow_the_seed() -> None:
    confirmation = {t.name for t in ALL_TOOLS if t.category == "confirmation"}
    assert confirmation == {"delete_preference", "undo_logged_exercise", "delete_scheduled_workout"}
    full = {t.name for t in ALL_TOOLS if t.category == "full"}
    assert {"fetch_data", "generate_workout_timers", "get_workout_statistics", "create_workout_plan"} <= full


def logged(**fields: Any) -> LoggedExercise:
    """A history row as the logging tools return it."""
    return LoggedExercise.model_validate(
        {"performed_at": AT, "created_at": AT, "exercise_type": "reps", **fields}
    )


def preference(**fields: Any) -> Preference:
    return Preference.model_validate(
        {"id": "p1", "type": "time", "guidance": "g", "delete_after_use": False, "created_at": AT, **fields}
    )


def scheduled_row(**fields: Any) -> dict[str, Any]:
    return {"id": "w1", "scheduled_date": AT, "status": "scheduled", "created_at": AT, **fields}


def milestone(**fields: Any) -> Milestone:
    return Milestone.model_validate(
        {"id": "m1", "goal_type": "other", "status": "active", "created_at": AT, **fields}
    )


def stats(**fields: Any) -> WorkoutStats:
    empty = {
        "start": None,
        "end": None,
        "unit": "kg",
        "total_workouts": 0,
        "total_exercises": 0,
        "total_sets": 0,
        "total_volume": 0.0,
        "total_duration_min": 0.0,
        "average_rpe": None,
        "workouts_per_week": 0.0,
        "total_distance": 0.0,
        "distance_unit": "km",
    }
    return WorkoutStats.model_validate({**empty, **fields})


def test_confirmation_formatters() -> None:
    removed = preference(description="x")
    assert preferences.DeletePreference().format(DeletePreferenceResult(preference=removed)) == "deleted"
    workout = ScheduledWorkoutRow.model_validate(scheduled_row(workout_type="Legs"))
    assert (
        calendar.DeleteScheduledWorkout().format(DeleteScheduledWorkoutResult(workout=workout)) == "deleted"
    )
    squat = logged(
        id="h1", exercise_name="Squat", sets=3, reps=[5, 5, 5], load_each=[100] * 3, load_unit="kg"
    )
    assert (
        logging.UndoLoggedExercise().format(UndoLoggedExerciseResult(removed=squat))
        == "removed: Squat 3x5 @100kg (id=h1)"
    )


def test_logged_line_category_two() -> None:
    row = logged(
        id="h1",
        exercise_name="Bench Press",
        sets=3,
        reps=[10, 10, 10],
        load_each=[60.0] * 3,
        load_unit="kg",
        rpe=8.0,
    )
    assert logged_line(row) == "Bench Press 3x10 @60kg RPE 8 (id=h1)"
    pyramid = row.model_copy(update={"reps": [12, 10, 8], "load_each": [50, 55, 62.5], "rpe": None})
    assert logged_line(pyramid) == "Bench Press 3 sets: 50, 55, 62.5 kg x 12, 10, 8 reps (id=h1)"
    top_set = row.model_copy(update={"load_each": [60, 60, 65], "rpe": None})
    assert logged_line(top_set) == "Bench Press 3 sets: 60, 60, 65 kg x 10 reps (id=h1)"
    assert top_set.load == 65
    run = logged(
        id="h2",
        exercise_name="Run",
        exercise_type="duration",
        duration_min=30.0,
        distance=5.126,
        distance_unit="km",
    )
    assert logged_line(run) == "Run 30 min 5.13km (id=h2)"
    hold = logged(id="h3", exercise_name="Plank", exercise_type="hold", sets=2, hold_sec=[45, 60])
    assert logged_line(hold) == "Plank 2x[45,60]s (id=h3)"
    assert (
        logging.LogCompletedExercise().format(LogCompletedExerciseResult(logged=row))
        == "logged: Bench Press 3x10 @60kg RPE 8 (id=h1)"
    )
    marked = logging.MarkExerciseComplete().format(MarkExerciseCompleteResult(logged=row, remaining=2))
    assert marked == "logged: Bench Press 3x10 @60kg RPE 8 (id=h1); 2 exercises left"


def test_summary_formatters() -> None:
    one_shot = SetPreferenceResult(
        preference=preference(description="Only 20 min", delete_after_use=True, expires_at=None)
    )
    assert (
        preferences.SetPreference().format(one_shot) == "saved: time - Only 20 min (next workout only) id=p1"
    )
    expiring = SetPreferenceResult(
        preference=preference(description="Only 20 min", expires_at="2026-04-01T00:00:00+00:00")
    )
    assert (
        preferences.SetPreference().format(expiring) == "saved: time - Only 20 min (until 2026-04-01) id=p1"
    )
    goal_result = SetGoalsResult(
        goal_type="muscle",
        count=2,
        goals=[GoalEntry(name="Chest", percentage=66.66667), GoalEntry(name="Back", percentage=33.33333)],
    )
    assert goals.SetGoals().format(goal_result) == "2 muscles updated: Chest 66.7%, Back 33.3%"
    scheduled = ScheduleWorkoutResult(
        workout=ScheduledWorkout.model_validate(
            scheduled_row(workout_type="Legs", date="2026-03-05", duration_minutes=None)
        )
    )
    assert calendar.ScheduleWorkout().format(scheduled) == "scheduled: Legs on Thu 2026-03-05 (id=w1)"
    created = ManageMilestoneResult(
        action="create",
        milestone=milestone(
            goal_name="Run a 5K", target_value=None, current_value=None, target_unit=None, target_date=None
        ),
    )
    assert calendar.ManageMilestone().format(created) == "milestone created: Run a 5K (id=m1)"
    loc = SetCurrentLocationResult(
        location=CurrentLocation(id="l1", name="Home", equipment_count=0, equipment_summary="bodyweight only")
    )
    assert (
        location.SetCurrentLocation().format(loc)
        == "current location: Home (id=l1); 0 equipment: bodyweight only"
    )


def test_full_data_formatters_stay_compact() -> None:
    fetched = FetchDataResult(data={"user_profile": "<x/>", "workout_history": "<y/>"}, errors={})
    assert data.FetchData().format(fetched) == "Fetched: user_profile, workout_history (see knowledge below)"
    breakdown = ExerciseBreakdownResult(
        breakdown_type="exercise_name",
        time_period="month",
        exercise_count=40,
        breakdown=[BreakdownItem(name=f"Ex {i}", amount=1, percentage=100 / 15, sets=3) for i in range(15)],
    )
    lines = analytics.GetExerciseBreakdown().format(breakdown).splitlines()
    assert len(lines) == 14 and lines[1] == "  Ex 0: 6.7% (3 sets)" and lines[-1] == "  ... 3 more"
    empty = WorkoutStatisticsResult(time_period="month", stats=stats())
    assert analytics.GetWorkoutStatistics().format(empty) == "no exercises logged in this period (start..now)"
    trends = ProgressTrendsResult(
        trends=ProgressTrends(
            metric="frequency",
            exercise_name=None,
            period="year",
            unit="kg",
            series=[TrendPoint(week_start=date.fromisocalendar(2026, w, 1), value=1.0) for w in range(1, 21)],
            percent_change=0.0,
            slope_per_week=0.0,
            direction="flat",
        )
    )
    text = analytics.GetProgressTrends().format(trends)
    assert text.startswith("frequency, year (workouts): flat, 0%, slope 0/week")
    assert "week of 16 Feb" not in text and text.count("week of") == 12 and "-W" not in text
    assert "week of 23 Feb: 1; week of 2 Mar: 1" in text
    weekly = WorkoutStatisticsResult(
        time_period="month",
        stats=stats(total_exercises=1, total_workouts=1),
        weekly_hard_sets={date(2025, 12, 29): {"Chest": 3.0}, date(2026, 1, 5): {"Back": 2.0}},
    )
    text = analytics.GetWorkoutStatistics().format(weekly)
    assert "  week of 29 Dec 2025: Chest 3\n  week of 5 Jan 2026: Back 2" in text and "-W" not in text
    summary = StatsSummaryResult(time_period="week", summary="No workouts logged in this period.")
    assert analytics.GenerateStatsSummary().format(summary) == "week:\nNo workouts logged in this period."


def test_results_serialise_with_todays_keys_and_read_back() -> None:
    """A result goes out as JSON (the tool_result event, the SSE frame) without nulls, under the keys
    clients and stored events know, and a stored one reads back as the tool's own models."""
    bench = logged(
        id="h1",
        exercise_name="Bench Press",
        sets=3,
        reps=[10, 10, 10],
        load_each=[60, 60, 62.5],
        load_unit="kg",
        muscles=[{"muscle": "Chest", "share": 1.0}],
        goals=[{"goal": "Strength", "share": 1.0}],
        workout_id="workout_1",
    )
    result = LogWorkoutResult(
        logged_count=1, total_in_workout=2, logged=[bench], already_logged=["Plank"], workout_id="workout_1"
    )
    stored = result.model_dump(mode="json", exclude_none=True)
    assert set(stored) == {
        "success", "logged_count", "total_in_workout", "logged", "already_logged", "workout_id",
    }  # fmt: skip
    assert stored["success"] is True
    assert stored["logged"][0] == {
        "id": "h1",
        "performed_at": "2026-03-02T18:00:00Z",
        "created_at": "2026-03-02T18:00:00Z",
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "load_each": [60.0, 60.0, 62.5],
        "load_unit": "kg",
        "load": 62.5,
        "muscles": [{"muscle": "Chest", "share": 1.0}],
        "goals": [{"goal": "Strength", "share": 1.0}],
        "workout_id": "workout_1",
    }
    tool = logging.LogWorkout()
    read = tool.parse_result(json.loads(json.dumps(stored)))
    assert read == result and isinstance(read, LogWorkoutResult)
    assert read.logged[0].performed_at == AT and read.logged[0].load_each == [60, 60, 62.5]
    assert isinstance(tool.parse_result({"success": False, "error": "boom"}), ToolFailure)

    plan_tool = calendar.CreateWorkoutPlan()
    plan = plan_tool.Result.model_validate(
        {
            "plan": {
                "id": "p1",
                "plan_name": "Block",
                "start_date": "2026-03-02",
                "end_date": "2026-03-08",
                "duration_weeks": 1,
                "workouts_per_week": 1,
                "preferred_days": ["Monday"],
                "status": "active",
                "created_at": AT.isoformat(),
                "weeks": [
                    {
                        "week_number": 1,
                        "workouts": [{"id": "s1", "date": "2026-03-02", "workout_type": "Run"}],
                    }
                ],
            },
            "scheduled_count": 1,
        }
    )
    assert plan.plan.weeks[0].workouts[0].date == date(2026, 3, 2)
    assert plan_tool.format(plan).splitlines()[1] == "  Week 1: 1 workouts (Mon 03-02 Run)"
    assert plan.model_dump(mode="json", exclude_none=True)["plan"]["weeks"][0]["workouts"][0] == {
        "id": "s1",
        "date": "2026-03-02",
        "workout_type": "Run",
    }


def test_every_tool_names_its_result_model() -> None:
    for tool in ALL_TOOLS:
        assert issubclass(tool.Result, ToolResult), tool.name
    assert analytics.ALL_SECTIONS == statistics.SUMMARY_SECTIONS


def test_helpers() -> None:
    assert [number_text(v) for v in (60, 62.5, 0.04, 1234567.0, None)] == ["60", "62.5", "0", "1234567", "-"]
    assert number_text(5.126, 2) == "5.13"
    assert [duration_text(s) for s in (45, 60, 125)] == ["45s", "1m", "2m 05s"]
    ident = uuid.uuid4()
    row = {
        "id": ident,
        "w": Decimal("2.50"),
        "n": Decimal("3"),
        "at": datetime(2026, 1, 2, tzinfo=UTC),
        "d": date(2026, 1, 2),
        "nested": [{"x": Decimal("1.5")}],
    }
    assert plain(row) == {
        "id": str(ident),
        "w": 2.5,
        "n": 3,
        "at": "2026-01-02T00:00:00+00:00",
        "d": "2026-01-02",
        "nested": [{"x": 1.5}],
    }


def test_argument_validation_messages() -> None:
    with pytest.raises(ValidationError, match="give exercise_id or exercise_name"):
        BY_NAME["log_workout"].Args.model_validate({"completed_exercises": [{"sets": 3}]})
    with pytest.raises(ValidationError, match="'hold_sec' is required for hold"):
        BY_NAME["log_completed_exercise"].Args.model_validate(
            {"exercise_name": "Plank", "exercise_type": "hold"}
        )
    with pytest.raises(ValidationError, match="needs one value per set"):
        BY_NAME["log_completed_exercise"].Args.model_validate(
            {"exercise_name": "Row", "exercise_type": "reps", "sets": 3, "reps": [10, 8]}
        )
    with pytest.raises(ValidationError, match="muscle_goals is required"):
        BY_NAME["set_goals"].Args.model_validate({"goal_type": "muscle"})
    with pytest.raises(ValidationError):
        BY_NAME["fetch_data"].Args.model_validate({"sources": []})
    with pytest.raises(ValidationError):
        BY_NAME["get_exercise_breakdown"].Args.model_validate({"breakdown_type": "color"})


@pytest.mark.parametrize(
    ("logged", "entry"),
    [
        ("pull-ups", "Pullups"),
        ("Push Ups", "Pushups"),
        ("Squats", "Barbell Squat"),
        ("deadlift", "Barbell Deadlift"),
        ("Running", "Running, Treadmill"),
        ("Cycling", "Bicycling"),
        ("Plank", "Plank"),
        ("Swimming", None),
        ("Run", "Running, Treadmill"),
    ],
)
def test_logged_names_find_their_catalog_entry(logged: str, entry: str | None) -> None:
    found = catalog_entry(logged)
    assert (found.name if found else None) == entry


def test_milestone_type_is_inferred_from_the_unit() -> None:
    assert milestone_type("distance", None) == "distance"
    assert milestone_type("endurance", "km") == "distance"
    assert milestone_type("strength", "kg") == "weight"
    assert milestone_type("strength", "reps") == "reps"
    assert milestone_type("Event", None) == "event"
    assert milestone_type("fun", "smiles") == "other"
