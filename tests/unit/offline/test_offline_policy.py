"""The offline rule-based agent: reads the Anthropic-shaped request and picks the next tool call."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel
from trainer.domain.composer import ComposedWorkout
from trainer.domain.workout import Exercise, Workout
from trainer.offline import OfflineAgentModel, UserRecords, classify, read_conversation
from trainer.providers.ports import ModelRequest
from trainer.tools.analytics_results import WorkoutStatisticsResult, WorkoutStats
from trainer.tools.base import ToolFailure
from trainer.tools.communication import NotifyResult
from trainer.tools.current_workout import ExerciseBrief, ExerciseRef
from trainer.tools.data import FetchDataResult
from trainer.tools.generate_workout import GenerateArgs, GeneratedSummary, GenerateResult
from trainer.tools.injuries import RecordInjuryResult
from trainer.tools.logged_entries import LoggedExercise
from trainer.tools.logging import LogCompletedExerciseResult
from trainer.tools.preferences import Preference
from trainer.tools.workout_edits import RemainingExercise, RemoveResult, SwapResult

NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)  # a Wednesday
BICEPS = [{"muscle": "Biceps", "share": 1.0}]


def _exercise(order: int, name: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "exercise_name": name,
        "exercise_type": "reps",
        "order": order,
        "muscles_utilized": [{"muscle": "Chest", "share": 1.0}],
        "goals_addressed": [{"goal": "Strength", "share": 1.0}],
        "reasoning": "test",
        "equipment": [],
        "sets": 3,
        "reps": [10, 10, 10],
        "rest_sec": 90,
    }
    base.update(extra)
    return base


class FakePlanner:
    def __init__(self, current: dict[str, Any] | None = None, records: UserRecords | None = None) -> None:
        self.current = current
        self.records = records or UserRecords()
        self.composed: list[str] = []
        self.replaced: list[dict[str, Any]] = []
        self.added: list[str] = []

    async def compose_workout(self, user_id: str, request_text: str) -> ComposedWorkout:
        self.composed.append(request_text)
        return ComposedWorkout(
            Workout.model_validate(
                {"title": "Push Day", "exercises": [_exercise(1, "Bench Press"), _exercise(2, "Push-up")]}
            )
        )

    async def current_workout(self, session_id: str) -> dict[str, Any] | None:
        return self.current

    async def compose_replacement(
        self, user_id: str, session_id: str, exercise: dict[str, Any], request_text: str
    ) -> Exercise:
        self.replaced.append(exercise)
        return Exercise.model_validate(_exercise(exercise["order"], "Dumbbell Press"))

    async def compose_exercise(self, user_id: str, name: str) -> Exercise:
        self.added.append(name)
        return Exercise.model_validate(_exercise(1, name.title(), reps=[12, 12, 12], muscles_utilized=BICEPS))

    async def user_records(self, user_id: str) -> UserRecords:
        return self.records


CURRENT = {
    "workout_id": "w1",
    "title": "Push Day",
    "exercises": [
        {**_exercise(1, "Barbell Bench Press", load_each=[60.0] * 3, load_unit="kg"), "id": "ex_aaa111"},
        {**_exercise(2, "Dumbbell Fly"), "id": "ex_bbb222"},
        {**_exercise(3, "Back Squat", load_each=[80.0, 80.0, 80.0], load_unit="kg"), "id": "ex_ccc333"},
    ],
}  # fmt: skip


class Convo:
    """Builds messages the way the context builder does."""

    def __init__(self, text: str) -> None:
        self.messages: list[dict[str, Any]] = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": '<knowledge source="active_preferences">\nnone\n</knowledge>'},
                    {"type": "text", "text": text},
                ],
            }
        ]
        self.n = 0
        self.results: dict[str, BaseModel] = {}

    def call(
        self, name: str, args: dict[str, Any], result: BaseModel | None, *, is_error: bool = False
    ) -> Convo:
        """A tool call with its typed result (None: unknown) and the formatted text the model sees,
        which the policy must not need."""
        self.n += 1
        call_id = f"toolu_{self.n}"
        self.messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}],
            }
        )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": "(formatted text)"}
        if is_error:
            block["is_error"] = True
        self.messages.append({"role": "user", "content": [block]})
        if result is not None:
            self.results[call_id] = result
        return self

    def say(self, text: str) -> Convo:
        self.messages.append({"role": "user", "content": text})
        return self

    def request(self) -> ModelRequest:
        return ModelRequest(
            model="claude-haiku-4-5",
            system=[{"type": "text", "text": "system prompt"}],
            tools=[{"name": "idle", "input_schema": {"type": "object"}}],
            messages=self.messages,
            user_id="u1",
            session_id="s1",
            results=self.results,
        )


def generated(artifact_id: str, names: list[str], ids: list[str] | None = None) -> GenerateResult:
    ids = ids or [f"ex_{n}{n}{n}" for n in range(1, len(names) + 1)]
    return GenerateResult(
        workout_id="workout_1",
        artifact_id=artifact_id,
        title="Push Day",
        exercise_count=len(names),
        summary=GeneratedSummary(exercise_count=len(names), estimated_duration_min=30, muscles_targeted=[]),
        exercises=[
            ExerciseBrief(id=i, exercise_name=n, exercise_type="reps", order=k)
            for k, (i, n) in enumerate(zip(ids, names, strict=True), start=1)
        ],
    )


def logged(row_id: str, name: str = "Bench Press") -> LoggedExercise:
    return LoggedExercise(
        id=row_id,
        performed_at=NOW,
        exercise_name=name,
        exercise_type="reps",
        sets=3,
        reps=[10, 10, 10],
        load_each=[60.0] * 3,
        load_unit="kg",
        created_at=NOW,
    )


OK = NotifyResult(message="ok")


async def _next(convo: Convo, planner: FakePlanner | None = None) -> tuple[str, dict[str, Any]]:
    model = OfflineAgentModel(planner or FakePlanner(CURRENT), clock=lambda: NOW)
    response = await model.complete(convo.request())
    assert response.tool_call is not None
    return response.tool_call.name, response.tool_call.arguments


async def test_workout_flow_generates_then_notifies_with_the_artifact_then_idles() -> None:
    planner = FakePlanner()
    convo = Convo("Give me a quick chest workout")
    name, args = await _next(convo, planner)
    assert name == "generate_workout"
    GenerateArgs.model_validate(args)
    assert planner.composed == ["Give me a quick chest workout"]

    convo.call(name, args, generated("art_9XyZ12", ["Bench Press", "Push-up"]))
    name, args = await _next(convo, planner)
    assert name == "message_notify_user"
    assert args["artifact_id"] == "art_9XyZ12"
    assert "Bench Press" in args["message"]

    convo.call(name, args, OK)
    assert (await _next(convo, planner))[0] == "idle"


async def test_failed_tool_is_reported_honestly_then_idle() -> None:
    convo = Convo("Give me a workout").call(
        "generate_workout", {"workout": {}}, ToolFailure(error="exercise 1: sets required")
    )
    name, args = await _next(convo)
    assert name == "message_notify_user"
    assert "couldn't build that workout" in args["message"]
    assert "sets required" not in args["message"]
    convo.call(name, args, OK)
    assert (await _next(convo))[0] == "idle"


async def test_is_error_flag_also_counts_as_failure() -> None:
    convo = Convo("I hate burpees").call("set_preference", {}, None, is_error=True)
    name, args = await _next(convo)
    assert name == "message_notify_user" and "couldn't save that preference" in args["message"]


async def test_swap_by_name_uses_the_planner_replacement() -> None:
    planner = FakePlanner(CURRENT)
    name, args = await _next(Convo("Swap the bench press for something with dumbbells"), planner)
    assert name == "swap_exercise"
    assert args["exercise_id"] == "ex_aaa111"
    assert args["new_exercise"]["exercise_name"] == "Dumbbell Press"
    assert planner.replaced[0]["id"] == "ex_aaa111"
    assert "id" not in args["new_exercise"]


async def test_swap_by_position() -> None:
    name, args = await _next(Convo("replace the second exercise"))
    assert (name, args["exercise_id"]) == ("swap_exercise", "ex_bbb222")


async def test_unknown_exercise_asks_which_one() -> None:
    name, args = await _next(Convo("swap that one please"))
    assert name == "message_ask_user"
    assert args["options"] == ["Barbell Bench Press", "Dumbbell Fly", "Back Squat"]


async def test_change_without_a_workout_says_so() -> None:
    name, args = await _next(Convo("remove the squats"), FakePlanner(None))
    assert name == "message_notify_user" and "no active workout" in args["message"]


async def test_adjust_heavier_rounds_the_load() -> None:
    name, args = await _next(Convo("make the squats heavier"))
    assert name == "adjust_exercise"
    assert args == {"exercise_id": "ex_ccc333", "adjustments": {"load_each": [82.5, 82.5, 82.5]}}


async def test_adjust_more_sets_extends_per_set_lists() -> None:
    _, args = await _next(Convo("more sets on the bench press"))
    assert args["adjustments"] == {"sets": 4, "reps": [10, 10, 10, 10], "load_each": [60.0, 60.0, 60.0, 60.0]}


async def test_remove_exercise() -> None:
    name, args = await _next(Convo("remove the dumbbell fly"))
    assert (name, args["exercise_id"]) == ("remove_exercise", "ex_bbb222")


async def test_goals_with_percentages() -> None:
    name, args = await _next(Convo("I want to focus on strength 60%, cardio 40%"))
    assert name == "set_goals"
    assert args["goal_type"] == "category"
    assert [(g["category"], g["percentage"]) for g in args["category_goals"]] == [
        ("Strength", 60),
        ("Cardio", 40),
    ]


async def test_muscle_goals_split_evenly_without_percentages() -> None:
    _, args = await _next(Convo("set my goals to glutes and hamstrings"))
    assert args == {"goal_type": "muscle", "muscle_goals": {"Glutes": 50.0, "Hamstrings": 50.0}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I hate burpees", {"type": "exercise", "description": "Dislikes burpees"}),
        ("avoid shoulders for 2 weeks", {"type": "muscle_group", "expires_at": "2026-05-20T12:00:00Z"}),
        ("I only have 20 minutes today", {"type": "time", "delete_after_use": True}),
    ],
)
async def test_preferences_follow_the_temporal_rules(text: str, expected: dict[str, Any]) -> None:
    name, args = await _next(Convo(text))
    assert name == "set_preference"
    assert expected.items() <= args.items()
    if "hate" in text:
        assert "expires_at" not in args and "delete_after_use" not in args


async def test_an_injury_goes_to_its_own_tool_for_a_week_unless_said_otherwise() -> None:
    name, args = await _next(Convo("my knee hurts"))
    assert name == "record_injury"
    assert args == {"injury": "Knee pain - avoid loading the knee", "until": "2026-05-13T12:00:00Z"}


async def test_injury_and_workout_in_one_message_runs_both_then_notifies() -> None:
    """record_injury is never final: the coach's own message ends the turn, with the workout."""
    convo = Convo("My knee hurts, give me an upper body workout")
    name, args = await _next(convo)
    assert name == "record_injury"
    saved = Preference(
        id="p1",
        type="injury",
        description=args["injury"],
        guidance="Injury: leave out exercises that load the injured area.",
        delete_after_use=False,
        created_at=NOW,
    )
    convo.call(name, args, RecordInjuryResult(preference=saved))
    name, args = await _next(convo)
    assert name == "generate_workout" and "final" not in args
    convo.call(name, args, generated("art_k1", ["Bench Press", "Push-up"]))
    name, args = await _next(convo)
    assert name == "message_notify_user"
    assert "knee pain" in args["message"].lower() and args["artifact_id"] == "art_k1"


