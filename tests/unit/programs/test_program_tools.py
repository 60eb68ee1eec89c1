"""The training-plan chat tools (trainer.programs.tools): their argument contract, formatters that read
for a user (no ids, no field names, never "ready" for a plan still being built), and the offline coach's
plan intents: the requests it recognises, the calls it makes and what it tells the user."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from pydantic import ValidationError
from trainer.offline import UserRecords, classify
from trainer.offline.dates import planned_day
from trainer.offline.plan_parsing import parse_training_plan, parse_week_change
from trainer.offline.records import LocationBrief
from trainer.programs.plan_briefs import PlanBrief, PlannedDayBrief, plan_overview_text, plan_requested_text
from trainer.programs.tools import (
    ChangeTrainingDayArgs,
    ChangeTrainingWeek,
    ChangeTrainingWeekArgs,
    ChangeTrainingWeekResult,
    GetPlannedWorkout,
    GetPlannedWorkoutResult,
    RequestTrainingPlan,
    RequestTrainingPlanArgs,
    RequestTrainingPlanResult,
    ShowTrainingPlan,
    ShowTrainingPlanResult,
)
from trainer.tools.base import ToolFailure
from trainer.tools.wording import ReplyContext

from tests.unit.offline.test_offline_policy import NOW, Convo, FakePlanner, _next

TODAY = NOW.date()  # Wednesday 6 May 2026
PLAN_ID = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
DAY_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-")
FIELD_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
MESSAGE = "🏋️ Wednesday Upper Strength - Week 1\n\n1️⃣ DB Bench: 4×8 @ 20 kg (rest 2 min)\n\n💪 Let's go!"


def plan_row(status: str = "pending", **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": PLAN_ID,
        "status": status,
        "error": None,
        "title": None,
        "weeks": 12,
        "days_per_week": 4,
        "training_days": ["Monday", "Tuesday", "Thursday", "Friday"],
        "session_minutes": 60,
        "start_date": date(2026, 5, 4),
        "active": False,
        "plan": None,
    }
    if status == "ready":
        row.update(
            title="12-Week Upper/Lower Strength",
            active=True,
            plan={
                "methodology": "upper_lower",
                "microcycles": [
                    {"name": "Foundation", "start_week": 1, "end_week": 4, "deload_weeks": [4]},
                    {"name": "Build", "start_week": 5, "end_week": 8, "deload_weeks": [8]},
                    {"name": "Peak", "start_week": 9, "end_week": 12, "deload_weeks": [12]},
                ],
            },
        )
    row.update(extra)
    return row


def day_row(kind: str = "training", **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": DAY_ID,
        "plan_id": PLAN_ID,
        "week_number": 1,
        "date": TODAY,
        "weekday": "Wednesday",
        "kind": kind,
        "focus": "Upper strength" if kind == "training" else None,
        "workout": {
            "title": "Upper strength",
            "exercises": [
                {"exercise_name": "Jumping Jacks", "order": 1, "group": {"type": "warmup"}},
                {"exercise_name": "Dumbbell Bench Press", "order": 2},
                {"exercise_name": "One-Arm Dumbbell Row", "order": 3},
                {"exercise_name": "Chest Stretch", "order": 4, "group": {"type": "cooldown"}},
            ],
            "summary": {"estimated_duration_min": 52},
        }
        if kind == "training"
        else None,
        "notes": [],
        "recovery_notes": None if kind == "training" else "Easy 20-minute walk and some mobility work.",
        "message": MESSAGE if kind == "training" else None,
        "status": "scheduled",
    }
    row.update(extra)
    return row


def reads_for_a_user(text: str) -> None:
    assert not UUID.search(text), text
    assert not FIELD_NAME.search(text), text


# --- arguments ------------------------------------------------------------------------------------


def test_plan_request_arguments_are_bounded() -> None:
    assert RequestTrainingPlanArgs().weeks == 12
    for bad in ({"weeks": 3}, {"weeks": 17}, {"days_per_week": 8}, {"session_minutes": 10},
                {"training_days": ["Funday"]}, {"weeks": 12, "colour": "blue"}):  # fmt: skip
        with pytest.raises(ValidationError):
            RequestTrainingPlanArgs.model_validate(bad)


def test_week_and_day_changes_name_their_week_and_day() -> None:
    assert ChangeTrainingWeekArgs(reason="travelling").week == "next"
    assert ChangeTrainingWeekArgs(reason="away", week=3).week == 3
    assert ChangeTrainingWeekArgs.model_validate({"reason": "away", "week": "current"}).week == "current"
    with pytest.raises(ValidationError):
        ChangeTrainingWeekArgs.model_validate({"reason": "away", "week": "later"})
    with pytest.raises(ValidationError):
        ChangeTrainingWeekArgs.model_validate({"week": "next"})
    with pytest.raises(ValidationError):
        ChangeTrainingWeekArgs(reason="x", avoid=["knee"] * 11)
    assert ChangeTrainingDayArgs(reason="only 30 minutes").day is None


def test_a_plan_request_is_routed_away_from_the_calendar_labels() -> None:
    """The system prompt's routing says which of the two a request for a plan means, once."""
    from trainer.store.prompt_files import read_prompt_files
    from trainer.tools.calendar import CreateWorkoutPlan

    routing = read_prompt_files()["chat"].split("<routing>")[1].split("</routing>")[0]
    assert "a multi-week program -> request_training_plan (create_workout_plan only for" in routing
    assert "without exercises" in CreateWorkoutPlan.description
    assert "training plan" in RequestTrainingPlan.description


