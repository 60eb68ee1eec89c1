"""Truths computed from the stored data, independently of the product, that a reply must state:
`evaluate(name, snapshot)` gives the value and a pattern the reply must contain.

Definitions (what the user means): "this month" is the current calendar month in the user's
timezone; "the last 7 days" are the last seven local days, today included; a workout is what the user
did together: the exercises logged from one generated workout (its workout id within its chat session),
else every exercise logged on one local day."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from trainer.domain.units import convert_distance

from tests.scenarios.world import Snapshot

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")  # fmt: skip


def _number_pattern(value: int) -> str:
    words = f"|{NUMBER_WORDS[value]}" if value < len(NUMBER_WORDS) else ""
    return rf"(?<![\d.,])(?:{value}{words})(?![\d.,]\d)"


def _count_pattern(value: int) -> str:
    """'4 workouts', 'four sessions', '4 times', or a label then the number: 'Workouts: 4'."""
    number = _number_pattern(value)
    return (
        rf"{number}\s+(?:\w+\s+)?(?:workouts?|sessions?|times)\b"
        rf"|\b(?:workouts?|sessions?)\b\W{{0,3}}(?:(?:was|were|is|came to|total(?:led)?)\s+)?{number}"
    )


def _workout_key(row: dict[str, Any], snapshot: Snapshot) -> str:
    if row.get("workout_id"):
        return f"w:{row.get('session_id') or ''}:{row['workout_id']}"
    return f"d:{_local_day(row, snapshot)}"


def _local_day(row: dict[str, Any], snapshot: Snapshot) -> date:
    return row["performed_at"].astimezone(snapshot.zone).date()


def _this_month(snapshot: Snapshot) -> list[dict[str, Any]]:
    today = snapshot.taken_at.astimezone(snapshot.zone).date()
    return [
        r
        for r in snapshot.history
        if r["performed_at"] <= snapshot.taken_at
        and _local_day(r, snapshot).replace(day=1) == today.replace(day=1)
    ]


def workouts_this_month(snapshot: Snapshot) -> tuple[Any, str]:
    count = len({_workout_key(r, snapshot) for r in _this_month(snapshot)})
    return count, _count_pattern(count)


def workouts_yesterday(snapshot: Snapshot) -> tuple[Any, str]:
    """Workouts on yesterday's date in the user's timezone."""
    yesterday = snapshot.taken_at.astimezone(snapshot.zone).date() - timedelta(days=1)
    rows = [r for r in snapshot.history if _local_day(r, snapshot) == yesterday]
    count = len({_workout_key(r, snapshot) for r in rows})
    return count, _count_pattern(count)


def workouts_last_7_days(snapshot: Snapshot) -> tuple[Any, str]:
    first = snapshot.taken_at.astimezone(snapshot.zone).date() - timedelta(days=6)
    rows = [
        r
        for r in snapshot.history
        if r["performed_at"] <= snapshot.taken_at and _local_day(r, snapshot) >= first
    ]
    count = len({_workout_key(r, snapshot) for r in rows})
    return count, _count_pattern(count)


def top_muscle_this_month(snapshot: Snapshot) -> tuple[Any, str]:
    """The muscle with the most sets this month, each set counted by the muscle's share."""
    totals: dict[str, float] = {}
    for row in _this_month(snapshot):
        sets = row.get("sets") or len(row.get("reps") or row.get("hold_sec") or []) or 1
        for item in row.get("muscles") or []:
            totals[item["muscle"]] = totals.get(item["muscle"], 0.0) + sets * float(item["share"])
    top = max(sorted(totals), key=lambda m: totals[m]) if totals else "none"
    return top, rf"(?<!lower )\b{top}\b"


def distance_this_month(snapshot: Snapshot) -> tuple[Any, str]:
    """Distance run/ridden this month in the user's unit, to one decimal."""
    unit = snapshot.distance_unit
    total = sum(
        convert_distance(float(r["distance"]), r.get("distance_unit") or unit, unit)
        for r in _this_month(snapshot)
        if r.get("distance")
    )
    shown = f"{total:.1f}"
    alternatives = {shown, shown.removesuffix(".0"), f"{total:.2f}"}
    return f"{shown} {unit}", r"(?<![\d.])(?:" + "|".join(
        sorted(alternatives, key=len, reverse=True)
    ) + r")\b"


def _workouts_days_back(days: int) -> Callable[[Snapshot], tuple[Any, str]]:
    """Workouts in the last `days` days as GET /exercises/history?days_back=N lists them: logged at most
    that many 24-hour days before now."""

    def fact(snapshot: Snapshot) -> tuple[Any, str]:
        since = snapshot.taken_at - timedelta(days=days)
        rows = [r for r in snapshot.history if since <= r["performed_at"] <= snapshot.taken_at]
        count = len({_workout_key(r, snapshot) for r in rows})
        return count, _count_pattern(count)

    return fact


