"""The exercises the chat model writes for generate_workout, swap_exercise and add_exercise_to_workout.

An exercise's muscle shares and goal shares are numbers the code already knows for a catalogue exercise
(the entry's muscles, the goal of its category), and output tokens are the dearest a turn spends: so on
these tools' arguments both lists may be left out for an exercise whose name resolves to a catalogue
entry (the resolution log_completed_exercise uses), and the tool fills them before it builds the domain
`Exercise`, which keeps both required (stored workouts, artifacts and the app's workout always carry them).
Lists the model gives are used as given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from pydantic import BaseModel, Field, PrivateAttr, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.domain.composer.goals import goal_shares
from trainer.domain.workout import (
    STRICT_NUMBERS,
    ExerciseFields,
    GoalShare,
    MuscleShare,
    Workout,
    WorkoutSummary,
    field_problems,
    order_problems,
    share_problems,
)
from trainer.tools.base import ToolContext, ToolError, validation_summary
from trainer.tools.catalog_match import CATALOG_CATEGORY_GOALS, TYPE_GOALS, catalog_entry

FILLED_FROM_CATALOGUE = "Only for an exercise the catalogue lacks; shares sum to 1"


def catalogue_muscles(entry: CatalogEntry) -> list[dict[str, Any]]:
    return [{"muscle": m, "share": s} for m, s in entry.muscles]


def catalogue_goals(
    entry: CatalogEntry, exercise_type: str, goals: Mapping[str, float] | None = None
) -> list[dict[str, Any]]:
    """The user's goals this exercise serves, as shares (the offline composer's rule), so the goal
    distribution counts it under the user's own categories; its catalogue category's goal when the
    user has none."""
    if goals:
        return [{"goal": goal, "share": share} for goal, share in goal_shares(entry, goals)]
    goal = CATALOG_CATEGORY_GOALS.get(entry.category) or TYPE_GOALS[exercise_type]
    return [{"goal": goal, "share": 1.0}]


async def user_goal_weights(ctx: ToolContext, exercises: Sequence[ExerciseInput]) -> dict[str, float]:
    """The user's category goals (name -> weight), read only when an exercise leaves its goals to the
    catalogue; {} without a database or goals."""
    if ctx.db is None or all(e.goals_addressed is not None for e in exercises):
        return {}
    return await ctx.user_data.goals.category_weights()


def not_in_catalogue(name: str) -> str:
    """The problem of an exercise without muscles or goals whose name the catalogue does not know."""
    similar = ", ".join(e.name for e in load_catalog().search(name, limit=5))
    hint = f" (similar catalogue names: {similar})" if similar else ""
    return f"'{name}' is not in the exercise catalogue{hint}: give both muscles_utilized and goals_addressed"


class ExerciseInput(ExerciseFields):
    """One exercise, with the fields of its exercise_type."""

    # `Exercise` as the model writes it (the docstring is the model's, as Exercise's is): muscles_utilized
    # and goals_addressed optional for a catalogue exercise; `filled()` adds the catalogue's.

    muscles_utilized: list[MuscleShare] | None = Field(  # type: ignore[assignment]
        default=None, min_length=1, description=FILLED_FROM_CATALOGUE
    )
    goals_addressed: list[GoalShare] | None = Field(  # type: ignore[assignment]
        default=None, min_length=1, description=FILLED_FROM_CATALOGUE
    )
    reasoning: str = Field(min_length=1, max_length=300, description="Why this exercise, in a sentence")
    id: SkipJsonSchema[str | None] = Field(default=None, max_length=64)
    """Assigned by the server: not in the schema the model is sent (the system prompt says never to send
    one); validated when it comes."""
    completed: SkipJsonSchema[bool] = False
    """Set by the server when an exercise is logged: not in the schema the model is sent."""

    _entry: CatalogEntry | None = PrivateAttr(default=None)
    """The catalogue entry the name resolves to, looked up once, when a list is left to it."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        problems = field_problems(self) + share_problems(self.muscles_utilized, self.goals_addressed)
        if self._catalogue_needed():
            self._entry = catalog_entry(self.exercise_name)
            if self._entry is None:
                problems.append(not_in_catalogue(self.exercise_name))
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _catalogue_needed(self) -> bool:
        return self.muscles_utilized is None or self.goals_addressed is None

    def filled(self, goals: Mapping[str, float] | None = None) -> dict[str, Any]:
        """The exercise as JSON (None fields left out) with both lists: the catalogue's where not given
        (its goals as shares of the user's `goals`, when they have some)."""
        data = self.model_dump(mode="json", exclude_none=True)
        if self._catalogue_needed():
            entry = self._entry
            if entry is None:  # validated, so only an instance built without validation
                raise ToolError(not_in_catalogue(self.exercise_name))
            data.setdefault("muscles_utilized", catalogue_muscles(entry))
            data.setdefault("goals_addressed", catalogue_goals(entry, self.exercise_type, goals))
        return data


class WorkoutInput(BaseModel):
    # A workout as the model writes it for generate_workout: `Workout` of `ExerciseInput`s (no docstring:
    # it would be sent to the model, as Workout sends none).
    model_config = STRICT_NUMBERS
    title: str | None = Field(default=None, max_length=120)
    exercises: list[ExerciseInput] = Field(min_length=1, max_length=30)
    summary: SkipJsonSchema[WorkoutSummary | None] = None
    """Computed by the server from the exercises (duration, muscles) when not given: not in the schema
    the model is sent, its output tokens being the dearest."""

    @model_validator(mode="after")
    def _check_order_and_groups(self) -> Self:
        problems = order_problems(self.exercises)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def to_workout(self, goals: Mapping[str, float] | None = None) -> Workout:
        """The domain workout, every exercise with its muscles and goals."""
        try:
            exercises = [e.filled(goals) for e in self.exercises]
            return Workout(title=self.title, exercises=exercises, summary=self.summary)
        except ValidationError as exc:
            raise ToolError(f"Invalid workout: {validation_summary(exc)}") from exc
