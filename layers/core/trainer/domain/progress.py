"""Progress in numbers, computed in code from history rows (never by the model): training streaks,
adherence to the scheduled sessions, and a milestone's progress.

Days and weeks are the user's local calendar days and Monday-to-Sunday weeks (trainer.domain.statistics).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, timedelta, tzinfo
from typing import Any

from trainer.domain.progression import reps_list
from trainer.domain.units import convert_distance, convert_weight
from trainer.domain.workout_grouping import local_day, week_start

Row = Mapping[str, Any]
DISTANCE_UNITS = {"km": "km", "k": "km", "kilometers": "km", "kilometres": "km", "mi": "mi", "miles": "mi"}
WEIGHT_UNITS = {"kg": "kg", "lbs": "lbs", "lb": "lbs"}
NAME_WORD = re.compile(r"[a-z]+")
TARGET_WORDS = frozenset(
    {"run", "row", "swim", "cycle", "bike", "walk", "kg", "lbs", "lb", "km", "mi", "a", "an"}
)


def _days(rows: Iterable[Row], tz: tzinfo) -> set[date]:
    return {local_day(r["performed_at"], tz) for r in rows if r.get("performed_at") is not None}


def _run_ending(days: set[date], last: date, step: timedelta) -> int:
    count = 0
    while last in days:
        count += 1
        last -= step
    return count


def _longest(days: set[date], step: timedelta) -> int:
    """The longest run of consecutive days (or weeks), counted forward from each run's first one."""
    best = 0
    for first in days:
        if first - step in days:
            continue
        count, day = 0, first
        while day in days:
            count, day = count + 1, day + step
        best = max(best, count)
    return best


WEEKLY_BELOW_DAYS = 5
"""A lifter with fewer training days a week than this (planned, else lately) keeps a streak in weeks."""
RECENT_WEEKS = 8


def training_streaks(
    rows: Iterable[Row], today: date, tz: tzinfo, *, preferred_days: Sequence[str] = ()
) -> dict[str, Any]:
    """Consecutive training days and weeks: `current_days` ends today (or yesterday, when today has no
    training yet), `current_weeks` ends this week (or last week); `longest_*` over the rows given.
    `weekly`: the streak that means something for this lifter is in weeks (docs/training-model.md#statistics):
    they plan fewer than WEEKLY_BELOW_DAYS days a week, or without a plan trained on fewer than that
    lately; `days_this_week` and `planned_days` let an answer say how this week is going."""
    days = _days(rows, tz)
    weeks = {week_start(d) for d in days}
    day, week = timedelta(days=1), timedelta(weeks=1)
    this_week = week_start(today)
    recent_start = this_week - RECENT_WEEKS * week
    recent = [d for d in days if recent_start <= d < this_week]
    per_week = len(recent) / RECENT_WEEKS
    planned = len(set(preferred_days))
    weekly = planned < WEEKLY_BELOW_DAYS if planned else per_week < WEEKLY_BELOW_DAYS
    return {
        "current_days": _run_ending(days, today if today in days else today - day, day),
        "longest_days": _longest(days, day),
        "current_weeks": _run_ending(weeks, this_week if this_week in weeks else this_week - week, week),
        "longest_weeks": _longest(weeks, week),
        "training_days": len(days),
        "weekly": weekly,
        "days_this_week": sum(1 for d in days if this_week <= d <= today),
        "planned_days": planned,
    }


def plan_adherence(scheduled: Iterable[Row], rows: Iterable[Row], today: date, tz: tzinfo) -> dict[str, Any]:
    """How many scheduled sessions before today were done. A session counts as done when it is marked
    completed, or when the user trained on its local day, or on another day of the same Monday-Sunday
    week no other session of that week was matched to (a session moved within its week is not a miss;
    exact days are matched first, then the nearest). A session of the current week not done yet is
    pending, not missed: the week is not over. Cancelled sessions and today's do not count."""
    trained = _days(rows, tz)
    planned_by_week: dict[date, list[tuple[date, bool]]] = {}
    for workout in scheduled:
        status = workout.get("status") or "scheduled"
        if status == "cancelled":
            continue
        day = local_day(workout["scheduled_date"], tz)
        if day >= today:
            continue
        planned_by_week.setdefault(week_start(day), []).append((day, status == "completed"))
    this_week = week_start(today)
    planned: list[date] = []
    done: list[date] = []
    missed: list[date] = []
    pending = 0
    for monday, sessions in sorted(planned_by_week.items()):
        free = {d for d in trained if monday <= d <= monday + timedelta(days=6) and d < today}
        left = []
        for day, completed in sorted(sessions):
            if completed or day in free:
                free.discard(day)
                done.append(day)
            else:
                left.append(day)
        pairs = sorted((abs((d - day).days), day, d) for day in left for d in free)
        for _, day, moved in pairs:
            if day in left and moved in free:
                left.remove(day)
                free.discard(moved)
                done.append(day)
        if monday == this_week:
            pending += len(left)
        else:
            missed += left
        planned += [day for day, _ in sessions]
    counted = len(planned) - pending
    percent = round(100 * len(done) / counted) if counted else None
    return {
        "planned": counted,
        "done": len(done),
        "missed_days": sorted(missed),
        "percent": percent,
        "pending": pending,
    }