def workouts_this_week(snapshot: Snapshot) -> tuple[Any, str]:
    """Workouts since Monday (the user's week)."""
    today = snapshot.taken_at.astimezone(snapshot.zone).date()
    monday = today - timedelta(days=today.weekday())
    rows = [r for r in snapshot.history if monday <= _local_day(r, snapshot) <= today]
    count = len({_workout_key(r, snapshot) for r in rows})
    return count, _count_pattern(count)


def current_streak_days(snapshot: Snapshot) -> tuple[Any, str]:
    """Consecutive local days with training, ending today (or yesterday when today has none yet)."""
    days = {_local_day(r, snapshot) for r in snapshot.history}
    day = snapshot.taken_at.astimezone(snapshot.zone).date()
    if day not in days:
        day -= timedelta(days=1)
    count = 0
    while day in days:
        count, day = count + 1, day - timedelta(days=1)
    return count, rf"{_number_pattern(count)}\s+days? in a row"


def scheduled_sessions_done(snapshot: Snapshot) -> tuple[Any, str]:
    """Scheduled sessions of the last 30 days before today, and how many had training on their day."""
    today = snapshot.taken_at.astimezone(snapshot.zone).date()
    trained = {_local_day(r, snapshot) for r in snapshot.history}
    planned = [
        w["scheduled_date"].astimezone(snapshot.zone).date()
        for w in snapshot.schedule
        if w.get("status") != "cancelled"
        and today - timedelta(days=29) <= w["scheduled_date"].astimezone(snapshot.zone).date() < today
    ]
    done = sum(1 for day in planned if day in trained)
    return (
        f"{done}/{len(planned)}",
        rf"{_number_pattern(done)} of (?:your |the )?{_number_pattern(len(planned))}\b",
    )


def readiness_call(snapshot: Snapshot) -> tuple[Any, str]:
    """What the newest check-in calls for, by plain rules: under 6 hours of sleep, energy 2/5 or less, or
    sleep quality 2/5 or less -> not a normal session (lighter, recovery or rest); else train."""
    if not snapshot.readiness:
        return "no check-in", r"how did you sleep|how (?:are|do) you feel|check[- ]in"
    row = snapshot.readiness[0]
    poor = (
        (row["sleep_hours"] is not None and row["sleep_hours"] < 6)
        or (row["energy"] is not None and row["energy"] <= 2)
        or (row["sleep_quality"] is not None and row["sleep_quality"] <= 2)
    )
    if poor:
        return "take it easy", r"\b(rest|recovery|lighter|easy|skip)\b"
    return "train", r"\b(good to train|train as planned|go ahead)\b"


PROFILE_ASKS: tuple[tuple[str, str], ...] = (
    ("experience", r"experience"),
    ("goal_statement", r"training for|goals?"),
    ("available_days", r"which days|what days|days of the week"),
    ("session_minutes", r"how long"),
    ("injuries", r"injur|limitation"),
    ("sex", r"\bsex\b"),
    ("age", r"how old"),
    ("weight_kg", r"weigh"),
)
"""The profile facts a new user is asked for, in order, and the words asking for each."""


def next_profile_question(snapshot: Snapshot) -> tuple[Any, str]:
    """The first profile fact GET /me/profile shows as unknown (injuries are known once one is on file
    or the user said there are none): the reply must ask for it; none missing: say so."""
    profile = snapshot.profile
    for key, pattern in PROFILE_ASKS:
        known = (
            bool(profile.get("injuries")) or bool(profile.get("no_limitations"))
            if key == "injuries"
            else profile.get("age") is not None
            if key == "age"
            else bool(profile.get(key))
        )
        if not known:
            return key, pattern
    return "nothing", r"everything I need|whole profile"


AFTER_TURN = frozenset({"readiness_call", "next_profile_question"})
"""Facts about what the turn itself stored (read after it, not before)."""

FACTS: dict[str, Callable[[Snapshot], tuple[Any, str]]] = {
    "workouts_last_14_days": _workouts_days_back(14),
    "workouts_last_30_days": _workouts_days_back(30),
    "workouts_this_week": workouts_this_week,
    "current_streak_days": current_streak_days,
    "scheduled_sessions_done": scheduled_sessions_done,
    "readiness_call": readiness_call,
    "next_profile_question": next_profile_question,
    "workouts_this_month": workouts_this_month,
    "workouts_yesterday": workouts_yesterday,
    "workouts_last_7_days": workouts_last_7_days,
    "top_muscle_this_month": top_muscle_this_month,
    "distance_this_month": distance_this_month,
}


def evaluate(name: str, snapshot: Snapshot) -> tuple[Any, str]:
    if name not in FACTS:
        raise ValueError(f"unknown fact {name!r} (known: {', '.join(FACTS)})")
    return FACTS[name](snapshot)
