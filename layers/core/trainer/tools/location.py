"""Locations from chat: set_current_location (by id or case-insensitive name; one current
at a time), create_location and update_location with their equipment, plates, bar and dumbbell pairs
(stored as equipment items with weights, which the load rounding reads: trainer.domain.progression)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.equipment import normalise_equipment
from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, joined

SUMMARY_ITEMS = 10


class SetCurrentLocationArgs(BaseModel):
    model_config = STRICT_NUMBERS
    location_id: str | None = Field(default=None, max_length=64, description="The location's id (preferred)")
    location_name: str | None = Field(
        default=None, max_length=100, description="Its name, when the id is unknown"
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

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        location = self.location
        return f"Switched your location to {location.name} ({location.equipment_summary})."


class SetCurrentLocation(Tool[SetCurrentLocationArgs, SetCurrentLocationResult]):
    name = "set_current_location"
    can_finish = True
    description = "Switch the user's current location: its equipment is what workouts may use."
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
            span = f"{low:g}" if low == high else f"{low:g}-{high:g}"
            parts.append(f"{item['name']} {span}{item.get('unit', 'kg')}")
        else:
            parts.append(str(item["name"]))
    extra = len(items) - SUMMARY_ITEMS
    return ", ".join(parts) + (f" and {extra} more" if extra > 0 else "")


DUMBBELL_PAIR_STEP: dict[str, float] = {"kg": 2.5, "lbs": 5.0}
"""The steps of a standard dumbbell rack, for 'dumbbells up to 25 kg'."""
Weight = float


class LocationLoads(BaseModel):
    """What carries load at a location, all in `unit`."""

    model_config = STRICT_NUMBERS
    unit: Literal["kg", "lbs"] | None = Field(
        default=None, description="Of every weight here (default: the user's)"
    )
    bar_weight: float | None = Field(default=None, gt=0, le=50, description="The barbell's own weight")
    plates: list[Weight] | None = Field(
        default=None,
        max_length=20,
        description="The plate weights (each used in pairs)",
    )
    dumbbells: list[Weight] | None = Field(
        default=None, max_length=60, description="The dumbbell pairs' weights"
    )
    dumbbells_up_to: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="Instead of dumbbells: a standard rack up to this weight",
    )


class CreateLocationArgs(LocationLoads):
    name: str = Field(min_length=1, max_length=100, description="e.g. 'Hotel Gym'")
    description: str | None = Field(default=None, max_length=1000, description="The user's words about it")
    equipment: list[str] = Field(
        default_factory=list, max_length=40, description="Equipment names; [] for none"
    )
    make_current: bool = Field(default=True, description="Switch to it now (the usual case)")


class UpdateLocationArgs(LocationLoads):
    location_name: str | None = Field(
        default=None, max_length=100, description="Which location (default: the current one)"
    )
    new_name: str | None = Field(default=None, max_length=100, description="To rename it")
    add_equipment: list[str] = Field(
        default_factory=list, max_length=40, description="Equipment names to add"
    )
    remove_equipment: list[str] = Field(
        default_factory=list, max_length=40, description="Equipment names to remove"
    )


class SavedLocation(CurrentLocation):
    is_current: bool
    created: bool


class LocationResult(ToolResult):
    location: SavedLocation

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        saved = self.location
        if saved.created:
            return (
                f"{saved.name} is your new location, and your current one: {saved.equipment_summary}. "
                "Workouts here use only that equipment, with loads you can actually set up."
            )
        return f"{equipment_edit(arguments)}{saved.name} now has: {saved.equipment_summary}."


def equipment_edit(arguments: Mapping[str, Any]) -> str:
    """'Added kettlebell. ' / 'Removed treadmill. ': what an edit of a location asked for."""
    parts = []
    if arguments.get("add_equipment"):
        parts.append(f"Added {joined([str(n) for n in arguments['add_equipment']])}.")
    if arguments.get("remove_equipment"):
        parts.append(f"Removed {joined([str(n) for n in arguments['remove_equipment']])}.")
    return " ".join(parts) + (" " if parts else "")


def dumbbell_rack(up_to: float, unit: str) -> list[float]:
    step = DUMBBELL_PAIR_STEP[unit]
    count = int(up_to / step + 1e-9)
    return [round(step * i, 2) for i in range(1, count + 1)]


def load_items(loads: LocationLoads, unit: str) -> list[dict[str, Any]]:
    """The weighted equipment items the loads describe (Barbell, Weight Plates, Dumbbells)."""
    items: list[dict[str, Any]] = []
    if loads.bar_weight is not None or loads.plates:
        bar = loads.bar_weight if loads.bar_weight is not None else (20.0 if unit == "kg" else 45.0)
        items.append({"name": "Barbell", "weights": [bar], "unit": unit})
    if loads.plates:
        items.append({"name": "Weight Plates", "weights": sorted(set(loads.plates)), "unit": unit})
    pairs = list(loads.dumbbells or [])
    if loads.dumbbells_up_to is not None:
        pairs += dumbbell_rack(loads.dumbbells_up_to, unit)
    if pairs:
        items.append({"name": "Dumbbells", "weights": sorted(set(pairs)), "unit": unit})
    return items


def merged_equipment(
    existing: list[dict[str, Any]], add: list[str], remove: list[str], loaded: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The existing items minus `remove`, plus `add`; a weighted item replaces one of the same kind."""
    gone = {normalise_equipment(n) for n in remove}
    replaced = {_kind(i["name"]) for i in loaded}
    kept = [i for i in existing if _kind(i["name"]) not in gone | replaced]
    names = {_kind(i["name"]) for i in kept}
    for name in add:
        if _kind(name) not in names and _kind(name) not in replaced:
            kept.append({"name": name})
            names.add(_kind(name))
    return kept + loaded