def _name_words(text: str) -> set[str]:
    return {w.removesuffix("s") if len(w) > 3 else w for w in NAME_WORD.findall(text.lower())}


def _exercise_rows(rows: Iterable[Row], goal_name: str) -> list[Row]:
    """Rows of the exercise a goal names ('Bench 100 kg' -> every bench press row; '15 pull-ups' ->
    'Pullups', spelled with or without the hyphen)."""
    wanted = _name_words(goal_name) - TARGET_WORDS
    squeezed = "".join(sorted(wanted, key=goal_name.lower().find)).removesuffix("s")

    def names_it(row: Row) -> bool:
        name = str(row.get("exercise_name", ""))
        return wanted <= _name_words(name) or squeezed in "".join(NAME_WORD.findall(name.lower()))

    return [r for r in rows if wanted and names_it(r)]


def _is_cardio(row: Row) -> bool:
    return row.get("distance") is not None


def milestone_progress(milestone: Row, rows: Iterable[Row], *, weight_unit: str) -> dict[str, Any]:
    """The best logged effort toward a milestone, by its target's unit:
    - a distance (km/mi), with an optional time limit: the longest distance done, and the fastest time
      over at least the target distance (`best_time_min`), met when within the limit;
    - a load (kg/lbs), with optional reps: the heaviest load lifted for at least those reps on the
      exercise the goal names;
    - reps: the most reps in one set of that exercise.
    `met` is None when the milestone has no numeric target."""
    rows = list(rows)
    unit = str(milestone.get("target_unit") or "").lower()
    target = float(milestone["target_value"]) if milestone.get("target_value") is not None else None
    limit = float(milestone["time_limit_min"]) if milestone.get("time_limit_min") is not None else None
    target_reps = int(milestone["target_reps"]) if milestone.get("target_reps") else None
    result: dict[str, Any] = {
        "kind": "other",
        "best": None,
        "best_time_min": None,
        "met": None,
        "percent": None,
    }
    if target is None:
        return result
    if unit in DISTANCE_UNITS:
        u = DISTANCE_UNITS[unit]
        runs = [r for r in rows if _is_cardio(r)]
        distances = [convert_distance(float(r["distance"]), r.get("distance_unit") or u, u) for r in runs]
        best = round(max(distances, default=0.0), 2)
        long_enough = [
            float(r["duration_min"])
            for r, d in zip(runs, distances, strict=True)
            if d >= target - 0.005 and r.get("duration_min")
        ]
        fastest = min(long_enough, default=None)
        met = best >= target - 0.005 and (limit is None or (fastest is not None and fastest <= limit))
        percent = min(100, round(100 * best / target)) if target else None
        if limit is not None and fastest is not None and best >= target - 0.005:
            percent = min(100, round(100 * limit / fastest))
        result.update(kind="distance", best=best, best_time_min=fastest, met=met, percent=percent)
        return result
    if unit in WEIGHT_UNITS:
        u = WEIGHT_UNITS[unit]
        heaviest = 0.0
        for row in _exercise_rows(rows, str(milestone.get("goal_name") or "")):
            source = row.get("load_unit") or weight_unit
            for count, load in zip(reps_list(row), row.get("load_each") or [], strict=False):
                if target_reps is None or count >= target_reps:
                    heaviest = max(heaviest, convert_weight(float(load), source, u))
        best = round(heaviest, 1)
        result.update(
            kind="load", best=best, met=best >= target - 0.01, percent=min(100, round(100 * best / target))
        )
        return result
    if unit == "reps":
        most = max(
            (
                max(reps_list(r), default=0)
                for r in _exercise_rows(rows, str(milestone.get("goal_name") or ""))
            ),
            default=0,
        )
        result.update(
            kind="reps", best=float(most), met=most >= target, percent=min(100, round(100 * most / target))
        )
    return result
