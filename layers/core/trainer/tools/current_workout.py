"""The current workout in session state (the chat session's `current_workout`, its displayables and its
artifact; not process memory: Lambda keeps none between invocations): exercise ids, the workout's
summary, reading it, finding an exercise in it, and writing it back with the displayables and the
artifact in step. `WorkoutChange` is the result of every tool that changes it."""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import BaseModel, ValidationError

from trainer.domain.workout import Exercise, ExerciseType, Workout, exercise_line
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.tools.base import (
    DeliveredArtifact,
    Reply,
    ToolContext,
    ToolError,
    ToolResult,
    validation_summary,
)
from trainer.tools.communication import ARTIFACTS_KEY, DISPLAYABLES_KEY

ARTIFACT_TYPE = "exercise_list"
SCHEMA_VERSION = "1"
SECONDS_PER_REP = 3.0


def new_id(prefix: str, nbytes: int, taken: set[str]) -> str:
    while True:
        candidate = f"{prefix}{secrets.token_hex(nbytes)}"
        if candidate not in taken:
            return candidate


def new_exercise_id(taken: set[str]) -> str:
    """An exercise id (ex_...) not among `taken`."""
    return new_id("ex_", 3, taken)


def estimate_duration_min(exercises: list[Exercise]) -> int:
    """Rough session length: work plus rest for every exercise."""
    seconds = 0.0
    for ex in exercises:
        match ex.exercise_type:
            case "reps":
                seconds += sum(r * SECONDS_PER_REP for r in ex.reps or []) + (ex.sets or 0) * (
                    ex.rest_sec or 0
                )
            case "hold":
                seconds += sum(ex.hold_sec or []) + (ex.sets or 0) * (ex.rest_sec or 0)
            case "duration":
                seconds += (ex.duration_min or 0) * 60
            case "intervals":
                seconds += (ex.rounds or 0) * ((ex.work_sec or 0) + (ex.rest_sec or 0))
    return max(1, round(seconds / 60))


def muscles_targeted(exercises: list[Exercise]) -> list[str]:
    totals: dict[str, float] = {}
    for ex in exercises:
        for m in ex.muscles_utilized:
            totals[m.muscle] = totals.get(m.muscle, 0.0) + m.share
    return [name for name, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))]


def workout_summary(workout: Workout, exercises: list[Exercise]) -> dict[str, Any]:
    given = workout.summary
    return {
        "exercise_count": len(exercises),
        "estimated_duration_min": (
            given.estimated_duration_min
            if given and given.estimated_duration_min
            else estimate_duration_min(exercises)
        ),
        "muscles_targeted": (
            given.muscles_targeted if given and given.muscles_targeted else muscles_targeted(exercises)
        ),
        "primary_goals": list(given.primary_goals) if given else [],
    }


def as_json(ex: Exercise) -> dict[str, Any]:
    return ex.model_dump(mode="json", exclude_none=True)


class ExerciseBrief(BaseModel):
    """One exercise of a workout as a result lists it."""

    id: str
    exercise_name: str
    exercise_type: ExerciseType
    order: int
    detail: str = ""


class ExerciseRef(BaseModel):
    id: str
    exercise_name: str


class WorkoutChange(ToolResult):
    """A result that changed the current workout: the reply carries its exercises, the SSE frame the
    id of the workout's artifact."""

    workout_id: str | None = None
    artifact_id: str | None = None

    def add_to_reply(self, reply: Reply) -> None:
        reply.workout_changed = True

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return DeliveredArtifact(self.artifact_id, None) if self.artifact_id else None


def exercise_detail(ex: dict[str, Any]) -> str:
    try:
        return exercise_line(ex)
    except (ValidationError, ValueError):
        return ""


async def load_current_workout(ctx: ToolContext) -> dict[str, Any]:
    current = await ctx.get_state(CURRENT_WORKOUT_KEY)
    if not current or not current.get("exercises"):
        raise ToolError("No active workout in this session. Create one with generate_workout first.")
    return current


def find_exercise(exercises: list[dict[str, Any]], exercise_id: str) -> int:
    """Index of the exercise named by its id (ex_...) or its order number ("1")."""
    key = exercise_id.strip()
    for i, ex in enumerate(exercises):
        if ex.get("id") == key:
            return i
    number = key.lstrip("#")
    if number.isdigit():
        for i, ex in enumerate(exercises):
            if ex.get("order") == int(number):
                return i
    valid = ", ".join(
        f"{ex.get('id')} (order {ex.get('order')}: {ex.get('exercise_name')})" for ex in exercises
    )
    raise ToolError(f"Exercise '{exercise_id}' not found in the current workout. Valid: {valid}")


def renumber(exercises: list[dict[str, Any]]) -> None:
    for i, ex in enumerate(exercises, start=1):
        ex["order"] = i


def validated_exercises(current: dict[str, Any], exercises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    try:
        workout = Workout.model_validate({"title": current.get("title"), "exercises": exercises})
    except ValidationError as exc:
        raise ToolError(f"The change would make the workout invalid: {validation_summary(exc)}") from exc
    return [as_json(ex) for ex in workout.exercises]


UNADJUSTED_KEY = "before_readiness"
"""The current workout as made ({title, exercises}), kept while a readiness check-in has adjusted it
(trainer.tools.readiness); any other edit drops it, so a later check-in starts from the edit."""


async def save_current_workout(
    ctx: ToolContext,
    current: dict[str, Any],
    exercises: list[dict[str, Any]],
    *,
    unadjusted: dict[str, Any] | None = None,
) -> None:
    """Writes the workout back and keeps the displayables and the artifact payload in step.
    `unadjusted`: the exercises before a readiness adjustment (only check_readiness passes them)."""
    current = {k: v for k, v in current.items() if k != UNADJUSTED_KEY}
    if unadjusted is not None:
        current[UNADJUSTED_KEY] = unadjusted
    exercises = sorted(exercises, key=lambda e: e["order"])
    summary = dict(current.get("summary") or {})
    models = [Exercise.model_validate(e) for e in exercises]
    summary["exercise_count"] = len(exercises)
    summary["estimated_duration_min"] = estimate_duration_min(models)
    summary["muscles_targeted"] = muscles_targeted(models)
    current = {**current, "exercises": exercises, "summary": summary}
    await ctx.put_state(CURRENT_WORKOUT_KEY, current)

    displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
    workouts = displayables.setdefault("workouts", {})
    known = displayables.setdefault("exercises", {})
    workout_id = current.get("workout_id")
    if workout_id:
        entry = workouts.setdefault(workout_id, {"artifact_id": current.get("artifact_id")})
        entry["exercise_ids"] = [e["id"] for e in exercises]
        entry["metadata"] = {"title": current.get("title"), **summary}
    for ex in exercises:
        known[ex["id"]] = ex
    await ctx.put_state(DISPLAYABLES_KEY, displayables)

    artifact_id = current.get("artifact_id")
    if artifact_id:
        artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}
        artifact = artifacts.get(artifact_id)
        if artifact is not None:
            artifact["summary"] = {
                "exercise_count": summary["exercise_count"],
                "estimated_duration_min": summary["estimated_duration_min"],
                "muscles_targeted": summary["muscles_targeted"],
            }
            artifact["payload"] = {**artifact.get("payload", {}), "exercises": exercises, "summary": summary}
            await ctx.put_state(ARTIFACTS_KEY, artifacts)