# --- formatters -----------------------------------------------------------------------------------


def test_a_pending_plan_is_reported_as_being_built_never_as_ready() -> None:
    result = RequestTrainingPlanResult(plan=PlanBrief.of(plan_row()))
    text = RequestTrainingPlan().format(result)
    assert "being built" in text and "NOT ready" in text
    assert "12 weeks from Monday 4 May, 4 days a week (Monday, Tuesday, Thursday and Friday)" in text
    reads_for_a_user(text)
    reply = plan_requested_text(result.plan, TODAY)
    assert "ready" not in reply.replace("once it's ready", "")
    assert "12-week" in reply and "show your plan" in reply
    reads_for_a_user(reply)


def test_a_ready_plan_shows_its_phases_deloads_and_the_current_week() -> None:
    brief = PlanBrief.of(plan_row("ready"), [1, 2], today=date(2026, 5, 13))
    assert (brief.current_week, brief.deload_weeks, brief.weeks_built) == (2, [4, 8, 12], [1, 2])
    text = ShowTrainingPlan().format(ShowTrainingPlanResult(plan=brief))
    assert "Foundation (weeks 1-4, deload week 4)" in text and "week 2 of 12" in text
    assert "Weeks with workouts so far: 1-2" in text
    reads_for_a_user(text)
    overview = plan_overview_text(brief, date(2026, 5, 13))
    assert "12-Week Upper/Lower Strength" in overview and "You're in week 2 of 12" in overview
    reads_for_a_user(overview)
    failed = PlanBrief.of(plan_row("failed", error="Your plan could not be built: no equipment."))
    assert "could not be built" in ShowTrainingPlan().format(ShowTrainingPlanResult(plan=failed))
    assert "no training plan" in ShowTrainingPlan().format(ShowTrainingPlanResult(plan=None))
    assert "don't have a training plan" in plan_overview_text(None, TODAY)


def test_a_planned_day_reads_as_its_message_or_its_recovery_notes() -> None:
    tool = GetPlannedWorkout()
    training = GetPlannedWorkoutResult(day=TODAY, planned=PlannedDayBrief.of(day_row()))
    text = tool.format(training)
    assert text.startswith("Planned for Wednesday 6 May (week 1 of the plan):") and MESSAGE in text
    reads_for_a_user(text)
    reply = training.say(ReplyContext(today=TODAY), {})
    assert reply.startswith("Your workout for today (Wednesday 6 May), week 1 of your plan:")
    assert MESSAGE in reply

    rest = GetPlannedWorkoutResult(day=TODAY, planned=PlannedDayBrief.of(day_row("rest")))
    assert "rest day" in tool.format(rest) and "Easy 20-minute walk" in tool.format(rest)
    assert rest.say(ReplyContext(today=TODAY), {}).startswith("Today (Wednesday 6 May) is a rest day")

    nothing = GetPlannedWorkoutResult(day=TODAY, planned=None, has_plan=False)
    assert "no training plan" in tool.format(nothing)
    assert "don't have a training plan" in nothing.say(ReplyContext(today=TODAY), {})
    unbuilt = GetPlannedWorkoutResult(day=TODAY, planned=None, has_plan=True)
    assert "not built yet" in tool.format(unbuilt)


def test_a_rebuilt_week_lists_its_days() -> None:
    days = [PlannedDayBrief.of(day_row()), PlannedDayBrief.of(day_row("rest", date=date(2026, 5, 7)))]
    result = ChangeTrainingWeekResult(week_number=2, rebuilt=True, reason="hotel gym only", days=days)
    text = ChangeTrainingWeek().format(result)
    assert text.splitlines() == [
        "Week 2 of the plan rebuilt for 'hotel gym only':",
        "Wednesday 6 May: Upper strength - Dumbbell Bench Press, One-Arm Dumbbell Row (about 52 min)",
        "Thursday 7 May: rest day",
    ]


# --- the offline coach ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("make me a 12-week plan, 4 days a week", "program"),
        ("Can you build me a 3 month strength program?", "program"),
        ("Put a 6-week plan on my calendar", "plan"),
        ("I'm travelling next week, hotel gym only", "change_week"),
        ("Only have 30 minutes a day this week, I'm busy", "change_week"),
        ("Change tomorrow's workout, my knee hurts", "change_day"),
        ("what's my workout today?", "planned_workout"),
        ("What is tomorrow's session?", "planned_workout"),
        ("show my plan", "show_plan"),
        ("Is my training plan ready?", "show_plan"),
        ("Give me a full body workout for today", "workout"),
        ("Show me a leg workout", "workout"),
    ],
)
def test_plan_requests_are_recognised(text: str, intent: str) -> None:
    assert classify(text) == [intent]