async def test_logging_parses_sets_reps_and_load() -> None:
    name, args = await _next(Convo("I did 3x10 bench press at 60kg"), FakePlanner(None))
    assert name == "log_completed_exercise"
    assert args == {
        "exercise_name": "Bench Press",
        "exercise_type": "reps",
        "sets": 3,
        "reps": [10, 10, 10],
        "load": 60.0,
        "load_unit": "kg",
    }


async def test_logging_a_run() -> None:
    _, args = await _next(Convo("ran 5 km in 28 minutes"), FakePlanner(None))
    assert args == {"exercise_name": "Running", "exercise_type": "duration", "duration_min": 28,
                    "distance": 5.0, "distance_unit": "km"}  # fmt: skip


async def test_finishing_the_current_workout_logs_it() -> None:
    name, args = await _next(Convo("I finished the workout"))
    assert name == "log_workout"
    assert [e["exercise_id"] for e in args["completed_exercises"]] == ["ex_aaa111", "ex_bbb222", "ex_ccc333"]
    assert "load" not in args["completed_exercises"][0]


async def test_undo_takes_the_logged_id_from_an_earlier_observation() -> None:
    row = LogCompletedExerciseResult(logged=logged("3f2b9c1e-1111-4a2b-9c3d-0123456789ab"))
    convo = Convo("I did 3x10 bench press at 60kg").call("log_completed_exercise", {}, row)
    convo.call("message_notify_user", {"message": "Logged"}, OK).say("undo that")
    name, args = await _next(convo)
    assert (name, args) == ("undo_logged_exercise", {"exercise_id": "3f2b9c1e-1111-4a2b-9c3d-0123456789ab"})


