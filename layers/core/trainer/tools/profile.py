"""update_profile (docs/api.md#onboarding-and-profile): the profile facts a user gives in conversation - age,
sex, experience, body weight, height, goals in words, training days, session length, injuries or none - saved
through the same user-data services as the profile route (`PATCH /me/profile`), in one transaction. The result
says what was saved, what is still unknown, and the one question to ask next with its options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.onboarding import BY_FIELD, missing_fields, next_question
from trainer.domain.units import convert_weight
from trainer.domain.workout import STRICT_NUMBERS
from trainer.services.settings import normalise_weekdays
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolResult
from trainer.tools.data import number_text
from trainer.tools.wording import ReplyContext


class UpdateProfileArgs(BaseModel):
    model_config = STRICT_NUMBERS
    age: int | None = Field(default=None, ge=13, le=110, description="Age in whole years")
    sex: Literal["male", "female", "other"] | None = Field(default=None, description="As the user says")
    experience: Literal["beginner", "intermediate", "advanced"] | None = Field(
        default=None, description="beginner: under a year of regular training; advanced: 3+ years"
    )
    body_weight: float | None = Field(default=None, gt=0, lt=1500, description="In body_weight_unit")
    body_weight_unit: Literal["kg", "lbs"] | None = Field(
        default=None, description="Unit of body_weight; omit for the user's weight unit"
    )
    height_cm: float | None = Field(default=None, gt=50, lt=260, description="Height in cm")
    goals: str | None = Field(
        default=None, min_length=1, max_length=500, description="The user's goals in their own words"
    )
    available_days: list[Annotated[str, Field(max_length=12)]] | None = Field(
        default=None, min_length=1, max_length=7, description="Weekday names they can train on"
    )
    session_minutes: int | None = Field(default=None, ge=15, le=180, description="Usual session length")
    no_injuries: bool | None = Field(
        default=None, description="True when the user says they have no injuries or limitations"
    )

    @model_validator(mode="after")
    def _something(self) -> Self:
        if not self.model_dump(exclude_none=True, exclude={"body_weight_unit"}):
            raise ValueError("give at least one profile fact")
        return self


class NextQuestion(BaseModel):
    field: str
    question: str
    options: list[str] = Field(default_factory=list)


class UpdateProfileResult(ToolResult):
    saved: list[str]
    """What changed, in words ('age 34', 'body weight 82 kg', 'training days Monday, Wednesday')."""
    still_missing: list[str] = Field(default_factory=list)
    next_question: NextQuestion | None = None

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return f"Saved to your profile: {'; '.join(self.saved)}."


class UpdateProfile(Tool[UpdateProfileArgs, UpdateProfileResult]):
    name = "update_profile"
    description = (
        "Save profile facts the user tells you (age, sex, experience, body weight, height, goals in their "
        "words, training days, session length, no injuries); the result names the next question."
    )
    Args = UpdateProfileArgs
    Result = UpdateProfileResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Saving your profile...", done="Profile saved"
    )
    category = "summary"

    async def execute(self, args: UpdateProfileArgs, ctx: ToolContext) -> UpdateProfileResult:
        days = normalise_weekdays(args.available_days) if args.available_days else None
        data = ctx.user_data
        async with data.transaction() as tx:
            unit = args.body_weight_unit or (await tx.settings.get()).weight_unit
            fields = args.model_dump(
                include={"age", "sex", "experience", "height_cm", "session_minutes"}, exclude_none=True
            )
            saved = [_said(name, value) for name, value in fields.items()]
            if args.body_weight is not None:
                fields["weight_kg"] = round(convert_weight(args.body_weight, unit, "kg"), 1)
                saved.append(f"body weight {number_text(args.body_weight)} {unit}")
            if args.goals is not None:
                fields["goal_statement"] = args.goals
                saved.append(f'goals "{" ".join(args.goals.split())}"')
            if args.no_injuries:
                fields["no_limitations"] = True
                saved.append("no injuries or limitations")
            profile = await tx.profile.update(**fields)
            if days is not None:
                await tx.settings.update(preferred_days=days)
                saved.append("training days " + ", ".join(days))
            settings = await tx.settings.get()
            injuries = [p for p in await tx.preferences.active(ctx.now()) if p["type"] == "injury"]
        missing = missing_fields(profile, settings.preferred_days, len(injuries))
        question = next_question(missing)
        return UpdateProfileResult(
            saved=saved,
            still_missing=[BY_FIELD[name].label for name in missing],
            next_question=NextQuestion(
                field=question.field, question=question.question, options=list(question.options)
            )
            if question
            else None,
        )

    def format(self, result: UpdateProfileResult) -> str:
        text = "saved: " + "; ".join(result.saved)
        if result.next_question is None:
            return text + "; the profile is complete"
        ask = result.next_question
        options = f" (options: {' | '.join(ask.options)})" if ask.options else ""
        unknown = ", ".join(result.still_missing)
        return f"{text}; still unknown: {unknown}; next question: {ask.question}{options}"


def _said(name: str, value: object) -> str:
    match name:
        case "age":
            return f"age {value}"
        case "session_minutes":
            return f"sessions of {value} minutes"
        case "height_cm":
            return f"height {number_text(float(value))} cm"  # type: ignore[arg-type]
        case "experience":
            return f"experience {value}"
    return f"{name} {value}"


TOOLS: list[AnyTool] = [UpdateProfile()]
