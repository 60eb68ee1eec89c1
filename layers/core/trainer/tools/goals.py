"""set_goals: category goals with free names, muscle goals over the 16 canonical
muscles; percentages are normalised to 100% and the set of that type is replaced in one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.muscles import MUSCLES, canonical_muscle
from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, number_text


class CategoryGoalIn(BaseModel):
    model_config = STRICT_NUMBERS
    category: str = Field(
        min_length=1, max_length=80, description="Any name, e.g. 'Strength', 'Zone 2 Cardio'"
    )
    description: str | None = Field(default=None, max_length=500, description="What this category means")
    percentage: float = Field(ge=0, le=100, description="Its weight, 0-100")


class SetGoalsArgs(BaseModel):
    model_config = STRICT_NUMBERS
    goal_type: Literal["category", "muscle"] = Field(description="Which goal set to replace")
    category_goals: list[CategoryGoalIn] | None = Field(
        default=None, max_length=20, description="For goal_type 'category'"
    )
    muscle_goals: dict[str, Annotated[float, Field(ge=0, le=100)]] | None = Field(
        default=None,
        description="For goal_type 'muscle': {muscle: percentage}",
    )

    @model_validator(mode="after")
    def _matching_payload(self) -> Self:
        if self.goal_type == "category" and not self.category_goals:
            raise ValueError("category_goals is required when goal_type is 'category'")
        if self.goal_type == "muscle" and not self.muscle_goals:
            raise ValueError("muscle_goals is required when goal_type is 'muscle'")
        return self


class GoalEntry(BaseModel):
    """One saved goal: a category (with its description) or a muscle, as a percentage."""

    name: str
    description: str | None = None
    percentage: float


class SetGoalsResult(ToolResult):
    goal_type: Literal["category", "muscle"]
    count: int
    goals: list[GoalEntry] = Field(default_factory=list)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        parts = [f"{g.name} {number_text(g.percentage)}%" for g in self.goals]
        return f"Your goals now: {', '.join(parts)}."


class SetGoals(Tool[SetGoalsArgs, SetGoalsResult]):
    name = "set_goals"
    can_finish = True
    description = (
        "Replace the user's category goals or muscle goals (percentages, normalised to 100; category "
        "names are free)."
    )
    Args = SetGoalsArgs
    Result = SetGoalsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Updating your goals...", done="Goals updated"
    )
    category = "summary"

    async def execute(self, args: SetGoalsArgs, ctx: ToolContext) -> SetGoalsResult:
        if args.goal_type == "muscle":
            muscle_goals = _canonical_muscles(args.muscle_goals or {})
            rows = await ctx.user_data.goals.set_muscles(muscle_goals)
            goals = [GoalEntry(name=r["muscle"], percentage=_percent(r["weight"])) for r in rows]
        else:
            entries = args.category_goals or []
            if all(e.percentage == 0 for e in entries):
                raise ToolError("percentages must not all be zero")
            rows = await ctx.user_data.goals.set_categories([e.model_dump() for e in entries])
            goals = [
                GoalEntry(name=r["category"], description=r["description"], percentage=_percent(r["weight"]))
                for r in rows
            ]
        return SetGoalsResult(goal_type=args.goal_type, count=len(goals), goals=goals)

    def format(self, result: SetGoalsResult) -> str:
        noun = "categories" if result.goal_type == "category" else "muscles"
        parts = ", ".join(f"{g.name} {number_text(g.percentage)}%" for g in result.goals)
        return f"{result.count} {noun} updated: {parts}"


def _canonical_muscles(raw: dict[str, float]) -> dict[str, float]:
    unknown = [name for name in raw if canonical_muscle(name) is None]
    if unknown:
        raise ToolError(f"unknown muscle(s): {', '.join(unknown)}. Valid muscles: {', '.join(MUSCLES)}")
    goals: dict[str, float] = {}
    for name, value in raw.items():
        muscle = canonical_muscle(name)
        assert muscle is not None
        if muscle in goals:
            raise ToolError(f"muscle {muscle} is listed twice")
        if not 0 <= value <= 100:
            raise ToolError(f"percentage of {muscle} must be between 0 and 100")
        goals[muscle] = value
    if all(v == 0 for v in goals.values()):
        raise ToolError("percentages must not all be zero")
    return goals


def _percent(weight: Any) -> float:
    return round(float(weight) * 100, 1)


TOOLS: list[AnyTool] = [SetGoals()]
