"""set_preference / delete_preference. A preference is permanent, expires at
`expires_at`, or is consumed by the next workout generation (`delete_after_use`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, field_validator

from trainer.domain.workout import STRICT_NUMBERS
from trainer.services.models import Preference as Preference
from trainer.services.models import PreferenceType as PreferenceType
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, day_text

SettablePreferenceType = Literal[
    "workout", "time", "equipment", "intensity", "muscle_group", "exercise", "goal", "recovery", "other"
]
"""Every preference type but `injury`: an injury has one tool of its own (trainer.tools.injuries)."""


class SetPreferenceArgs(BaseModel):
    model_config = STRICT_NUMBERS
    type: SettablePreferenceType = Field(description="Category of preference")
    description: str = Field(min_length=1, max_length=1000, description="What the user wants or doesn't want")
    guidance: str = Field(min_length=1, max_length=2000, description="How it changes the workouts you build")
    expires_at: datetime | None = Field(default=None, description="ISO timestamp it ends; omit otherwise")
    delete_after_use: bool = Field(default=False, description="True: for the next workout only")

    @field_validator("type", mode="before")
    @classmethod
    def _not_an_injury(cls, value: object) -> object:
        if value == "injury":
            raise ValueError("an injury is saved with record_injury")
        return value


class SetPreferenceResult(ToolResult):
    preference: Preference

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        pref = self.preference
        until = ""
        if pref.expires_at:
            until = f" until {day_text(pref.expires_at.date(), ctx.today)}"
        elif pref.delete_after_use:
            until = " for your next workout"
        match pref.type:
            case "exercise" if pref.description.startswith("Dislikes "):
                return f"Noted - no more {pref.description.removeprefix('Dislikes ')} in your workouts."
            case "intensity":
                return f"Noted - I'll keep it easy{until}."
        return f"Noted: {pref.description}{until}."


class SetPreference(Tool[SetPreferenceArgs, SetPreferenceResult]):
    name = "set_preference"
    can_finish = True
    description = (
        "Save a preference that shapes workouts (a dislike, time, equipment, intensity...): lasting, "
        "until expires_at, or for the next workout only (delete_after_use)."
    )
    Args = SetPreferenceArgs
    Result = SetPreferenceResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Saving your preference...", done="Preference saved"
    )
    category = "summary"

    async def execute(self, args: SetPreferenceArgs, ctx: ToolContext) -> SetPreferenceResult:
        preference = await ctx.user_data.preferences.create(
            type=args.type,
            description=args.description,
            guidance=args.guidance,
            expires_at=args.expires_at,
            delete_after_use=args.delete_after_use,
            now=ctx.now(),
        )
        return SetPreferenceResult(preference=preference)

    def format(self, result: SetPreferenceResult) -> str:
        pref = result.preference
        description = pref.description
        short = description if len(description) <= 50 else description[:49] + "…"
        if pref.delete_after_use:
            temporal = " (next workout only)"
        elif pref.expires_at:
            temporal = f" (until {pref.expires_at.date().isoformat()})"
        else:
            temporal = ""
        return f"saved: {pref.type} - {short}{temporal} id={pref.id}"


class DeletePreferenceArgs(BaseModel):
    model_config = STRICT_NUMBERS
    preference_id: str = Field(min_length=1, max_length=64, description="Its id (active_preferences)")


class DeletePreferenceResult(ToolResult):
    preference: Preference
    """The deleted preference."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return f"Removed the restriction '{self.preference.description}' - it no longer shapes your workouts."


class DeletePreference(Tool[DeletePreferenceArgs, DeletePreferenceResult]):
    name = "delete_preference"
    can_finish = True
    description = "Delete one of the user's preferences or injuries."
    Args = DeletePreferenceArgs
    Result = DeletePreferenceResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Removing preference...", done="Preference removed"
    )
    category = "confirmation"

    async def execute(self, args: DeletePreferenceArgs, ctx: ToolContext) -> DeletePreferenceResult:
        preference = await ctx.user_data.preferences.delete(args.preference_id)
        if preference is None:
            raise ToolError(f"preference {args.preference_id} not found")
        return DeletePreferenceResult(preference=preference)

    def format(self, result: DeletePreferenceResult) -> str:
        return "deleted"


async def consume_after_generation(ctx: ToolContext) -> list[Preference]:
    """Delete the user's delete_after_use preferences once a workout has been generated; returns them."""
    return await ctx.user_data.preferences.consume_one_shot()


TOOLS: list[AnyTool] = [SetPreference(), DeletePreference()]