async def test_stats_then_notify_includes_the_observation() -> None:
    convo = Convo("Show me my stats for this week")
    name, args = await _next(convo)
    assert (name, args) == ("get_workout_statistics", {"time_period": "week", "start_date": "2026-05-04"})
    stats = WorkoutStats(
        unit="kg",
        total_workouts=4,
        total_exercises=12,
        total_sets=36,
        total_volume=12300.0,
        total_duration_min=180.0,
        workouts_per_week=4.0,
        total_distance=0.0,
        distance_unit="km",
    )
    convo.call(name, args, WorkoutStatisticsResult(time_period="week", stats=stats))
    name, args = await _next(convo)
    assert name == "message_notify_user"
    assert "4 workouts this week" in args["message"] and "36 sets" in args["message"]


async def test_schedule_plan_milestone_timer_location() -> None:
    assert await _next(Convo("Schedule a leg workout on Monday for 45 minutes")) == (
        "schedule_workout",
        {"scheduled_date": "2026-05-11", "workout_type": "Legs", "duration_minutes": 45},
    )  # fmt: skip
    name, args = await _next(Convo("Make me a 6-week strength plan, 4 times a week"))
    assert name == "request_training_plan"
    assert (args["weeks"], args["days_per_week"]) == (6, 4)
    name, args = await _next(Convo("Put a 6-week strength plan on my calendar, 4 times a week"))
    assert name == "create_workout_plan"
    assert (args["duration_weeks"], args["workouts_per_week"], args["start_date"]) == (6, 4, "2026-05-11")
    name, args = await _next(Convo("I want to run a 5k by June"))
    assert name == "manage_milestone"
    assert (args["target_value"], args["target_unit"], args["target_date"]) == (5.0, "km", "2026-06-30")
    assert await _next(Convo("start a timer for my workout")) == ("generate_workout_timers", {})
    name, args = await _next(Convo("tabata timer 20s on 10s off 8 rounds"), FakePlanner(None))
    assert name == "generate_exercise_timer"
    assert args["exercise"]["rounds"] == 8 and args["exercise"]["work_sec"] == 20
    assert await _next(Convo("I'm at the commercial gym")) == (
        "set_current_location",
        {"location_name": "commercial gym"},
    )


