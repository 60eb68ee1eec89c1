"""What the offline coach does for each intent: one function per intent plans that step's tool call,
built from the tool's own argument model (so a renamed field breaks here, at once). The intent table
(trainer.offline.intents) names the function of each intent."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, time
from typing import Any, Literal

from pydantic import ValidationError

from trainer.domain.message_words import best_name, name_words
from trainer.domain.progression import ProgressionTarget
from trainer.domain.stats_questions import stats_kind, stats_window
from trainer.domain.units import convert_weight
from trainer.domain.workout import Exercise
from trainer.offline.dates import planned_day, reschedule_date, resolve_date, time_of_day
from trainer.offline.goal_parsing import (
    equipment_statement,
    parse_goal_shift,
    parse_goals,
    parse_milestone,
    parse_preferences,
    time_limit,
)
from trainer.offline.patterns import INJURY, asked_exercise, requested_sources
from trainer.offline.plan_parsing import parse_day_change, parse_plan, parse_training_plan, parse_week_change
from trainer.offline.records import UserRecords
from trainer.offline.references import (
    add_request,
    identify_exercise,
    insert_position,
    named_location,
    parse_location,
    pick_scheduled,
    swap_target_text,
)
from trainer.offline.replies import CAN_DO, CLARIFY_OPTIONS, answer_question, unit_answer, upcoming_text
from trainer.offline.set_parsing import (
    adjustments_for,
    done_as_planned,
    exercise_phrase,
    logged_clause,
    one_load,
    parse_conversion,
    parse_correction,
    parse_logged_exercise,
    reps_list,
    split_effort,
    timer_exercise,
    with_digits,
)
from trainer.offline.turn import (
    WHOLE_WORKOUT,
    IntentName,
    Step,
    Turn,
    ask,
    logged_in_conversation,
    logged_target,
    notify,
    referent_name,
)
from trainer.offline.vocabulary import BODY_PARTS, duration_minutes, workout_type
from trainer.programs.tools import (
    ChangeTrainingDay,
    ChangeTrainingWeek,
    GetPlannedWorkout,
    GetPlannedWorkoutArgs,
    RequestTrainingPlan,
    ShowTrainingPlan,
    ShowTrainingPlanArgs,
)
from trainer.tools.add_exercise import AddArgs, AddExerciseToWorkout, NewExercise
from trainer.tools.analytics import (
    BreakdownArgs,
    GetExerciseBreakdown,
    GetMilestoneProgress,
    GetProgressTrends,
    GetWorkoutStatistics,
    MilestoneProgressArgs,
    StatisticsArgs,
    TrendsArgs,
)
from trainer.tools.base import ToolInvocation
from trainer.tools.calendar import (
    CreateWorkoutPlan,
    DeleteScheduledWorkout,
    DeleteScheduledWorkoutArgs,
    ManageMilestone,
    ScheduleWorkout,
    ScheduleWorkoutArgs,
    UpdateScheduledWorkout,
    UpdateScheduledWorkoutArgs,
)
from trainer.tools.catalog_match import catalog_entry
from trainer.tools.data import FetchData, FetchDataArgs
from trainer.tools.exercise_input import WorkoutInput
from trainer.tools.exercises import SearchExercises, SearchExercisesArgs
from trainer.tools.generate_workout import GenerateArgs, GenerateWorkout
from trainer.tools.goals import SetGoals, SetGoalsArgs
from trainer.tools.injuries import RecordInjury, RecordInjuryArgs
from trainer.tools.location import SetCurrentLocation, SetCurrentLocationArgs
from trainer.tools.log_corrections import AdjustLoggedExercise, UndoLoggedExercise, UndoLoggedExerciseArgs
from trainer.tools.logged_entries import LoggedExercise, logged_text
from trainer.tools.logging import (
    CompletedExerciseIn,
    LogCompletedExercise,
    LogWorkout,
    LogWorkoutArgs,
    MarkExerciseComplete,
    MarkExerciseCompleteArgs,
)
from trainer.tools.preferences import (
    DeletePreference,
    DeletePreferenceArgs,
    Preference,
    SetPreference,
    SetPreferenceArgs,
)
from trainer.tools.timers import (
    ExerciseTimerArgs,
    GenerateExerciseTimer,
    GenerateWorkoutTimers,
    WorkoutTimersArgs,
)
from trainer.tools.wording import joined
from trainer.tools.workout_edits import (
    AdjustArgs,
    AdjustExercise,
    RemoveArgs,
    RemoveExercise,
    ReplacementExercise,
    SwapArgs,
    SwapExercise,
)

# --- planning: the steps of an intent whose message holds several ---------------------------------

UNDO_ALL = re.compile(
    r"\b(everything|all of (it|them|that)|all (the |those )?(entries|exercises|logs?)|whole|the lot)\b", re.I
)


async def preference_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """Each preference the message states; a statement about the equipment of a saved place ('no
    equipment in my hotel room') switches to that place instead of becoming a preference."""
    equipment = equipment_statement(turn.text)
    stated = parse_preferences(turn.text, turn.now)
    only_equipment = all(isinstance(p, SetPreferenceArgs) and p.type == "equipment" for p in stated)
    if equipment and not INJURY.search(turn.text) and only_equipment:
        records = await turn.records()
        place = named_location(turn.text, [loc.name for loc in records.locations])
        if place is not None:
            return [Step("location", place)] if await turn.switch_needed(place) else []
    steps = [Step("preference", p) for p in stated]
    if "workout" not in intents and time_limit(turn.text) is not None and await turn.current() is not None:
        # a time limit applies to today's workout at once: rebuilt to fit, not only the next one
        steps.append(Step("workout"))
    return steps


async def location_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """The place the message names; nothing when it only mentions where the user already is while
    asking for something else."""
    name = parse_location(turn.text)
    known = (await turn.records()).locations
    if len(intents) > 1 and known and not await turn.switch_needed(name):
        return []
    return [Step("location", name)]


# --- acting: the tool call of one step -------------------------------------------------------------


async def workout(turn: Turn, step: Step) -> ToolInvocation:
    """The composed workout, with what it relaxed to exist as its note (the reply then says it)."""
    composed = await turn.planner.compose_workout(turn.user_id, turn.text)
    generated = composed.workout
    sent = WorkoutInput.model_validate(
        {
            **generated.model_dump(mode="json", exclude_none=True, exclude={"exercises"}),
            "exercises": [catalogue_shares_left_out(e) for e in generated.exercises],
        }
    )
    return replace(GenerateWorkout().call(GenerateArgs(workout=sent)), note=composed.relaxed_words())


def catalogue_shares_left_out(exercise: Exercise) -> dict[str, Any]:
    """An exercise as arguments, without what the workout tools fill: its muscles and goals when its
    name resolves to a catalogue entry (what a model told so writes; output tokens are the dearest)."""
    data = exercise.model_dump(mode="json", exclude_none=True)
    if catalog_entry(exercise.exercise_name) is not None:
        del data["muscles_utilized"], data["goals_addressed"]
    return data


async def change_workout(turn: Turn, step: Step) -> ToolInvocation:
    """swap, adjust or remove an exercise of the current workout."""
    intent = step.intent
    text = turn.text
    current = await turn.current()
    exercises = list((current or {}).get("exercises") or [])
    if not exercises:
        return notify("There's no active workout to change yet - ask me for a workout first.")
    target_text = swap_target_text(text) if intent == "swap" else text
    referent = referent_name(turn.convo)
    exercise = identify_exercise(target_text, exercises, referent) or (
        identify_exercise(text, exercises, referent) if intent != "swap" else None
    )
    names = [str(e.get("exercise_name")) for e in sorted(exercises, key=lambda e: int(e.get("order") or 0))]
    if exercise is None:
        verb = {"swap": "swap", "adjust": "change", "remove": "remove"}[intent]
        if intent == "remove" and not re.search(r"\b(it|this|that|one|exercise)\b", text, re.I):
            return notify(
                f"That isn't in your current workout, so there's nothing to remove. It has {joined(names)}."
            )
        return ask(f"Which exercise should I {verb}?", names[:8])
    exercise_id = str(exercise.get("id") or exercise.get("order"))
    name = str(exercise.get("exercise_name"))
    if intent == "swap":
        new = await turn.planner.compose_replacement(turn.user_id, turn.session_id, exercise, text)
        fields = catalogue_shares_left_out(new)
        replacement = ReplacementExercise.model_validate(
            {k: v for k, v in fields.items() if k not in ("id", "completed")}
        )
        return SwapExercise().call(
            SwapArgs(exercise_id=exercise_id, new_exercise=replacement, reason=text[:200])
        )
    if intent == "remove":
        return RemoveExercise().call(RemoveArgs(exercise_id=exercise_id, reason=text[:200]))
    if PERFORMED.search(text) and reps_list(with_digits(text)):
        return await _mark_done(turn, exercise)  # 'only got 8 8 7 on the bench': what was done, not a change
    steps = (await turn.records()).load_steps()
    changes = adjustments_for(text, exercise, steps)
    if not changes:
        loads = [float(v) for v in exercise.get("load_each") or []]
        unit = exercise.get("load_unit") or ""
        if loads and re.search(r"heavier|more weight", text, re.I):
            return notify(
                f"{name} is already at the heaviest weight you can set up here ({max(loads):g} {unit}), "
                "so I left it as it is. Want more reps instead?"
            )
        if loads and re.search(r"lighter|less weight", text, re.I):
            return notify(
                f"{name} is already at the lightest weight you can set up here ({min(loads):g} {unit}), "
                "so I left it as it is. Want fewer reps instead?"
            )
        return ask(f"How should I change {name}?", ["Heavier", "Lighter", "More reps", "Fewer reps"])
    return AdjustExercise().call(AdjustArgs(exercise_id=exercise_id, adjustments=changes))


async def add(turn: Turn, step: Step) -> ToolInvocation:
    current = await turn.current()
    exercises = list((current or {}).get("exercises") or [])
    if not exercises:
        return notify("There's no active workout to add to yet - ask me for a workout first.")
    name = add_request(turn.text)
    if not name:
        return ask("Which exercise should I add?")
    chosen = await turn.planner.compose_exercise(turn.user_id, name)
    position = insert_position(turn.text, exercises)
    fields = {
        k: v for k, v in catalogue_shares_left_out(chosen).items() if k not in ("id", "completed", "order")
    }
    if position is not None:
        fields["order"] = position
    return AddExerciseToWorkout().call(
        AddArgs(exercise=NewExercise.model_validate(fields), reason=turn.text[:200])
    )


async def goals(turn: Turn, step: Step) -> ToolInvocation:
    if isinstance(step.payload, SetGoalsArgs):
        return SetGoals().call(step.payload)
    text = turn.text
    chosen = parse_goal_shift(text, (await turn.records()).category_goals) or parse_goals(text)
    if chosen is None:
        return ask(
            "Which goals should I set? For example 'strength 60%, cardio 40%'.",
            ["Strength", "Hypertrophy", "Endurance", "Mobility"],
        )
    return SetGoals().call(chosen)


async def preference(turn: Turn, step: Step) -> ToolInvocation:
    """A stated preference with set_preference; an injury with record_injury, its one tool."""
    args: SetPreferenceArgs | RecordInjuryArgs = step.payload
    if isinstance(args, RecordInjuryArgs):
        return RecordInjury().call(args)
    return SetPreference().call(args)


async def unprefer(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    found = matching_preference(turn.text, records.preferences)
    if found is None:
        return notify(
            "I don't have a restriction like that on file, so there's nothing to lift. Your workouts "
            "already include it."
        )
    return DeletePreference().call(DeletePreferenceArgs(preference_id=found.id))


async def log_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """A log said alongside another request logs its own clause ('... and log 15 squats from
    earlier'); said alone, the whole message."""
    clause = logged_clause(turn.text) if len(intents) > 1 else None
    return [Step("log", clause)]


async def log(turn: Turn, step: Step) -> ToolInvocation:
    if isinstance(step.payload, str):
        said = parse_logged_exercise(step.payload)
        if said is not None:
            return LogCompletedExercise().call(said)
    text = turn.text
    current = await turn.current()
    open_exercises = [e for e in (current or {}).get("exercises") or [] if not e.get("completed")]
    whole = bool(WHOLE_WORKOUT.search(text))
    if open_exercises and not whole:
        exercise = turn.named_in_workout(list((current or {}).get("exercises") or []))
        if exercise is not None:
            return await _mark_done(turn, exercise)
    parsed = parse_logged_exercise(text)
    if parsed is not None and not (open_exercises and whole):
        return LogCompletedExercise().call(parsed)
    named = catalog_entry(exercise_phrase(text) or "-")
    # numbers, or an exercise the open workout does not hold: not 'done, log it', so the open workout
    # is not logged in the message's place
    says_other_work = named is not None or any(c.isdigit() for c in with_digits(text))
    if open_exercises and (whole or not says_other_work):
        completed = [
            CompletedExerciseIn(exercise_id=ex.get("id"), exercise_name=ex.get("exercise_name"))
            for ex in sorted(open_exercises, key=lambda e: int(e.get("order") or 0))
        ]
        return LogWorkout().call(LogWorkoutArgs(completed_exercises=completed))
    if named is not None:
        return ask(f"How many sets and reps of {named.name} did you do? For example '3x10 at 12 kg'.")
    return ask("What did you do? For example '3x10 bench press at 60kg' or 'ran 5 km in 28 minutes'.")


PERFORMED = re.compile(r"\b(?:got|did|managed|hit|made|completed|finished)\b", re.I)
"""Words saying what was done with an exercise ('only got 8 8 7 on it')."""


async def _mark_done(turn: Turn, exercise: dict[str, Any]) -> ToolInvocation:
    sets, reps, load, unit = done_as_planned(turn.text)
    planned_unit = exercise.get("load_unit") or (await turn.records()).weight_unit
    if load is not None and unit is not None and unit != planned_unit:
        load = round(convert_weight(load, unit, planned_unit), 2)
    effort, _ = split_effort(turn.text)
    return MarkExerciseComplete().call(
        MarkExerciseCompleteArgs.model_validate(
            {
                "exercise_id": str(exercise["id"]),
                "actual_sets": sets,
                "actual_reps": reps,
                "actual_load": load,
                **effort,
            }
        )
    )


NOTHING_TO_UNDO = (
    "Nothing has been logged in this conversation, so there's nothing to undo - I haven't deleted "
    "anything. Entries from earlier stay as they are; to fix one, tell me what to change (for example "
    "'my squats yesterday were 3x5 at 100 kg')."
)


async def undo_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """What an undo removes: only entries this conversation logged (never older history) - the one the
    message names, else the latest; every one of them for 'undo everything'."""
    mine = [
        row
        for row in logged_in_conversation(turn.convo, before_this_turn=True)
        if not (row.session_id and turn.session_id and row.session_id != turn.session_id)  # corrected here
    ]
    if not mine:
        return [Step("undo", None)]
    if UNDO_ALL.search(turn.text):
        return [Step("undo", row) for row in mine]
    return [Step("undo", undo_target(turn.text, mine))]


def undo_target(text: str, mine: list[LoggedExercise]) -> LoggedExercise:
    """The entry of this conversation's (newest first) a message means: one whose every name word it
    says ('the squats' is not the goblet squats), with the load it gives when it gives one; else the
    closest name; else the latest."""
    said = name_words(text)
    named = [r for r in mine if name_words(r.exercise_name) and name_words(r.exercise_name) <= said]
    load = one_load(text)
    if load is not None:
        loaded = [r for r in named or mine if r.load is not None and abs(r.load - load[0]) < 0.01]
        named = loaded or named
    if named:
        return named[0]
    closest = best_name(text, [r.exercise_name for r in mine])
    return next((r for r in mine if r.exercise_name == closest), mine[0])


async def undo(turn: Turn, step: Step) -> ToolInvocation:
    target: LoggedExercise | None = step.payload
    if target is None:
        return notify(NOTHING_TO_UNDO)
    return UndoLoggedExercise().call(UndoLoggedExerciseArgs(exercise_id=target.id))


async def correct(turn: Turn, step: Step) -> ToolInvocation:
    target = logged_target(turn.text, turn.convo, await turn.records(), turn.now)
    if target is None:
        return notify("I couldn't find a logged exercise to correct - nothing has been logged recently.")
    args = parse_correction(turn.text, target)
    if args is None:
        return ask(
            f"What should I change on {target.exercise_name} ({logged_text(target)})? For example 'the "
            "last set was 3 reps' or 'it was 62.5 kg'."
        )
    return AdjustLoggedExercise().call(args)


async def stats(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    today = records.today(turn.now)
    kind = stats_kind(turn.text)
    window = stats_window(turn.text, today)
    if kind == "trend":
        lowered = turn.text.lower()
        metric: Literal["weight", "volume", "frequency", "e1rm"] = (
            "volume"
            if "volume" in lowered
            else "frequency"
            if re.search(r"often|frequen", lowered)
            else "e1rm"
            if re.search(r"\b(e?1\s?rm|one[- ]rep max|estimated max|max strength)\b", lowered)
            else "weight"
        )
        names = list(
            dict.fromkeys(
                [t.exercise_name for t in records.targets] + [r.exercise_name for r in records.logged]
            )
        )
        return GetProgressTrends().call(
            TrendsArgs(metric=metric, exercise_name=best_name(turn.text, names), time_period="quarter")
        )
    if kind == "breakdown":
        lowered = turn.text.lower()
        by: Literal["muscle", "exercise_name", "category"] = (
            "muscle" if "muscle" in lowered else "exercise_name" if "exercise" in lowered else "category"
        )
        return GetExerciseBreakdown().call(BreakdownArgs(breakdown_type=by, time_period=window.period))
    if kind == "record" and window.start is None and window.period == "month":
        return GetWorkoutStatistics().call(StatisticsArgs(time_period="all_time"))
    if window.days_back is not None:
        return GetWorkoutStatistics().call(
            StatisticsArgs(time_period=window.period, days_back=window.days_back)
        )
    return GetWorkoutStatistics().call(
        StatisticsArgs(
            time_period=window.period,
            start_date=window.start.isoformat() if window.start else None,
            end_date=window.end.isoformat() if window.end else None,
        )
    )


async def progression(turn: Turn, step: Step) -> ToolInvocation:
    return notify(progression_answer(turn.text, await turn.records()))


async def convert(turn: Turn, step: Step) -> ToolInvocation:
    conversion = parse_conversion(turn.text)
    if conversion is None:
        return ask("What should I convert? For example '100 kg in pounds'.")
    return notify(unit_answer(*conversion))


async def exercise_info(turn: Turn, step: Step) -> ToolInvocation:
    asked = asked_exercise(turn.text)
    if asked is None:
        return notify(answer_question(turn.text))
    kind, phrase = asked
    if kind == "alternatives":
        return SearchExercises().call(SearchExercisesArgs(alternatives_to=phrase))
    return SearchExercises().call(SearchExercisesArgs(query=phrase))


async def schedule(turn: Turn, step: Step) -> ToolInvocation:
    today = await turn.today()
    day = resolve_date(turn.text, today)
    at: time | None = time_of_day(turn.text)
    when = datetime.combine(day, at).isoformat() if at is not None else day.isoformat()
    return ScheduleWorkout().call(
        ScheduleWorkoutArgs(
            scheduled_date=when,
            workout_type=workout_type(turn.text),
            duration_minutes=duration_minutes(turn.text),
        )
    )


async def reschedule(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    today = records.today(turn.now)
    scheduled = pick_scheduled(turn.text, records.upcoming, today)
    if scheduled is None:
        if not records.upcoming:
            return notify("You have nothing scheduled to move. Want me to schedule a workout?")
        options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming[:6]]
        return ask("Which scheduled workout should I move?", options)
    new_day = reschedule_date(turn.text, scheduled.date, today)
    if new_day is None:
        return ask(f"When should I move your {scheduled.workout_type} workout to?")
    local = scheduled.scheduled_date.astimezone(records.zone)
    moved = (
        new_day.isoformat()
        if (local.hour, local.minute) == (0, 0)
        else datetime.combine(new_day, local.time()).isoformat()
    )
    return UpdateScheduledWorkout().call(
        UpdateScheduledWorkoutArgs(workout_id=scheduled.id, scheduled_date=moved)
    )


async def unschedule(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    scheduled = pick_scheduled(turn.text, records.upcoming, records.today(turn.now))
    if scheduled is None:
        if not records.upcoming:
            return notify("You have nothing scheduled, so there's nothing to cancel.")
        options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming[:6]]
        return ask("Which scheduled workout should I cancel?", options)
    return DeleteScheduledWorkout().call(DeleteScheduledWorkoutArgs(workout_id=scheduled.id))


async def upcoming(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    return notify(upcoming_text(records.upcoming, await turn.reply_context()))


async def data(turn: Turn, step: Step) -> ToolInvocation:
    sources = requested_sources(turn.text)
    if not sources:
        return ask(f"What would you like to see? {CAN_DO}", CLARIFY_OPTIONS)
    return FetchData().call(FetchDataArgs(sources=sources))


async def calendar_plan(turn: Turn, step: Step) -> ToolInvocation:
    return CreateWorkoutPlan().call(parse_plan(turn.text, await turn.today()))


async def program(turn: Turn, step: Step) -> ToolInvocation:
    try:
        request = parse_training_plan(turn.text)
    except ValidationError:
        return CreateWorkoutPlan().call(parse_plan(turn.text, await turn.today()))
    return RequestTrainingPlan().call(request)


async def show_plan(turn: Turn, step: Step) -> ToolInvocation:
    return ShowTrainingPlan().call(ShowTrainingPlanArgs())


async def planned_workout(turn: Turn, step: Step) -> ToolInvocation:
    today = await turn.today()
    day = planned_day(turn.text, today)
    return GetPlannedWorkout().call(GetPlannedWorkoutArgs(day=None if day == today else day.isoformat()))


async def change_week(turn: Turn, step: Step) -> ToolInvocation:
    places = [loc.name for loc in (await turn.records()).locations]
    return ChangeTrainingWeek().call(parse_week_change(turn.text, places))


async def change_day(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    places = [loc.name for loc in records.locations]
    return ChangeTrainingDay().call(parse_day_change(turn.text, records.today(turn.now), places))


async def milestone_progress(turn: Turn, step: Step) -> ToolInvocation:
    return GetMilestoneProgress().call(MilestoneProgressArgs())


async def milestone(turn: Turn, step: Step) -> ToolInvocation:
    return ManageMilestone().call(parse_milestone(turn.text, await turn.today()))


async def timer(turn: Turn, step: Step) -> ToolInvocation:
    current = await turn.current()
    if current and current.get("exercises"):
        exercise = identify_exercise(turn.text, current["exercises"], referent_name(turn.convo))
        if exercise and exercise.get("id") and not WHOLE_WORKOUT.search(turn.text):
            return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise_id=exercise["id"]))
        return GenerateWorkoutTimers().call(WorkoutTimersArgs())
    return GenerateExerciseTimer().call(ExerciseTimerArgs(exercise=timer_exercise(turn.text)))


async def location(turn: Turn, step: Step) -> ToolInvocation:
    name: str | None = step.payload
    if not name:
        return ask("Which location are you at?")
    records = await turn.records()
    known = [loc.name for loc in records.locations]
    if known and named_location(name, known) is None:
        return notify(
            f"I don't have '{name}' saved as a location, so I kept your current one. Your saved "
            f"locations are {joined(known)}."
        )
    if known and not await turn.switch_needed(name):
        return notify(f"You're already at {records.current_location} - your workouts use its equipment.")
    return SetCurrentLocation().call(
        SetCurrentLocationArgs(location_name=named_location(name, known) or name)
    )


async def answer(turn: Turn, step: Step) -> ToolInvocation:
    return notify(answer_question(turn.text))


async def clarify(turn: Turn, step: Step) -> ToolInvocation:
    return ask(f"What would you like to do? {CAN_DO}", CLARIFY_OPTIONS)


# --- what the answers say ---------------------------------------------------------------------------


def find_target(text: str, targets: list[ProgressionTarget]) -> ProgressionTarget | None:
    name = best_name(text, [t.exercise_name for t in targets])
    return next((t for t in targets if t.exercise_name == name), None) if name else None


def progression_answer(text: str, records: UserRecords) -> str:
    """The next load for an exercise, from the progression rule (trainer.domain.progression)."""
    target = find_target(text, records.targets)
    if target is None:
        phrase = " ".join(sorted(name_words(text))) or "that exercise"
        return (
            f"I don't have recent loaded sets of {phrase} to go on. Log your next session (sets, reps and "
            "load) and I'll work out the next step from it."
        )
    load = f"{target.load:g} {target.unit}"
    scheme = f"{target.sets} x {target.reps}"
    heavier = bool(re.search(r"\b(heavier|go up|increase|add weight|more weight)\b", text, re.I))
    match target.rule:
        case "more_load":
            lead = "Yes - " if heavier else ""
            return (
                f"{lead}Go to {load} for {scheme} on {target.exercise_name} next time: you made every "
                "rep last session, so it's time for the next step."
            )
        case "more_reps" if target.reps > target.rep_high:
            lead = "Not yet - " if heavier else ""
            return (
                f"{lead}Stay at {load} on {target.exercise_name} and aim for {scheme} next time: the next "
                "weight up is a big jump, so add reps first, then move up."
            )
        case "more_reps":
            lead = "Not yet - " if heavier else ""
            return (
                f"{lead}Stay at {load} on {target.exercise_name} and aim for {scheme} next time: add reps "
                "until you reach the top of the range, then add weight."
            )
        case "retry":
            lead = "Not yet - " if heavier else ""
            return (
                f"{lead}Stay at {load} and repeat {scheme} on {target.exercise_name}: you missed reps "
                "last time, so keep the same weight until every set is complete."
            )
        case "deload":
            return (
                f"Not yet - you missed reps on {target.exercise_name} two sessions in a row, so drop "
                f"to {load} (a deload) for {scheme} and build back up from there."
            )
        case "new_range":
            reps = (
                f"{target.rep_low}-{target.rep_high}" if target.rep_low != target.rep_high else target.rep_low
            )
            return (
                f"Start your sets of {reps} on {target.exercise_name} at {load} ({scheme}): that's from "
                "your estimated max, a couple of reps short of failure."
            )
    return f"Try {load} for {scheme} on {target.exercise_name}, based on your {target.based_on}."


def matching_preference(text: str, preferences: list[Preference]) -> Preference | None:
    """The restriction 'my shoulder is fine again' or 'I like lunges again' lifts."""
    lowered = text.lower()
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    words = name_words(text)

    def mentions(pref: Preference) -> bool:
        body = f"{pref.description} {pref.guidance}".lower()
        if part:
            return bool(re.search(rf"\b{part}s?\b", body))
        return bool(words & name_words(body))

    found = [p for p in preferences if mentions(p)]
    found.sort(key=lambda p: (p.type != "injury", p.created_at), reverse=False)
    return found[0] if found else None
