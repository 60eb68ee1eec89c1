"""Progressive overload: the next load from the last session, rounded to practical plate jumps."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trainer.domain.recovery import as_utc
from trainer.domain.units import LOAD_INCREMENT, convert_weight, round_load, round_to_increment, weight_unit

STEP_FRACTION = 0.05
"""A modest step: +5% of the last successful load, at least one plate increment."""
DELOAD_FRACTION = 0.9
"""After repeated failures the load drops by 10%."""
FAILURE_RPE = 9.5

STARTING_LOADS: dict[str, dict[str, float]] = {
    "barbell": {"kg": 20.0, "lbs": 45.0},
    "ez curl bar": {"kg": 10.0, "lbs": 25.0},
    "dumbbell": {"kg": 5.0, "lbs": 10.0},
    "kettlebell": {"kg": 8.0, "lbs": 15.0},
    "cable": {"kg": 10.0, "lbs": 20.0},
    "machine": {"kg": 15.0, "lbs": 30.0},
    "smith machine": {"kg": 15.0, "lbs": 30.0},
    "medicine ball": {"kg": 4.0, "lbs": 10.0},
}
"""Conservative first loads for a beginner on equipment that takes a load."""
LEVEL_FACTOR: dict[str, float] = {"beginner": 1.0, "intermediate": 1.5, "expert": 2.0}


def next_load(
    last_load: float | None, unit: str, success: bool, *, consecutive_failures: int = 1
) -> float | None:
    """The load to prescribe next. Success: last + max(5%, one increment). A failure keeps the
    load; two or more failures in a row deload by 10%. Bodyweight (None) stays None."""
    if last_load is None:
        return None
    u = weight_unit(unit)
    increment = LOAD_INCREMENT[u]
    if last_load <= 0:
        return 0.0
    if success:
        step = max(increment, round_to_increment(last_load * STEP_FRACTION, increment))
        return round_load(round_to_increment(last_load, increment) + step, u)
    if consecutive_failures >= 2:
        return max(increment, round_load(last_load * DELOAD_FRACTION, u))
    return max(increment, round_load(last_load, u))


def was_successful(row: Mapping[str, Any], target_reps: list[int] | None = None) -> bool:
    """A set scheme failed when a target was missed or the effort was near maximal (RPE >= 9.5)."""
    rpe = row.get("rpe")
    if rpe is not None and float(rpe) >= FAILURE_RPE:
        return False
    done = reps_list(row)
    if target_reps and done:
        return len(done) >= len(target_reps) and all(d >= t for d, t in zip(done, target_reps, strict=False))
    return True


def reps_list(row: Mapping[str, Any]) -> list[int]:
    reps = row.get("reps")
    if reps is None:
        return []
    if isinstance(reps, int | float):
        return [int(reps)] * int(row.get("sets") or 1)
    return [int(r) for r in reps]


def row_load(row: Mapping[str, Any], unit: str) -> float | None:
    """The heaviest load of a history row, in `unit` (None for bodyweight)."""
    loads = row.get("load_each")
    if loads is None and row.get("load") is not None:
        loads = [row["load"]]
    values = [float(v) for v in loads or [] if v is not None]
    if not values or max(values) <= 0:
        return None
    return convert_weight(max(values), row.get("load_unit") or unit, unit)


@dataclass(frozen=True, slots=True)
class LoadSuggestion:
    load: float
    unit: str
    last_load: float
    success: bool


def suggest_from_history(
    history: Iterable[Mapping[str, Any]], exercise_name: str, unit: str
) -> LoadSuggestion | None:
    """Next load for `exercise_name` (case-insensitive) from its most recent loaded sessions."""
    u = weight_unit(unit)
    key = exercise_name.strip().lower()
    rows = [r for r in history if str(r.get("exercise_name", "")).strip().lower() == key]
    rows = [r for r in rows if row_load(r, u) is not None and r.get("performed_at") is not None]
    if not rows:
        return None
    rows.sort(key=lambda r: as_utc(r["performed_at"]), reverse=True)
    failures = 0
    for r in rows:
        if was_successful(r):
            break
        failures += 1
    last = row_load(rows[0], u)
    assert last is not None
    success = failures == 0
    load = next_load(last, u, success, consecutive_failures=failures)
    assert load is not None
    return LoadSuggestion(load=load, unit=u, last_load=round(last, 2), success=success)


def starting_load(equipment: Iterable[str], level: str, unit: str) -> float | None:
    """Conservative first load for a new exercise, or None when it takes no external load."""
    u = weight_unit(unit)
    loads = [STARTING_LOADS[e][u] for e in equipment if e in STARTING_LOADS]
    if not loads:
        return None
    base = max(loads) * LEVEL_FACTOR.get(level, 1.0)
    return max(LOAD_INCREMENT[u], round_load(base, u))
