"""The user's display units from chat: set_units ("use pounds from now on", "switch to miles"). Loads
and distances are stored with their own units, so only what the coach shows and prescribes changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolResult
from trainer.tools.wording import ReplyContext


class SetUnitsArgs(BaseModel):
    weight_unit: Literal["kg", "lbs"] | None = Field(default=None, description="Unit for loads from now on")
    distance_unit: Literal["km", "mi"] | None = Field(
        default=None, description="Unit for distances from now on"
    )

    @model_validator(mode="after")
    def _one_given(self) -> Self:
        if self.weight_unit is None and self.distance_unit is None:
            raise ValueError("give weight_unit or distance_unit")
        return self


class SetUnitsResult(ToolResult):
    weight_unit: str
    distance_unit: str
    changed: list[str]
    """The settings this call changed ('weight_unit', 'distance_unit'); empty when already so."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        if not self.changed:
            return f"You're already set to {self.weight_unit} and {self.distance_unit} - nothing to change."
        return (
            f"Done - from now on I'll give loads in {self.weight_unit} and distances in "
            f"{self.distance_unit}. "
            "What you've logged keeps its numbers; I only show them in the new units."
        )


class SetUnits(Tool[SetUnitsArgs, SetUnitsResult]):
    name = "set_units"
    can_finish = True
    description = "Change the user's units from now on (not for a one-off conversion)."
    Args = SetUnitsArgs
    Result = SetUnitsResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Changing your units...", done="Units updated"
    )
    category = "summary"

    async def execute(self, args: SetUnitsArgs, ctx: ToolContext) -> SetUnitsResult:
        before = await ctx.user_data.settings.get()
        after = await ctx.user_data.settings.update(
            weight_unit=args.weight_unit, distance_unit=args.distance_unit
        )
        changed = [
            name for name in ("weight_unit", "distance_unit") if getattr(before, name) != getattr(after, name)
        ]
        return SetUnitsResult(
            weight_unit=after.weight_unit, distance_unit=after.distance_unit, changed=changed
        )

    def format(self, result: SetUnitsResult) -> str:
        state = "changed: " + ", ".join(result.changed) if result.changed else "already so, nothing changed"
        return f"units now: loads in {result.weight_unit}, distances in {result.distance_unit} ({state})"


TOOLS: list[AnyTool] = [SetUnits()]