def test_a_plan_request_is_read_into_the_tools_arguments() -> None:
    args = parse_training_plan("Make me a 12-week plan, 4 days a week, 45 minute sessions, to get stronger")
    assert (args.weeks, args.days_per_week, args.training_days, args.session_minutes) == (12, 4, None, 45)
    assert args.goal is not None and "stronger" in args.goal
    named = parse_training_plan("an 8 week program on Mondays, Wednesdays and Fridays")
    assert (named.weeks, named.days_per_week, named.training_days) == (
        8,
        None,
        ["Monday", "Wednesday", "Friday"],
    )
    assert parse_training_plan("a three month plan, three times a week").weeks == 12


def test_a_week_change_uses_a_saved_location_else_the_equipment_it_implies() -> None:
    hotel = parse_week_change("I'm travelling next week, hotel gym only", ["Home Gym"])
    assert (hotel.week, hotel.location, hotel.equipment) == ("next", None, ["dumbbell", "bench", "treadmill",
                                                                            "stationary bike"])  # fmt: skip
    assert hotel.reason == "I'm travelling next week, hotel gym only"
    saved = parse_week_change("At the hotel gym all next week", ["Home Gym", "Hotel Gym"])
    assert (saved.location, saved.equipment) == ("Hotel Gym", None)
    room = parse_week_change("Away this week with no equipment, 30 minutes a day", [])
    assert (room.week, room.equipment, room.session_minutes) == ("current", ["bodyweight"], 30)
    assert parse_week_change("My knee hurts, go easy next week", []).avoid == ["knee"]
    assert planned_day("what's my workout tomorrow?", TODAY) == date(2026, 5, 7)
    assert planned_day("what's on Wednesday?", TODAY) == TODAY


async def test_the_offline_coach_requests_the_plan_then_says_it_is_being_built() -> None:
    convo = Convo("Make me a 12-week plan, 4 days a week")
    name, args = await _next(convo)
    assert (name, args["weeks"], args["days_per_week"]) == ("request_training_plan", 12, 4)
    pending = RequestTrainingPlanResult(plan=PlanBrief.of(plan_row()))
    name, args = await _next(convo.call(name, args, pending))
    assert name == "message_notify_user"
    assert "putting your 12-week training plan together" in args["message"]
    assert "is ready" not in args["message"]

    ready = Convo("Make me a 12-week plan, 4 days a week")
    ready.call("request_training_plan", {"weeks": 12}, RequestTrainingPlanResult(plan=PlanBrief.of(
        plan_row("ready"))))  # fmt: skip
    name, args = await _next(ready)
    assert args["message"].startswith("Your training plan is ready.")


async def test_the_offline_coach_reads_todays_workout_and_changes_next_week() -> None:
    convo = Convo("what's my workout today?")
    assert await _next(convo) == ("get_planned_workout", {})
    tomorrow = await _next(Convo("What's my workout tomorrow?"))
    assert tomorrow == ("get_planned_workout", {"day": "2026-05-07"})
    convo.call(
        "get_planned_workout", {}, GetPlannedWorkoutResult(day=TODAY, planned=PlannedDayBrief.of(day_row()))
    )
    name, args = await _next(convo)
    assert name == "message_notify_user" and MESSAGE in args["message"]

    records = UserRecords(locations=[LocationBrief(name="Home Gym", current=True)])
    name, args = await _next(Convo("I'm travelling next week, hotel gym only"), FakePlanner(None, records))
    assert name == "change_training_week"
    assert args["week"] == "next" and args["equipment"] == [
        "dumbbell",
        "bench",
        "treadmill",
        "stationary bike",
    ]
    assert await _next(Convo("show my plan")) == ("show_training_plan", {})


async def test_a_plan_length_outside_a_program_falls_back_to_calendar_labels() -> None:
    name, args = await _next(Convo("Make me a 2-week plan, 3 times a week"))
    assert (name, args["duration_weeks"], args["workouts_per_week"]) == ("create_workout_plan", 2, 3)
    name, args = await _next(Convo("Make me a 16-week plan, 3 times a week"))
    assert (name, args["weeks"]) == ("request_training_plan", 16)


async def test_without_a_plan_a_week_change_says_so() -> None:
    failure = ToolFailure(error="You don't have an active training plan yet: ask for one first.")
    convo = Convo("I'm travelling next week, hotel gym only").call("change_training_week", {}, failure)
    name, args = await _next(convo)
    assert name == "message_notify_user"
    assert "don't have a training plan yet" in args["message"]
    assert "12-week plan, 4 days a week" in args["message"]


def test_plan_text_in_replies_is_dated_in_words() -> None:
    text = plan_requested_text(PlanBrief.of(plan_row(start_date=date(2026, 5, 11))), TODAY)
    assert "from Monday 11 May" in text
    assert not re.search(r"\d{4}-\d{2}-\d{2}", text)
