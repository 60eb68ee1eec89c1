"""set_current_location (seed 002 §6.6): by id or case-insensitive name; one current at a time."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolResult
from trainer.tools.data import number_text

SUMMARY_ITEMS = 10


class SetCurrentLocationArgs(BaseModel):
    model_config = STRICT_NUMBERS
    location_id: str | None = Field(
        default=None, max_length=64, description="UUID of the location (preferred)"
    )
    location_name: str | None = Field(
        default=None, max_length=100, description="Location name (case-insensitive) when the id is unknown"
    )

    @model_validator(mode="after")
    def _one_given(self) -> Self:
        if not (self.location_id or (self.location_name and self.location_name.strip())):
            raise ValueError("give location_id or location_name")
        return self


class CurrentLocation(BaseModel):
    """The location that is now current, with its equipment summarised."""

    id: str
    name: str
    description: str | None = None
    equipment_count: int
    equipment_summary: str


class SetCurrentLocationResult(ToolResult):
    location: CurrentLocation


class SetCurrentLocation(Tool[SetCurrentLocationArgs, SetCurrentLocationResult]):
    name = "set_current_location"
    description = (
        "Switch the user's active workout location (its equipment is what workouts may use). "
        "Give the location_id, or its name."
    )
    Args = SetCurrentLocationArgs
    Result = SetCurrentLocationResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Switching location...", done="Location updated"
    )
    category = "summary"

    async def execute(self, args: SetCurrentLocationArgs, ctx: ToolContext) -> SetCurrentLocationResult:
        row = await ctx.user_data.locations.set_current(
            location_id=args.location_id or None, name=args.location_name
        )
        equipment = row["equipment"] or []
        location = CurrentLocation(
            id=str(row["id"]),
            name=row["name"],
            description=row["description"],
            equipment_count=len(equipment),
            equipment_summary=equipment_summary(equipment),
        )
        return SetCurrentLocationResult(location=location)

    def format(self, result: SetCurrentLocationResult) -> str:
        loc = result.location
        return (
            f"current location: {loc.name} (id={loc.id}); "
            f"{loc.equipment_count} equipment: {loc.equipment_summary}"
        )


def equipment_summary(items: list[dict[str, Any]]) -> str:
    """'Barbell, Dumbbells 5-50kg, Bench' — at most SUMMARY_ITEMS names, then 'and N more'."""
    if not items:
        return "bodyweight only"
    parts: list[str] = []
    for item in items[:SUMMARY_ITEMS]:
        weights = item.get("weights") or []
        if weights:
            low, high = min(weights), max(weights)
            span = number_text(low) if low == high else f"{number_text(low)}-{number_text(high)}"
            parts.append(f"{item['name']} {span}{item.get('unit', 'kg')}")
        else:
            parts.append(str(item["name"]))
    extra = len(items) - SUMMARY_ITEMS
    return ", ".join(parts) + (f" and {extra} more" if extra > 0 else "")


TOOLS: list[AnyTool] = [SetCurrentLocation()]