async def test_questions_get_a_deterministic_answer_and_unclear_asks() -> None:
    name, args = await _next(Convo("How long should I rest between sets?"))
    assert name == "message_notify_user" and "2-3 minutes" in args["message"]
    name, args = await _next(Convo("hi"))
    assert name == "message_ask_user" and args["options"]


async def test_after_asking_the_user_the_policy_idles() -> None:
    convo = Convo("hi").call("message_ask_user", {"question": "What?"}, None)
    assert (await _next(convo))[0] == "idle"


async def test_text_deltas_stream_the_message_and_usage_is_estimated() -> None:
    convo = Convo("How long should I rest between sets?")
    deltas: list[str] = []

    async def on_delta(tool: str, text: str) -> None:
        deltas.append(text)

    model = OfflineAgentModel(FakePlanner(), clock=lambda: NOW, delta_chunk_chars=10)
    response = await model.complete(convo.request(), on_delta)
    assert response.tool_call is not None
    assert len(deltas) > 3 and "".join(deltas) == response.tool_call.arguments["message"]
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.raw["content"][0]["type"] == "tool_use"
    assert response.raw["usage"]["input_tokens"] == response.usage.input_tokens
    assert response.model == "claude-haiku-4-5"


def test_read_conversation_skips_knowledge_and_finds_calls_since_the_latest_user_text() -> None:
    convo = Convo("first").call("idle", {"reason": "x"}, None).say("second")
    result = generated("art_1", ["Press"])
    convo.call("generate_workout", {"workout": {}}, result)
    read = read_conversation(convo.messages, convo.results)
    assert read.user_text == "second"
    assert [c.name for c in read.calls] == ["generate_workout"]
    assert [c.name for c in read.history] == ["idle", "generate_workout"]
    assert read.calls[0].result is result and not read.calls[0].failed


