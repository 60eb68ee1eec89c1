"""A user's change to a week or a day of their plan ("I'm travelling next week, hotel gym only"), and how
it changes what the week builder reads: the equipment (a saved location's, or a list), the session length,
the training days (the plan's day patterns moved onto the new days, in order) and what to leave out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from trainer.domain.equipment import available_equipment
from trainer.domain.weekdays import WEEKDAYS, Weekday
from trainer.programs.models import FitnessPlan, PlanInputs


class WeekChange(BaseModel):
    """What changes for a rebuilt week or day; unset fields keep the plan's."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    reason: str = Field(
        min_length=1, max_length=300, description="The user's words; kept in the plan's history"
    )
    location: str | None = Field(
        default=None, max_length=80, description="One of the user's saved locations (its equipment is used)"
    )
    equipment: list[str] | None = Field(
        default=None, max_length=40, description='Equipment available instead (["bodyweight"] = none)'
    )
    session_minutes: int | None = Field(default=None, ge=15, le=180)
    training_days: list[Weekday] | None = Field(
        default=None, min_length=1, max_length=7, description="Week changes only"
    )
    avoid: list[str] = Field(
        default_factory=list, max_length=10, description="Muscles, areas or exercises to leave out"
    )

    @field_validator("equipment", "avoid")
    @classmethod
    def _clean(cls, values: list[str] | None) -> list[str] | None:
        if values is None:
            return None
        cleaned = [v.strip()[:80] for v in values if isinstance(v, str) and v.strip()]
        return list(dict.fromkeys(cleaned))


class ChangeError(ValueError):
    """The change cannot apply (an unknown location)."""


def find_location(locations: Sequence[Mapping[str, Any]], name: str) -> Mapping[str, Any]:
    wanted = name.strip().casefold()
    for location in locations:
        if str(location.get("name") or "").strip().casefold() == wanted:
            return location
    known = ", ".join(str(loc.get("name")) for loc in locations) or "none saved"
    raise ChangeError(f"No saved location is called {name!r} (yours: {known}).")


def change_preferences(change: WeekChange) -> list[dict[str, Any]]:
    """The change as temporary preferences the exercise rules read (they win over permanent ones)."""
    prefs: list[dict[str, Any]] = [
        {"type": "workout", "description": f"Avoid {item}", "temporary": True} for item in change.avoid
    ]
    if change.session_minutes is not None:
        prefs.append(
            {
                "type": "time",
                "description": f"{change.session_minutes} minutes per session",
                "temporary": True,
            }
        )
    return prefs


def apply_change(
    inputs: PlanInputs, change: WeekChange, location: Mapping[str, Any] | None = None
) -> PlanInputs:
    """The builder's inputs under the change: `location` is the saved location `change.location` names."""
    update: dict[str, Any] = {}
    if location is not None:
        items = [dict(i) for i in location.get("equipment") or [] if isinstance(i, Mapping)]
        update["equipment"] = sorted(available_equipment(location.get("equipment") or []))
        update["location_items"] = items
        update["location_name"] = location.get("name")
    if change.equipment is not None:
        update["equipment"] = sorted(available_equipment(change.equipment))
        update["location_items"] = []
        update["location_name"] = None
    if change.session_minutes is not None:
        update["session_minutes"] = change.session_minutes
    if change.training_days is not None:
        update["training_days"] = [d for d in WEEKDAYS if d in change.training_days]
    extra = change_preferences(change)
    if extra:
        update["preferences"] = [*inputs.preferences, *extra]
    return inputs.model_copy(update=update)


def plan_on_days(plan: FitnessPlan, days: Sequence[Weekday]) -> FitnessPlan:
    """The plan with its training days moved onto `days`: each phase's day patterns in weekday order are
    given to the new days in order (cycling when there are more new days, the last dropped when fewer)."""
    ordered = [d for d in WEEKDAYS if d in set(days)]
    if not ordered or ordered == [d for d in WEEKDAYS if d in set(plan.training_days)]:
        return plan
    cycles = []
    for cycle in plan.microcycles:
        patterns = sorted(cycle.weekly_pattern, key=lambda p: WEEKDAYS.index(p.weekday))
        moved = [
            patterns[i % len(patterns)].model_copy(update={"weekday": day}) for i, day in enumerate(ordered)
        ]
        cycles.append(cycle.model_copy(update={"weekly_pattern": moved}))
    return plan.model_copy(update={"training_days": ordered, "microcycles": cycles})


def change_summary(change: WeekChange, what: str) -> str:
    """The modification history line: what was rebuilt and the user's reason."""
    return f"{what} rebuilt: {change.reason}"[:300]
