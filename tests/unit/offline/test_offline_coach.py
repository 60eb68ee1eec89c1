"""The offline coach tells the truth: what it understands (intents, numbers, days, positions, 'this
one'), what it reads about the user (records), and what it says from the typed results."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest
from trainer.domain.progression import ProgressionTarget
from trainer.domain.stats_questions import stats_window
from trainer.offline import UserRecords, classify, read_conversation, workout_from_conversation
from trainer.offline.dates import reschedule_date, time_of_day
from trainer.offline.goal_parsing import disliked_exercises, parse_goal_shift
from trainer.offline.records import LocationBrief
from trainer.offline.references import add_request, identify_exercise, insert_position, pick_scheduled
from trainer.offline.replies import answer_question, failure_message
from trainer.offline.set_parsing import (
    adjustments_for,
    parse_conversion,
    parse_correction,
    parse_logged_exercise,
    per_set_loads,
    rest_seconds,
)
from trainer.tools.add_exercise import AddResult
from trainer.tools.analytics import (
    PersonalRecord,
    ProgressTrends,
    ProgressTrendsResult,
    TrendPoint,
    WorkoutStatisticsResult,
    WorkoutStats,
)
from trainer.tools.artifacts import TimerData, TimerPhaseData
from trainer.tools.base import ToolFailure
from trainer.tools.calendar import ScheduledWorkout
from trainer.tools.exercises import ExerciseInfo, MuscleShareInfo, SearchExercisesResult
from trainer.tools.goals import GoalEntry
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import MarkExerciseCompleteResult
from trainer.tools.preferences import Preference
from trainer.tools.stats_answers import statistics_answer, trends_answer
from trainer.tools.timers import TimersResult, timer_text
from trainer.tools.wording import ReplyContext
from trainer.tools.workout_edits import AdjustResult, adjusted_text

from tests.unit.offline.test_offline_policy import NOW, OK, Convo, FakePlanner, _exercise, generated

TODAY = NOW.date()  # Wednesday 6 May 2026
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
UUID = "3f2b9c1e-1111-4a2b-9c3d-0123456789ab"

HOME = {
    "workout_id": "workout_1",
    "title": "Full Body",
    "exercises": [
        {
            **_exercise(
                1, "Dumbbell Bench Press", load_each=[20.0] * 3, load_unit="kg", equipment=["dumbbell"]
            ),
            "id": "ex_a1",
        },
        {
            **_exercise(
                2, "One-Arm Dumbbell Row", load_each=[22.5] * 3, load_unit="kg", equipment=["dumbbell"]
            ),
            "id": "ex_b2",
        },
        {**_exercise(3, "Goblet Squat", reps=[12, 12, 12]), "id": "ex_c3"},
    ],
}
DUMBBELLS = [{"name": "Dumbbells", "weights": [5, 10, 15, 20, 22.5, 25], "unit": "kg"}]


def row(row_id: str, name: str, days_ago: int = 0, **fields: Any) -> LoggedExercise:
    base: dict[str, Any] = {
        "sets": 3,
        "reps": [5, 5, 5],
        "load_each": [140.0] * 3,
        "load_unit": "kg",
        "exercise_type": "reps",
    }
    base.update(fields)
    return LoggedExercise(
        id=row_id, performed_at=NOW - timedelta(days=days_ago), exercise_name=name, created_at=NOW, **base
    )


def target(name: str, load: float, rule: str, reps: int = 5) -> ProgressionTarget:
    return ProgressionTarget.model_validate(
        {
            "exercise_name": name,
            "load": load,
            "unit": "kg",
            "reps": reps,
            "sets": 3,
            "rep_low": reps,
            "rep_high": reps,
            "rule": rule,
            "based_on": name,
            "last_load": 100.0,
            "last_reps": 3,
            "last_date": TODAY,
            "max_load": 100.0,
            "reference_e1rm": 110.0,
            "reasoning": "why",
        }
    )


async def next_call(convo: Convo, planner: FakePlanner, now: datetime = NOW) -> tuple[str, dict[str, Any]]:
    from trainer.offline import OfflineAgentModel

    response = await OfflineAgentModel(planner, clock=lambda: now).complete(convo.request())
    assert response.tool_call is not None
    return response.tool_call.name, response.tool_call.arguments


@pytest.mark.parametrize(
    ("text", "intents"),
    [
        ("How do I do a Romanian deadlift?", ["exercise_info"]),
        ("Which muscles does the goblet squat work?", ["exercise_info"]),
        ("What can I do instead of dips?", ["exercise_info"]),
        ("What weight should I use on bench press next time?", ["progression"]),
        ("Should I go heavier on squats next session?", ["progression"]),
        ("How much is 100 kg in pounds?", ["convert"]),
        ("Sorry, that was 62.5 kg, not 60", ["correct"]),
        ("actually it was 62.5", ["correct"]),
        ("Fix my deadlift from this morning: the last set was only 3 reps", ["correct"]),
        ("Add bicep curls at the end", ["add"]),
        ("Add two more reps to every set of the goblet squats", ["adjust"]),
        ("Give me 2 minutes rest between sets on the bench press", ["adjust"]),
        ("two minutes rest on bench", ["adjust"]),
        ("Add 5 kg to the bench press", ["adjust"]),
        ("thanks!", ["answer"]),
        ("cancel tomorrow's workout", ["unschedule"]),
        ("delete my knee injury", ["unprefer"]),
        ("I like lunges again", ["unprefer"]),
        ("What is my best squat?", ["stats"]),
        ("what should I do today?", ["workout"]),
        ("fix the last set of this morning's deadlifts", ["correct"]),
        ("Actually, give me a 30 minute workout", ["workout"]),
        ("Set the bench press to 20, 22.5 and 25 kg for the three sets", ["adjust"]),
        ("Push my upper body workout back by one day", ["reschedule"]),
        ("push Thursday's workout back a day", ["reschedule"]),
        ("What do I have scheduled coming up?", ["upcoming"]),
        ("My shoulder feels fine now, you can program shoulder exercises again", ["unprefer"]),
        ("Give me a summary of my training this month", ["stats"]),
        ("What's the heaviest I've ever benched?", ["stats"]),
        ("Am I getting stronger on deadlifts?", ["stats"]),
        ("Can I get an upper body workout today?", ["workout"]),
        ("30 minutes of cardio please", ["workout"]),
        ("45 minute upper body session at the gym please", ["workout"]),
        ("Replace the second exercise, I don't like rows", ["swap"]),
        ("Replace the second exercise and never give me rows again", ["never", "swap"]),
        ("My knee is sore, swap the lunges", ["preference", "swap"]),
        ("make it harder", ["intensity"]),
        ("4 sets of 12 on the first one", ["scheme"]),
        ("show me the second exercise", ["show_exercise"]),
        ("use pounds from now on", ["units"]),
        ("I'm back at my home gym", ["location"]),
        ("Squats hurt my knee, what can I do instead?", ["pain_alternatives"]),
        (
            "My knee is hurting today, swap the lunges for something that doesn't load it",
            ["preference", "swap"],
        ),
        ("I'm doing too much strength work - move 10% from strength to cardio", ["goals"]),
        ("What do you think about the stock market this year?", ["answer"]),
        ("I finished the first exercise, 3x8 at 20kg", ["log"]),
    ],
)
def test_classify_the_requests_the_coach_used_to_miss(text: str, intents: list[str]) -> None:
    assert classify(text) == intents


def test_per_set_loads_and_pyramids() -> None:
    assert per_set_loads("60/60/65 kg") == ([60.0, 60.0, 65.0], "kg")
    assert per_set_loads("set it to 20, 22.5 and 25 kg") == ([20.0, 22.5, 25.0], "kg")
    assert per_set_loads("3x10 at 60kg") is None
    logged = parse_logged_exercise("3x8 at 60/60/65 kg bench press")
    assert logged is not None and (logged.exercise_name, logged.load_each) == (
        "Bench Press",
        [60.0, 60.0, 65.0],
    )
    args = parse_logged_exercise("Log my bench press from today: 60 kg for 8, 60 kg for 8, then 65 kg for 6")
    assert args is not None
    assert (args.exercise_name, args.sets, args.reps, args.load_each, args.load_unit) == (
        "Bench Press",
        3,
        [8, 8, 6],
        [60.0, 60.0, 65.0],
        "kg",
    )


def test_rest_and_time_of_day() -> None:
    assert rest_seconds("Give me 2 minutes rest between sets") == 120
    assert rest_seconds("rest 90 seconds on squats") == 90
    assert rest_seconds("more reps please") is None
    assert time_of_day("tomorrow at 7am") == time(7, 0)
    assert time_of_day("legs tomorrow at 7") == time(7, 0)
    assert time_of_day("Friday at 6:30 pm") == time(18, 30)
    assert time_of_day("3x10 bench at 60kg") is None


def test_statistics_windows_are_calendar_days_in_the_users_time_zone() -> None:
    month = stats_window("How many workouts this month?", TODAY)
    assert (month.start, month.end, month.label) == (date(2026, 5, 1), None, "this month")
    yesterday = stats_window("How many workouts did I do yesterday?", TODAY)
    assert (yesterday.start, yesterday.end) == (date(2026, 5, 5), date(2026, 5, 5))
    week = stats_window("How many times did I train in the last 7 days?", TODAY)
    assert (week.period, week.start, week.label) == ("week", None, "in the last 7 days")
    assert stats_window("sets this week", TODAY).start == date(2026, 5, 4)
    last = stats_window("volume last month", TODAY)
    assert (last.start, last.days_back, last.label) == (None, 30, "in the last 30 days")
    calendar = stats_window("volume in the last calendar month", TODAY)
    assert (calendar.start, calendar.end, calendar.label) == (date(2026, 4, 1), date(2026, 4, 30), "in April")
    assert stats_window("workouts in the last 45 days", TODAY).days_back == 45
    assert stats_window("how many sessions over the past month?", TODAY).days_back == 30
    assert stats_window("heaviest ever", TODAY).period == "all_time"


def test_conversion_goal_shift_and_dislikes() -> None:
    assert parse_conversion("How much is 100 kg in pounds?") == (100.0, "kg", "lbs")
    assert parse_conversion("what's 5 miles in km") == (5.0, "mi", "km")
    assert parse_conversion("100 kg in miles") is None
    goals = [
        GoalEntry(name="Strength", percentage=50),
        GoalEntry(name="Hypertrophy", percentage=30),
        GoalEntry(name="Cardio", percentage=20),
    ]
    shifted = parse_goal_shift("move 10% from strength to cardio", goals)
    assert shifted is not None and shifted.category_goals is not None
    assert {g.category: g.percentage for g in shifted.category_goals} == {
        "Strength": 40,
        "Hypertrophy": 30,
        "Cardio": 30,
    }
    assert disliked_exercises("I hate burpees and lunges, never give me those again") == ["burpees", "lunges"]


def test_corrections_change_only_what_the_user_said() -> None:
    deadlift = row(UUID, "Barbell Deadlift")
    fix = parse_correction("Fix my deadlift from this morning: the last set was only 3 reps", deadlift)
    assert fix is not None and fix.model_dump(exclude_none=True) == {"exercise_id": UUID, "reps": [5, 5, 3]}
    load = parse_correction("Sorry, that was 62.5 kg, not 60", deadlift)
    assert load is not None and (load.load, load.reps) == (62.5, None)
    bare = parse_correction("actually it was 142.5", deadlift)
    assert bare is not None and bare.load == 142.5
    assert parse_correction("sorry about that", deadlift) is None


def test_positions_ordinals_and_this_one() -> None:
    exercises = HOME["exercises"]
    assert identify_exercise("Replace the second exercise", exercises)["id"] == "ex_b2"  # type: ignore[index]
    assert identify_exercise("drop the last one", exercises)["id"] == "ex_c3"  # type: ignore[index]
    said = identify_exercise("30 second rest on the bench press", exercises)
    assert said is not None and said["id"] == "ex_a1"
    added = adjustments_for("Add 5 kg to the bench press", exercises[0])
    assert added == {"load_each": [25, 25, 25]}
    this = identify_exercise("Swap this one for something else", exercises, "One-Arm Dumbbell Row")
    assert this is not None and this["id"] == "ex_b2"
    assert add_request("Add some push-ups after the first exercise") == "push-ups"
    assert insert_position("Add some push-ups after the first exercise", exercises) == 2
    assert insert_position("Add bicep curls at the end", exercises) is None


def test_rescheduling_finds_the_workout_and_the_new_day() -> None:
    upcoming = [scheduled("w1", date(2026, 5, 7), "Leg Day"), scheduled("w2", date(2026, 5, 8), "Upper Body")]
    assert pick_scheduled("Push my upper body workout back by one day", upcoming, TODAY) is upcoming[1]
    assert pick_scheduled("push Thursday's workout back a day", upcoming, TODAY) is upcoming[0]
    assert reschedule_date("back by one day", date(2026, 5, 8), TODAY) == date(2026, 5, 9)
    assert reschedule_date("move it to Monday", date(2026, 5, 8), TODAY) == date(2026, 5, 11)


def scheduled(workout_id: str, day: date, kind: str, hour: int = 7) -> ScheduledWorkout:
    return ScheduledWorkout(
        id=workout_id,
        scheduled_date=datetime.combine(day, time(hour), tzinfo=UTC),
        workout_type=kind,
        status="scheduled",
        created_at=NOW,
        date=day,
    )


def test_failures_are_plain_sentences_without_ids_or_field_names() -> None:
    convo = Convo("log 3x10 zottle presses").call(
        "log_completed_exercise",
        {},
        ToolFailure(
            error="'Zottle Presses' is not in the exercise catalog: give muscles_utilized ([{muscle, share}])"
        ),
    )
    call = read_conversation(convo.messages, convo.results).calls[0]
    message = failure_message(call)
    assert "couldn't log that exercise" in message and "full name" in message
    assert not SNAKE.search(message) and "[{" not in message


def test_changes_are_reported_from_before_and_after() -> None:
    before = {
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [8, 8, 8],
        "load_each": [20.0] * 3,
        "load_unit": "kg",
        "rest_sec": 90,
    }
    after = {**before, "load_each": [22.5] * 3}
    assert adjusted_text(before, after) == "Bench Press: 3 x 8 at 22.5 kg (was 20)"
    rest = adjusted_text(before, {**before, "rest_sec": 120})
    assert rest == "Bench Press: 3 x 8 at 20 kg, 2 min rest between sets (was 1 min 30 s rest)"


def test_timers_are_described_as_delivered() -> None:
    phases = [
        TimerPhaseData(phase_type="transition", duration_sec=10, cue="Get ready", detail="", countdown=True)
    ]
    for n in range(1, 9):
        phases.append(
            TimerPhaseData(
                phase_type="work", duration_sec=20, cue="Go", detail="", countdown=True, set_number=n
            )
        )
        if n < 8:
            phases.append(
                TimerPhaseData(phase_type="rest", duration_sec=10, cue="Rest", detail="", countdown=True)
            )
    timer = TimerData(
        exercise_name="Tabata intervals",
        exercise_type="intervals",
        total_duration_sec=sum(p.duration_sec for p in phases),
        phases=phases,
    )
    assert timer_text(timer) == "Tabata intervals: 8 rounds of 20 s work and 10 s rest, 4 min in all"


def test_open_questions_get_one_honest_sentence_and_what_the_coach_can_do() -> None:
    answer = answer_question("What do you think about the stock market this year?")
    assert answer.startswith("I can't help with the stock market") and "workouts" in answer
    assert "offline" not in answer.lower()
    assert answer_question("What should I eat before a morning workout?").startswith("I can't give nutrition")


def stats_result(**fields: Any) -> WorkoutStatisticsResult:
    stats = {
        "unit": "kg",
        "total_workouts": 4,
        "total_exercises": 5,
        "total_sets": 15,
        "total_volume": 9930.0,
        "total_duration_min": 0.0,
        "workouts_per_week": 1.2,
        "total_distance": 0.0,
        "distance_unit": "km",
    }
    stats.update(fields)
    return WorkoutStatisticsResult(time_period="month", stats=WorkoutStats.model_validate(stats))


def test_statistics_answer_the_question_asked() -> None:
    ctx = ReplyContext(
        text="How many workouts this month?",
        today=TODAY,
        window=stats_window("How many workouts this month?", TODAY),
    )
    assert (
        statistics_answer(stats_result(), "count", ctx)
        == "You did 4 workouts this month (5 exercises, 15 sets)."
    )
    miles = stats_result(total_distance=12.32, distance_unit="mi")
    assert statistics_answer(miles, "distance", ctx) == "You've covered 12.3 mi this month."
    result = stats_result()
    result.personal_records = [
        PersonalRecord(
            exercise_name="Barbell Squat", unit="lbs", best_load=225, best_load_reps=5, epley_1rm=260
        ),
        PersonalRecord(
            exercise_name="Barbell Bench Press - Medium Grip",
            unit="lbs",
            best_load=137.79,
            best_load_reps=3,
            epley_1rm=150,
        ),
    ]
    heaviest = ReplyContext(text="What's the heaviest I've ever benched?", today=TODAY)
    assert statistics_answer(result, "record", heaviest).startswith(
        "Your heaviest Barbell Bench Press - Medium Grip: 137.8 lbs x 3"
    )
    result.weekly_hard_sets = {
        date(2026, 4, 27): {"Back": 9.0, "Chest": 3.0},
        date(2026, 5, 4): {"Back": 6.0},
    }
    assert statistics_answer(result, "top_muscle", ctx).startswith(
        "Back got the most work this month: 15 hard sets"
    )
    trend = ProgressTrendsResult(
        trends=ProgressTrends(
            metric="weight",
            exercise_name="Barbell Deadlift",
            period="quarter",
            unit="kg",
            series=[
                TrendPoint(week_start=date(2026, 4, 6), value=100),
                TrendPoint(week_start=date(2026, 5, 4), value=120),
            ],
            slope_per_week=5.0,
            percent_change=20.0,
            direction="up",
        )
    )
    assert trends_answer(trend, ctx) == (
        "Yes - you're getting stronger: your top Barbell Deadlift set went up from 100 to 120 kg over 4 "
        "weeks (+20%)."
    )


async def test_exercise_questions_answer_from_the_catalog_result_and_this_one_follows_it() -> None:
    info = ExerciseInfo(
        name="One-Arm Dumbbell Row",
        category="strength",
        level="beginner",
        equipment=["dumbbell", "bench"],
        muscles=[MuscleShareInfo(muscle="Back", share=0.6), MuscleShareInfo(muscle="Biceps", share=0.4)],
        instructions=["Brace on a flat bench.", "Pull to your hip, elbow close."],
    )
    convo = Convo("How do I do the one-arm dumbbell row properly?")
    convo.call("search_exercises", {"query": "one-arm dumbbell row"}, SearchExercisesResult(exercises=[info]))
    name, args = await next_call(convo, FakePlanner(HOME))
    assert name == "message_notify_user"
    assert (
        "mainly works your back" in args["message"] and "2. Pull to your hip, elbow close." in args["message"]
    )
    convo.call(name, args, OK).call("idle", {"reason": "x"}, None).say("Swap this one for something else")
    name, args = await next_call(convo, FakePlanner(HOME))
    assert (name, args["exercise_id"]) == ("swap_exercise", "ex_b2")


async def test_a_correction_finds_the_entry_in_history_not_only_in_the_conversation() -> None:
    records = UserRecords(logged=[row(UUID, "Barbell Deadlift"), row("other", "Barbell Squat", 2)])
    name, args = await next_call(
        Convo("Fix my deadlift from this morning: the last set was only 3 reps"), FakePlanner(None, records)
    )
    assert (name, args) == ("adjust_logged_exercise", {"exercise_id": UUID, "reps": [5, 5, 3]})
    name, args = await next_call(
        Convo("fix the last set of this morning's deadlifts"), FakePlanner(None, records)
    )
    assert name == "message_ask_user" and args["question"].startswith(
        "What should I change on Barbell Deadlift"
    )


async def test_undo_never_reaches_an_entry_logged_before_the_conversation() -> None:
    """An undo with nothing logged in the conversation deletes nothing and says so."""
    records = UserRecords(logged=[row(UUID, "Dumbbell Bicep Curl"), row("older", "Dumbbell Bench Press", 2)])
    name, args = await next_call(Convo("Please undo my last logged exercise"), FakePlanner(None, records))
    assert name == "message_notify_user"
    assert args["message"].startswith("Nothing has been logged in this conversation")
    assert "haven't deleted anything" in args["message"]


async def test_an_injury_that_is_better_is_deleted() -> None:
    shoulder = Preference(
        id="p-1",
        type="injury",
        description="Shoulder pain - avoid pressing",
        guidance="Exclude exercises that load the shoulder",
        delete_after_use=False,
        created_at=NOW,
    )
    knee = shoulder.model_copy(update={"id": "p-2", "description": "Knee pain", "guidance": "No knee work"})
    records = UserRecords(preferences=[knee, shoulder])
    name, args = await next_call(Convo("My shoulder feels fine now"), FakePlanner(None, records))
    assert (name, args) == ("delete_preference", {"preference_id": "p-1"})


async def test_progression_answers_name_only_the_next_load() -> None:
    records = UserRecords(
        targets=[target("Barbell Squat", 90, "deload"), target("Barbell Bench Press", 82.5, "more_load")]
    )
    _, args = await next_call(
        Convo("Should I go heavier on squats next session?"), FakePlanner(None, records)
    )
    assert args["message"].startswith("Not yet") and "drop to 90 kg" in args["message"]
    assert re.findall(r"(\d+(?:\.\d+)?) kg", args["message"]) == ["90"]
    _, args = await next_call(
        Convo("What weight should I use on bench press next time?"), FakePlanner(None, records)
    )
    assert re.findall(r"(\d+(?:\.\d+)?) kg", args["message"]) == ["82.5"]


async def test_progression_answers_a_new_range_and_reps_before_load() -> None:
    curl = target("Dumbbell Bicep Curl", 6, "more_reps", reps=8).model_copy(
        update={"reps": 13, "rep_high": 12}
    )
    squat = target("Barbell Squat", 85, "new_range", reps=8).model_copy(update={"rep_high": 12})
    records = UserRecords(targets=[curl, squat])
    _, args = await next_call(Convo("Should I go heavier on curls next time?"), FakePlanner(None, records))
    assert args["message"].startswith("Not yet - Stay at 6 kg") and "add reps first" in args["message"]
    _, args = await next_call(Convo("What weight for squats next time?"), FakePlanner(None, records))
    assert args["message"].startswith("Start your sets of 8-12 on Barbell Squat at 85 kg (3 x 8)")


async def test_scheduling_uses_the_users_day_and_time() -> None:
    late = datetime(2026, 5, 6, 20, 0, tzinfo=UTC)  # already Thursday 7 May, 06:00 in Sydney
    records = UserRecords(timezone="Australia/Sydney")
    name, args = await next_call(
        Convo("Schedule a leg workout for tomorrow at 7am"), FakePlanner(None, records), late
    )
    assert (name, args) == (
        "schedule_workout",
        {"scheduled_date": "2026-05-08T07:00:00", "workout_type": "Legs"},
    )


async def test_pushing_a_scheduled_workout_back_keeps_its_time() -> None:
    records = UserRecords(
        upcoming=[
            scheduled("w1", date(2026, 5, 7), "Leg Day"),
            scheduled("w2", date(2026, 5, 8), "Upper Body"),
        ]
    )
    name, args = await next_call(
        Convo("Push my upper body workout back by one day"), FakePlanner(None, records)
    )
    assert (name, args) == (
        "update_scheduled_workout",
        {"workout_id": "w2", "scheduled_date": "2026-05-09T07:00:00"},
    )


async def test_cancelling_a_scheduled_workout_deletes_that_one() -> None:
    upcoming = [scheduled("w1", date(2026, 5, 7), "Leg Day"), scheduled("w2", date(2026, 5, 8), "Upper Body")]
    planner = FakePlanner(None, UserRecords(upcoming=upcoming))
    assert await next_call(Convo("cancel tomorrow's workout"), planner) == (
        "delete_scheduled_workout",
        {"workout_id": "w1"},
    )


async def test_heavier_is_one_load_step_the_user_can_set_up_or_an_honest_no() -> None:
    records = UserRecords(equipment=DUMBBELLS)
    name, args = await next_call(Convo("Make the first exercise heavier"), FakePlanner(HOME, records))
    assert (name, args) == (
        "adjust_exercise",
        {"exercise_id": "ex_a1", "adjustments": {"load_each": [22.5] * 3}},
    )
    heaviest = {**HOME, "exercises": [{**HOME["exercises"][0], "load_each": [25.0] * 3}]}
    name, args = await next_call(Convo("Make the first exercise heavier"), FakePlanner(heaviest, records))
    assert name == "message_notify_user" and "already at the heaviest" in args["message"]


async def test_adding_an_exercise_at_a_position_then_reporting_it() -> None:
    planner = FakePlanner(HOME)
    convo = Convo("Add some push-ups after the first exercise")
    name, args = await next_call(convo, planner)
    assert name == "add_exercise_to_workout" and planner.added == ["push-ups"]
    assert args["exercise"]["order"] == 2 and args["exercise"]["exercise_name"] == "Push-Ups"
    added = {**args["exercise"], "id": "ex_new"}
    convo.call(
        name,
        args,
        AddResult(
            exercise_id="ex_new",
            exercise=added,
            exercise_count=4,
            order=2,
            workout_id="workout_1",
            artifact_id="art_w1",
        ),
    )
    name, args = await next_call(convo, planner)
    assert name == "message_notify_user" and args["artifact_id"] == "art_w1"
    assert args["message"] == "Added Push-Ups as exercise 2 of 4: 3 x 12."


async def test_finishing_the_first_exercise_marks_it_done_under_its_real_name() -> None:
    name, args = await next_call(Convo("I finished the first exercise, 3x8 at 20kg"), FakePlanner(HOME))
    assert (name, args) == (
        "mark_exercise_complete",
        {"exercise_id": "ex_a1", "actual_sets": 3, "actual_reps": [8, 8, 8], "actual_load": 20.0},
    )


async def test_several_dislikes_each_become_a_preference() -> None:
    convo = Convo("I hate burpees and lunges, never give me those again")
    name, args = await next_call(convo, FakePlanner(None))
    assert (name, args["description"]) == ("set_preference", "Dislikes burpees")
    saved = Preference(
        id="p1",
        type="exercise",
        description=args["description"],
        guidance=args["guidance"],
        delete_after_use=False,
        created_at=NOW,
    )
    from trainer.tools.preferences import SetPreferenceResult

    convo.call(name, args, SetPreferenceResult(preference=saved))
    name, args = await next_call(convo, FakePlanner(None))
    assert (name, args["description"]) == ("set_preference", "Dislikes lunges")


async def test_no_equipment_in_a_saved_place_is_not_a_permanent_preference() -> None:
    records = UserRecords(
        locations=[LocationBrief(name="Hotel Room", current=True), LocationBrief(name="Gym")]
    )
    text = "I've got 20 minutes and no equipment in my hotel room. Give me a leg workout."
    name, _ = await next_call(Convo(text), FakePlanner(None, records))
    assert name == "generate_workout"
    records.locations = [LocationBrief(name="Hotel Room"), LocationBrief(name="Gym", current=True)]
    name, args = await next_call(Convo(text), FakePlanner(None, records))
    assert (name, args) == ("set_current_location", {"location_name": "Hotel Room"})


async def test_a_change_that_changed_nothing_is_not_reported_as_done() -> None:
    unchanged = AdjustResult(
        exercise_id="ex_a1",
        exercise_name="Dumbbell Bench Press",
        adjustments={"sets": 3},
        old_values={},
        changes_summary="no change",
        exercise=HOME["exercises"][0],
    )
    convo = Convo("make the bench press 3 sets").call("adjust_exercise", {}, unchanged)
    call = read_conversation(convo.messages, convo.results).calls[0]
    assert isinstance(call.result, AdjustResult)
    said = call.result.say(ReplyContext(), call.arguments)
    assert said == "Dumbbell Bench Press already had that - nothing changed."


def test_the_workout_rebuilt_from_the_conversation_replays_additions_and_completions() -> None:
    workout = {"title": "Push", "exercises": [_exercise(1, "Bench Press"), _exercise(2, "Fly")]}
    pushups = {**_exercise(2, "Pushups"), "id": "ex_p"}
    convo = (
        Convo("Give me a push workout")
        .call(
            "generate_workout",
            {"workout": workout},
            generated("art_1", ["Bench Press", "Fly"], ["ex_1", "ex_2"]),
        )
        .call(
            "add_exercise_to_workout",
            {},
            AddResult(exercise_id="ex_p", exercise=pushups, exercise_count=3, order=2),
        )
        .call(
            "mark_exercise_complete",
            {},
            MarkExerciseCompleteResult(exercise_id="ex_1", logged=row(UUID, "Bench Press"), remaining=2),
        )
    )
    rebuilt = workout_from_conversation(read_conversation(convo.messages, convo.results))
    assert rebuilt is not None
    assert [(e["id"], e["order"], bool(e.get("completed"))) for e in rebuilt["exercises"]] == [
        ("ex_1", 1, True),
        ("ex_p", 2, False),
        ("ex_2", 3, False),
    ]


async def test_a_timer_is_delivered_and_described() -> None:
    phases = [TimerPhaseData(phase_type="work", duration_sec=20, cue="Go", detail="", countdown=True)]
    timers = TimersResult(
        timers=[
            TimerData(
                exercise_name="Intervals", exercise_type="intervals", total_duration_sec=20, phases=phases
            )
        ],
        total_duration_sec=20,
        artifact_id="art_t1",
    )
    convo = Convo("Give me a tabata timer").call("generate_exercise_timer", {}, timers)
    name, args = await next_call(convo, FakePlanner(None))
    assert name == "message_notify_user" and args["artifact_id"] == "art_t1"
    assert (
        args["message"]
        == "Here's your timer - Intervals: 1 round of 20 s work, 20 s in all. Tap start when you're ready."
    )