def test_classify_core_intents() -> None:
    assert classify("Give me a quick chest workout") == ["workout"]
    assert classify("I'm at the commercial gym, give me a workout") == ["location", "workout"]
    assert classify("How many workouts did I do this week?") == ["stats"]
    assert classify("log my workout") == ["log"]


async def test_without_session_state_the_workout_is_read_from_the_conversation() -> None:
    workout = {"title": "Push Day", "exercises": [_exercise(1, "Bench Press"), _exercise(2, "Push-up")]}
    result = generated("art_x1", ["Bench Press", "Push-up"], ["ex_11aa22", "ex_33bb44"])
    convo = Convo("Give me a workout").call("generate_workout", {"workout": workout}, result)
    convo.call("message_notify_user", {"message": "here"}, OK).say("make the push-up more reps")
    name, args = await _next(convo, FakePlanner(None))
    assert name == "adjust_exercise"
    assert args == {"exercise_id": "ex_33bb44", "adjustments": {"reps": [12, 12, 12]}}


@pytest.mark.parametrize("text", ["Show me a leg workout", "Give me a quick chest workout"])
def test_workout_requests_from_the_smoke_test_are_workout_intents(text: str) -> None:
    assert classify(text) == ["workout"]


def test_plan_on_named_days_asks_for_one_workout_per_named_day() -> None:
    from datetime import date

    from trainer.offline import parse_plan

    args = parse_plan("Make me a 6-week strength plan on Monday and Thursday", date(2026, 11, 22))
    assert args.preferred_days == ["Monday", "Thursday"]
    assert args.workouts_per_week == 2
    assert parse_plan("a 4 week plan, 3 times a week", date(2026, 11, 22)).workouts_per_week == 3


async def test_a_request_to_see_my_data_fetches_it_then_reports_what_came_back() -> None:
    convo = Convo("Show me my goals")
    assert await _next(convo) == ("fetch_data", {"sources": ["category_goals", "muscle_goals"]})

    fetched = FetchDataResult(data={"category_goals": "Strength: 60% target"})
    convo.call("fetch_data", {"sources": ["category_goals"]}, fetched)
    name, args = await _next(convo)
    assert name == "message_notify_user"
    assert "Strength: 60% target" in args["message"]


