"""A training day's warm-up (easy cardio and dynamic moves for the day's main muscles) and cool-down
(static stretches), the draft's choices where they are allowed, filled to 5-10 and 3-5 minutes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from trainer.domain.catalog import CatalogEntry
from trainer.domain.timers import exercise_timer
from trainer.programs.selection import (
    Constraints,
    allowed,
    pool,
    resolve,
)

WARMUP_CARDIO_MIN = 5
WARMUP_MIN_SEC = 5 * 60
COOLDOWN_MIN_SEC = 3 * 60
"""A warm-up lasts 5-10 minutes and a cool-down 3-5 (the plan budgets 6 and 4)."""
MAX_EASY_SETS = 4
EASY_SET_REST_SEC = 15
WARMUP_GROUP = {"id": "warmup", "type": "warmup"}
COOLDOWN_GROUP = {"id": "cooldown", "type": "cooldown"}


def _stretches(rules: Constraints, blocked: frozenset[str], *, static: bool) -> list[CatalogEntry]:
    return [
        e
        for e in pool(rules)
        if e.category == "stretching"
        and (e.force == "static") == static
        and e.level == "beginner"
        and allowed(e, rules, blocked)
    ]


def _for_muscles(entries: Sequence[CatalogEntry], muscles: Sequence[str], count: int) -> list[CatalogEntry]:
    picked: list[CatalogEntry] = []
    for muscle in muscles:
        matches = sorted(
            (e for e in entries if e.primary_muscle == muscle and e not in picked),
            key=lambda e: (
                -len([m for m, s in e.muscles if m in muscles and s >= 0.2]),
                bool(e.equipment),
                e.name,
            ),
        )
        if matches:
            picked.append(matches[0])
        if len(picked) >= count:
            break
    return picked


def _warmup_cardio(rules: Constraints, blocked: frozenset[str]) -> CatalogEntry | None:
    preferred = (
        "Walking, Treadmill",
        "Bicycling, Stationary",
        "Rowing, Stationary",
        "Elliptical Trainer",
        "Jogging, Treadmill",
        "Rope Jumping",
        "Recumbent Bike",
    )
    options = {e.name: e for e in pool(rules) if e.category == "cardio" and allowed(e, rules, blocked)}
    return next((options[n] for n in preferred if n in options), None)


def _resolved(names: Iterable[str], rules: Constraints, blocked: frozenset[str]) -> list[CatalogEntry]:
    found: list[CatalogEntry] = []
    for name in names:
        entry = resolve(name)
        if entry is not None and entry not in found and allowed(entry, rules, blocked):
            found.append(entry)
    return found


def _topped_up(chosen: list[CatalogEntry], default: list[CatalogEntry]) -> list[CatalogEntry]:
    """The draft's choice when it names two or more (or a cardio warm-up), else with the defaults."""
    if len(chosen) >= 2 or any(e.category == "cardio" for e in chosen):
        return chosen
    return (chosen + [e for e in default if e not in chosen])[: max(3, len(chosen))]


def warmup_entries(
    muscles: Sequence[str], rules: Constraints, blocked: frozenset[str], requested: Sequence[str] = ()
) -> list[CatalogEntry]:
    """The draft's warm-up when it names allowed exercises (one cardio at most), else 5 minutes of easy
    cardio and dynamic moves for the day's main muscles."""
    chosen: list[CatalogEntry] = []
    for entry in _resolved(requested, rules, blocked)[:4]:
        if entry.category != "cardio" or not any(e.category == "cardio" for e in chosen):
            chosen.append(entry)
    cardio = _warmup_cardio(rules, blocked)
    dynamic = _for_muscles(_stretches(rules, blocked, static=False), muscles, 2 if cardio else 3)
    return _topped_up(chosen, ([cardio] if cardio else []) + dynamic)


def cooldown_entries(
    muscles: Sequence[str], rules: Constraints, blocked: frozenset[str], requested: Sequence[str] = ()
) -> list[CatalogEntry]:
    chosen = _resolved(requested, rules, blocked)[:4]
    return _topped_up(chosen, _for_muscles(_stretches(rules, blocked, static=True), muscles, 3))


def warmup_fields(entry: CatalogEntry) -> dict[str, Any]:
    if entry.category == "cardio":
        return {"exercise_type": "duration", "duration_min": float(WARMUP_CARDIO_MIN)}
    if entry.force == "static":
        return {"exercise_type": "hold", "sets": 1, "hold_sec": [30], "rest_sec": 0}
    return {"exercise_type": "reps", "sets": 1, "reps": [10], "rest_sec": 0}


def cooldown_fields(entry: CatalogEntry) -> dict[str, Any]:
    return {"exercise_type": "hold", "sets": 1, "hold_sec": [30], "rest_sec": 0}


def filled_to(
    entries: Sequence[CatalogEntry], fields: list[dict[str, Any]], seconds: int
) -> list[dict[str, Any]]:
    """The prescriptions with a set added to the moves and stretches in turn (never to cardio, at most
    MAX_EASY_SETS each) until they last `seconds` on the workout timer: a 5-10 minute warm-up
    and 3-5 minute cool-down, whatever the equipment and the draft's choice of names."""
    filled = [dict(f) for f in fields]

    def total() -> int:
        return sum(
            exercise_timer({"exercise_name": e.name, **f}).total_duration_sec
            for e, f in zip(entries, filled, strict=True)
        )

    while total() < seconds:
        growable = [f for f in filled if f["exercise_type"] != "duration" and f["sets"] < MAX_EASY_SETS]
        if not growable:
            break
        grown = min(growable, key=lambda f: f["sets"])
        key = "reps" if grown["exercise_type"] == "reps" else "hold_sec"
        grown.update(
            sets=grown["sets"] + 1, rest_sec=EASY_SET_REST_SEC, **{key: [*grown[key], grown[key][0]]}
        )
    return filled