def _kind(name: str) -> str:
    return "plate" if "plate" in name.lower() else normalise_equipment(name)


async def _user_unit(ctx: ToolContext) -> str:
    return (await ctx.user_data.settings.get()).weight_unit


def _saved(row: dict[str, Any], created: bool) -> SavedLocation:
    equipment = row["equipment"] or []
    return SavedLocation(
        id=str(row["id"]),
        name=row["name"],
        description=row["description"],
        equipment_count=len(equipment),
        equipment_summary=equipment_summary(equipment),
        is_current=bool(row["is_current"]),
        created=created,
    )


class CreateLocation(Tool[CreateLocationArgs, LocationResult]):
    name = "create_location"
    can_finish = True
    description = (
        "Save a new workout location: its equipment and the weights it has (bar, plates, dumbbells), to "
        "which prescribed loads are rounded."
    )
    Args = CreateLocationArgs
    Result = LocationResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Saving the location...", done="Location saved"
    )
    category = "summary"

    async def execute(self, args: CreateLocationArgs, ctx: ToolContext) -> LocationResult:
        unit = args.unit or await _user_unit(ctx)
        loaded = load_items(args, unit)
        equipment = merged_equipment([], args.equipment, [], loaded)
        row = await ctx.user_data.locations.create(
            args.name.strip(),
            description=args.description,
            equipment=equipment,
            make_current=args.make_current,
        )
        return LocationResult(location=_saved(row, created=True))

    def format(self, result: LocationResult) -> str:
        loc = result.location
        current = " (now current)" if loc.is_current else ""
        return f"created location {loc.name} (id={loc.id}){current}; equipment: {loc.equipment_summary}"


class UpdateLocation(Tool[UpdateLocationArgs, LocationResult]):
    name = "update_location"
    can_finish = True
    description = (
        "Edit a saved location: rename it, add or remove equipment, or replace its bar, plates or dumbbells."
    )
    Args = UpdateLocationArgs
    Result = LocationResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Updating the location...", done="Location updated"
    )
    category = "summary"

    async def execute(self, args: UpdateLocationArgs, ctx: ToolContext) -> LocationResult:
        data = ctx.user_data
        if args.location_name and args.location_name.strip():
            rows = await data.locations.all()
            wanted = args.location_name.strip().lower()
            row = next((r for r in rows if r["name"].lower() == wanted), None) or next(
                (r for r in rows if wanted in r["name"].lower()), None
            )
        else:
            row = await data.locations.current()
        if row is None:
            raise ToolError("no such location - create it first (create_location)")
        unit = args.unit or await _user_unit(ctx)
        loaded = load_items(args, unit)
        equipment = merged_equipment(
            list(row["equipment"] or []), args.add_equipment, args.remove_equipment, loaded
        )
        changes: dict[str, Any] = {"equipment": equipment}
        if args.new_name is not None:
            changes["name"] = args.new_name
        updated = await data.locations.update(row["id"], **changes)
        if updated is None:
            raise ToolError("That location no longer exists.")
        return LocationResult(location=_saved(updated, created=False))

    def format(self, result: LocationResult) -> str:
        loc = result.location
        return f"updated location {loc.name} (id={loc.id}); equipment: {loc.equipment_summary}"


TOOLS: list[AnyTool] = [SetCurrentLocation(), CreateLocation(), UpdateLocation()]