def test_the_workout_rebuilt_from_the_conversation_follows_swaps_and_removals() -> None:
    from trainer.offline import workout_from_conversation

    new = {**_exercise(1, "Push-up", reps=[15] * 3), "id": "ex_444"}
    swapped = SwapResult(
        old_id="ex_111",
        old_name="Press",
        old_exercise=ExerciseRef(id="ex_111", exercise_name="Press"),
        new_exercise=new,
        new_id="ex_444",
    )
    removed = RemoveResult(
        exercise_id="ex_222",
        removed_exercise=ExerciseRef(id="ex_222", exercise_name="Fly"),
        remaining_count=2,
        remaining=[RemainingExercise(id="ex_444", order=1), RemainingExercise(id="ex_333", order=2)],
    )
    convo = (
        Convo("Give me a push workout")
        .call(
            "generate_workout",
            {"workout": {"exercises": [_exercise(1, "Press")]}},
            generated("art_1", ["Press", "Fly", "Dip"]),
        )
        .call("swap_exercise", {"exercise_id": "1", "new_exercise": _exercise(1, "Push-up")}, swapped)
        .call("remove_exercise", {"exercise_id": "2"}, removed)
    )
    rebuilt = workout_from_conversation(read_conversation(convo.messages, convo.results))
    assert rebuilt is not None
    assert [(e["id"], e["exercise_name"], e["order"]) for e in rebuilt["exercises"]] == [
        ("ex_444", "Push-up", 1),
        ("ex_333", "Dip", 2),
    ]
    assert rebuilt["exercises"][0]["reps"] == [15, 15, 15]


CATALOGUE_FILLED = {"muscles_utilized", "goals_addressed"}


class UncataloguedPlanner(FakePlanner):
    async def compose_exercise(self, user_id: str, name: str) -> Exercise:
        self.added.append(name)
        return Exercise.model_validate(_exercise(1, "Zorblax Flow", muscles_utilized=BICEPS))


async def test_the_coach_leaves_out_the_muscles_and_goals_the_catalogue_fills() -> None:
    name, args = await _next(Convo("Give me a quick chest workout"), FakePlanner())
    assert name == "generate_workout"
    assert [CATALOGUE_FILLED & set(e) for e in args["workout"]["exercises"]] == [set(), set()]
    name, args = await _next(Convo("Swap the bench press for something with dumbbells"), FakePlanner(CURRENT))
    assert name == "swap_exercise" and not CATALOGUE_FILLED & set(args["new_exercise"])
    name, args = await _next(Convo("Add some bicep curls"), FakePlanner(CURRENT))
    assert name == "add_exercise_to_workout" and not CATALOGUE_FILLED & set(args["exercise"])


async def test_the_coach_sends_the_muscles_and_goals_of_an_exercise_the_catalogue_does_not_know() -> None:
    name, args = await _next(Convo("Add some bicep curls"), UncataloguedPlanner(CURRENT))
    assert name == "add_exercise_to_workout"
    assert args["exercise"]["exercise_name"] == "Zorblax Flow"
    assert args["exercise"]["muscles_utilized"] == BICEPS
    assert args["exercise"]["goals_addressed"] == [{"goal": "Strength", "share": 1.0}]


def test_the_rebuilt_workout_takes_the_muscles_the_tool_filled_from_its_result() -> None:
    from trainer.offline import workout_from_conversation

    sent = {k: v for k, v in _exercise(1, "Pushups").items() if k not in CATALOGUE_FILLED}
    stored = {**_exercise(1, "Pushups"), "id": "ex_111"}
    result = generated("art_1", ["Pushups"]).model_copy(update={"prescribed": [stored]})
    convo = Convo("Give me a push workout").call(
        "generate_workout", {"workout": {"exercises": [sent]}}, result
    )
    rebuilt = workout_from_conversation(read_conversation(convo.messages, convo.results))
    assert rebuilt is not None
    Exercise.model_validate(rebuilt["exercises"][0])
    assert rebuilt["exercises"][0]["muscles_utilized"] == stored["muscles_utilized"]


async def test_every_offline_action_is_built_from_the_tools_own_argument_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A renamed field of a tool's Args breaks the policy at once (mypy sees the keyword; this test
    sees the model): here the policy's schedule call must fail when the field it fills is renamed."""
    from pydantic import Field, create_model
    from trainer.offline import handlers as offline_policy
    from trainer.tools.calendar import ScheduleWorkoutArgs

    renamed = create_model(
        "ScheduleWorkoutArgs",
        __base__=ScheduleWorkoutArgs,
        scheduled_date=(str | None, Field(default=None, exclude=True)),
        scheduled_day=(str, ...),
    )
    monkeypatch.setattr(offline_policy, "ScheduleWorkoutArgs", renamed)
    name, args = await _next(Convo("Schedule a leg workout on Monday"))
    assert name == "message_notify_user" and "couldn't" in args["message"]
