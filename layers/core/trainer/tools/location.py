"""set_current_location (seed 002 §6.6): by id or case-insensitive name; one current at a time."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trainer.store.repositories.locations import set_current
from trainer.tools.base import StatusMessage, Tool, ToolContext
from trainer.tools.data import db_user, number_text, plain, transaction

SUMMARY_ITEMS = 10


class SetCurrentLocationArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
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


class SetCurrentLocation(Tool):
    name = "set_current_location"
    description = (
        "Switch the user's active workout location (its equipment is what workouts may use). "
        "Give the location_id, or its name."
    )
    Args = SetCurrentLocationArgs
    status = StatusMessage(start="Switching location...", done="Location updated")
    category = "summary"

    async def execute(self, args: SetCurrentLocationArgs, ctx: ToolContext) -> dict[str, Any]:
        async with transaction(ctx) as conn:
            row = await set_current(
                conn, db_user(ctx), location_id=args.location_id or None, name=args.location_name
            )
        equipment = row["equipment"] or []
        location = {
            "id": str(row["id"]),
            "name": row["name"],
            "description": row["description"],
            "equipment_count": len(equipment),
            "equipment_summary": equipment_summary(equipment),
        }
        return {"success": True, "location": plain(location)}

    def format(self, result: dict[str, Any]) -> str:
        loc = result["location"]
        return (
            f"current location: {loc['name']} (id={loc['id']}); "
            f"{loc['equipment_count']} equipment: {loc['equipment_summary']}"
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


TOOLS: list[Tool] = [SetCurrentLocation()]
