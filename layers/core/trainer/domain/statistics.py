"""Training statistics computed in code from workout-history rows (never by the model).

Rows are dicts: performed_at, exercise_name, exercise_type, sets, reps (list or int), load_each
(list) or load, load_unit, duration_min, distance, distance_unit, rpe, muscles [{muscle, share}],
goals [{goal, share}], workout_id or session_id. Loads are converted to the user's unit.

Definitions:
- a workout is what the user did together (trainer.domain.workout_grouping): the exercises of one
  logged workout, else those of one calendar day in the user's time zone (`tz`);
- periods, days and weeks are calendar days and Monday-to-Sunday weeks in the user's time zone;
- sets: the `sets` field, else the number of reps/hold values, else 1 for reps/hold exercises and
  0 for duration/interval work;
- volume: sum over sets of reps x the load moved: both implements of a dumbbell pair (a kettlebell
  exercise moves one unless it says "double"; "one-arm" and goblet work one dumbbell), and on a
  bodyweight exercise the profile's body weight (plus any added load) where the profile has one;
- hard sets per muscle (docs/training-model.md#statistics): each set near enough to failure counts 1
  for the primary muscle (highest share) and 0.5 for each other muscle with a share >= 0.2
  (trainer.domain.volume); a set logged under RPE 6, a warm-up set (an unrated set more than 4 reps from
  failure by the chart, against the heaviest set of that exercise in that workout) and a stretch are
  not hard sets;
- records and trends name the set they come from: the estimate is the RTS chart's, effort-aware and
  capped at 12 reps (trainer.domain.one_rep_max), with Epley and Brzycki from that same set.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.domain.distribution import distribution_report, shares_of
from trainer.domain.movements import equipment_class, name_key
from trainer.domain.one_rep_max import brzycki_1rm, epley_1rm, estimate_1rm, reps_to_failure
from trainer.domain.progression import reps_list, rpe_list
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, as_utc
from trainer.domain.units import convert_distance, convert_weight, weight_unit
from trainer.domain.volume import set_weights
from trainer.domain.workout_grouping import (
    UTC_ZONE,
    count_workouts,
    local_day,
    local_midnight,
    week_start,
    workout_key,
)

Row = Mapping[str, Any]
SECONDARY_SHARE_THRESHOLD = WORKED_SHARE_THRESHOLD
PERIOD_DAYS: dict[str, int | None] = {"week": 7, "month": 30, "quarter": 90, "year": 365, "all_time": None}


def period_range(time_period: str, now: datetime, tz: tzinfo = UTC_ZONE) -> tuple[datetime | None, datetime]:
    """(start, end) for week/month/quarter/year/all_time ending at `now`: the last 7/30/90/365 calendar
    days in `tz`, today included, from local midnight."""
    if time_period not in PERIOD_DAYS:
        raise ValueError(f"time_period must be one of {', '.join(PERIOD_DAYS)}")
    days = PERIOD_DAYS[time_period]
    end = as_utc(now)
    if not days:
        return None, end
    first = local_day(end, tz) - timedelta(days=days - 1)
    return local_midnight(first, tz), end


def _when(row: Row) -> datetime:
    return as_utc(row["performed_at"])


def _is_day(value: datetime | date | str) -> bool:
    return not isinstance(value, datetime) and not (isinstance(value, str) and "T" in value)


def _bound(value: datetime | date | str | None, end_of_day: bool, tz: tzinfo) -> datetime | None:
    """A period bound as a UTC moment; a date is that day's local midnight (or its last instant)."""
    if value is None:
        return None
    if not _is_day(value):
        return as_utc(value)
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    moment = as_utc(local_midnight(day, tz))
    if end_of_day:
        moment = as_utc(local_midnight(day + timedelta(days=1), tz)) - timedelta(microseconds=1)
    return moment


def filter_rows(
    rows: Iterable[Row],
    start: datetime | date | str | None = None,
    end: datetime | date | str | None = None,
    tz: tzinfo = UTC_ZONE,
) -> list[Row]:
    """Rows with a performed_at inside [start, end] (a date as `end` includes that whole local day)."""
    lo, hi = _bound(start, False, tz), _bound(end, True, tz)
    kept = [r for r in rows if r.get("performed_at") is not None]
    return [r for r in kept if (lo is None or _when(r) >= lo) and (hi is None or _when(r) <= hi)]


def _inclusive_end(start: datetime, end: datetime, tz: tzinfo) -> datetime:
    """`end` in `tz`; an end at local midnight is an exclusive bound, so the period ends just before."""
    last = end.astimezone(tz)
    if last.time() == datetime.min.time() and end > start:
        last -= timedelta(microseconds=1)
    return last


def calendar_days(start: datetime, end: datetime, tz: tzinfo) -> int:
    """Local calendar days from `start` to `end`, both included (an end at local midnight excluded)."""
    return (_inclusive_end(start, end, tz).date() - start.astimezone(tz).date()).days + 1


def set_count(row: Row) -> int:
    kind = row.get("exercise_type")
    if row.get("sets"):
        return int(row["sets"])
    for key in ("reps", "hold_sec"):
        value = row.get(key)
        if isinstance(value, list | tuple) and value:
            return len(value)
    return 1 if kind in ("reps", "hold") or (kind is None and row.get("reps")) else 0


def _loads(row: Row, unit: str, sets: int) -> list[float]:
    loads = row.get("load_each")
    if loads is None and row.get("load") is not None:
        loads = [row["load"]] * max(sets, 1)
    source = row.get("load_unit") or unit
    return [convert_weight(float(v), source, unit) if v else 0.0 for v in loads or []]


_ONE_DUMBBELL = re.compile(r"\b(one|single)[ -]?(arm|hand|leg)\b|goblet|pullover|\bsingle\b", re.I)
_TWO_KETTLEBELLS = re.compile(r"\b(double|two kettlebells|pair)\b", re.I)
HARD_SET_RPE = 6.0
"""A set logged under RPE 6 (more than 4 reps in reserve) is not a hard set (Helms et al. 2016's
RIR scale; the hard-set count of Baz-Valle et al. 2022 is sets taken close to failure)."""


@lru_cache(maxsize=4096)
def _entry(name: str) -> CatalogEntry | None:
    return load_catalog().get(name)


def implements(name: str) -> int:
    """How many of the logged load a set moves: 2 for a dumbbell pair, else 1."""
    entry = _entry(name)
    cls = equipment_class(name, entry.equipment if entry else ())
    if cls == "dumbbell":
        return 1 if _ONE_DUMBBELL.search(name) else 2
    if cls == "kettlebell":
        return 2 if _TWO_KETTLEBELLS.search(name) else 1
    return 1


def is_bodyweight(row: Row) -> bool:
    """A reps exercise whose load is the lifter's body (a push-up, a pull-up, a dip), by the catalog."""
    entry = _entry(str(row.get("exercise_name") or ""))
    if (
        entry is None
        or entry.category in ("stretching", "cardio")
        or row.get("exercise_type") not in ("reps", None)
    ):
        return False
    return equipment_class(entry.name, entry.equipment) is None


def row_volume(row: Row, unit: str, body_weight: float | None = None) -> float:
    """Sum of reps x the load moved over the sets, in `unit` (`body_weight` in `unit` too)."""
    reps = reps_list(row)
    if not reps:
        return 0.0
    loads = _loads(row, unit, len(reps))
    name = str(row.get("exercise_name") or "")
    body = body_weight if body_weight and is_bodyweight(row) else 0.0
    count = implements(name)
    if not loads:
        return sum(r * body for r in reps)
    return sum(r * (loads[min(i, len(loads) - 1)] * count + body) for i, r in enumerate(reps))


def primary_and_secondary(row: Row) -> tuple[str | None, list[str]]:
    muscles = shares_of(row.get("muscles") or row.get("muscles_utilized") or [], "muscle")
    if not muscles:
        return None, []
    primary = max(sorted(muscles), key=lambda m: muscles[m])
    secondary = sorted(m for m, s in muscles.items() if m != primary and s >= SECONDARY_SHARE_THRESHOLD)
    return primary, secondary


def workout_statistics(
    rows: Iterable[Row],
    start: datetime | date | str | None = None,
    end: datetime | date | str | None = None,
    unit: str = "kg",
    tz: tzinfo = UTC_ZONE,
    *,
    body_weight: float | None = None,
) -> dict[str, Any]:
    """Totals for the period; `start` and `end` come back as moments in `tz`, and workouts per week
    divide by the period's local calendar days / 7 (at least one week); bodyweight sets count the
    profile's `body_weight` (in `unit`) when given."""
    u = weight_unit(unit)
    selected = filter_rows(rows, start, end, tz)
    rpes = [float(r["rpe"]) for r in selected if r.get("rpe") is not None]
    workouts = count_workouts(selected, tz)
    lo = _bound(start, False, tz) or (min(map(_when, selected)) if selected else None)
    hi = _bound(end, True, tz) or (max(map(_when, selected)) if selected else None)
    days = calendar_days(lo, hi, tz) if lo and hi else 0
    weeks = max(1.0, days / 7)
    return {
        "start": lo.astimezone(tz).isoformat() if lo else None,
        "end": _inclusive_end(lo, hi, tz).isoformat() if lo and hi else None,
        "unit": u,
        "total_workouts": workouts,
        "total_exercises": len(selected),
        "total_sets": sum(set_count(r) for r in selected),
        "total_volume": round(sum(row_volume(r, u, body_weight) for r in selected), 1),
        "total_duration_min": round(sum(float(r.get("duration_min") or 0) for r in selected), 1),
        "average_rpe": round(sum(rpes) / len(rpes), 1) if rpes else None,
        "workouts_per_week": round(workouts / weeks, 2),
    }


def exercise_breakdown(rows: Iterable[Row], by: str) -> list[dict[str, Any]]:
    """Share of the training per goal category ('category'), muscle, exercise_type or
    exercise_name. Categories and muscles are weighted by shares (each exercise counts 1 in total);
    types and names count exercises. Sorted by amount, largest first."""
    amounts: dict[str, float] = defaultdict(float)
    sets: dict[str, int] = defaultdict(int)
    for row in rows:
        if by in ("category", "muscle"):
            if by == "category":
                items, key = row.get("goals") or row.get("goals_addressed"), "goal"
            else:
                items, key = row.get("muscles") or row.get("muscles_utilized"), "muscle"
            for name, share in shares_of(items or [], key).items():
                amounts[name] += share
                sets[name] += set_count(row)
        elif by in ("exercise_type", "exercise_name"):
            name = str(row.get(by) or "unknown")
            amounts[name] += 1
            sets[name] += set_count(row)
        else:
            raise ValueError("breakdown must be by category, muscle, exercise_type or exercise_name")
    total = sum(amounts.values())
    result: list[dict[str, Any]] = [
        {
            "name": n,
            "amount": round(a, 2),
            "percentage": round(100 * a / total, 1) if total else 0.0,
            "sets": sets[n],
        }
        for n, a in amounts.items()
    ]
    result.sort(key=lambda item: (-item["amount"], item["name"]))
    return result


@dataclass(frozen=True)
class LoggedSet:
    """One logged loaded set: what a record or a trend point comes from."""

    exercise_name: str
    load: float
    reps: int
    rpe: float | None
    day: date | None

    @property
    def e1rm(self) -> float:
        return estimate_1rm(self.load, self.reps, self.rpe)

    def described(self, unit: str) -> dict[str, Any]:
        return {
            "load": round(self.load, 2),
            "reps": self.reps,
            "rpe": self.rpe,
            "date": self.day.isoformat() if self.day else None,
            "unit": unit,
        }


def logged_sets(row: Row, unit: str, tz: tzinfo = UTC_ZONE) -> list[LoggedSet]:
    """A row's loaded sets, loads in `unit`, each with its logged effort."""
    reps = reps_list(row)
    loads = _loads(row, unit, len(reps))
    if not reps or not loads:
        return []
    efforts = rpe_list(row, len(reps))
    day = local_day(row["performed_at"], tz) if row.get("performed_at") else None
    name = str(row.get("exercise_name") or "unknown")
    sets = []
    for i, r in enumerate(reps):
        load = loads[min(i, len(loads) - 1)]
        if load > 0 and r >= 1:
            sets.append(LoggedSet(name, load, r, efforts[i], day))
    return sets


def best_set(sets: Iterable[LoggedSet]) -> LoggedSet | None:
    """The set with the highest estimate (the heavier, then the earlier, on a tie)."""
    return max(
        sets, key=lambda s: (round(s.e1rm, 6), s.load, -(s.day.toordinal() if s.day else 0)), default=None
    )


def personal_records(
    rows: Iterable[Row], unit: str = "kg", tz: tzinfo = UTC_ZONE
) -> dict[str, dict[str, Any]]:
    """Per exercise: the heaviest set, and the best estimated one-rep max with the set it comes from
    (`e1rm_set`: load, reps, effort, day), Epley and Brzycki computed from that same set; dates are
    local days in `tz`."""
    u = weight_unit(unit)
    by_name: dict[str, list[LoggedSet]] = defaultdict(list)
    for row in rows:
        for done in logged_sets(row, u, tz):
            by_name[done.exercise_name].append(done)
    records: dict[str, dict[str, Any]] = {}
    for name, sets in sorted(by_name.items()):
        heaviest = max(sets, key=lambda s: (s.load, s.reps))
        best = best_set(sets)
        assert best is not None
        epley = epley_1rm(best.load, best.reps, best.rpe)
        brzycki = brzycki_1rm(best.load, best.reps, best.rpe)
        records[name] = {
            "exercise_name": name,
            "unit": u,
            "best_load": round(heaviest.load, 2),
            "best_load_reps": heaviest.reps,
            "best_load_date": heaviest.day.isoformat() if heaviest.day else None,
            "e1rm": round(best.e1rm, 1),
            "e1rm_set": best.described(u),
            "epley_1rm": round(epley, 1) if epley is not None else None,
            "brzycki_1rm": round(brzycki, 1) if brzycki is not None else None,
            "date": best.day.isoformat() if best.day else None,
        }
    return records


def local_week(row: Row, tz: tzinfo) -> date:
    """The Monday (a local date) of the week a row was performed in."""
    return week_start(local_day(row["performed_at"], tz))


def hard_set_count(row: Row, unit: str, heaviest_e1rm: float | None) -> int:
    """The row's hard sets: a set logged under RPE 6 is not one, nor an unrated loaded set more than 4
    reps from failure against `heaviest_e1rm` (the workout's best estimate on that exercise: a warm-up
    set); a stretch has none."""
    entry = _entry(str(row.get("exercise_name") or ""))
    if entry is not None and entry.category == "stretching":
        return 0
    sets = set_count(row)
    reps = reps_list(row)
    if not reps:
        rated = [r for r in rpe_list(row, sets) if r is not None]
        return sets - sum(1 for r in rated if r < HARD_SET_RPE)
    loads = _loads(row, unit, len(reps))
    efforts = rpe_list(row, len(reps))
    hard = 0
    for i, count in enumerate(reps):
        effort = efforts[i]
        if effort is not None:
            hard += effort >= HARD_SET_RPE
            continue
        load = loads[min(i, len(loads) - 1)] if loads else 0.0
        if load <= 0 or not heaviest_e1rm:
            hard += 1
            continue
        reserve = reps_to_failure(load / heaviest_e1rm) - count
        hard += reserve <= 10 - HARD_SET_RPE + 1e-6
    return hard


def weekly_hard_sets(
    rows: Iterable[Row], tz: tzinfo = UTC_ZONE, unit: str = "kg"
) -> dict[date, dict[str, float]]:
    """Week start (local Monday) -> muscle -> hard sets (1 for the primary muscle, 0.5 for each
    secondary one; warm-up sets, sets under RPE 6 and stretches left out)."""
    kept = [
        r
        for r in rows
        if r.get("exercise_type") in ("reps", "hold", None) and r.get("performed_at") is not None
    ]
    best: dict[tuple[str, str], float] = {}
    for row in kept:
        key = (workout_key(row, tz), name_key(str(row.get("exercise_name") or "")))
        for done in logged_sets(row, unit, tz):
            best[key] = max(best.get(key, 0.0), done.e1rm)
    weeks: dict[date, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in kept:
        muscles = shares_of(row.get("muscles") or row.get("muscles_utilized") or [], "muscle")
        key = (workout_key(row, tz), name_key(str(row.get("exercise_name") or "")))
        sets = hard_set_count(row, unit, best.get(key))
        if not sets or not muscles:
            continue
        week = weeks[local_week(row, tz)]
        for muscle, weight in set_weights(muscles).items():
            week[muscle] += sets * weight
    return {w: dict(sorted(m.items())) for w, m in sorted(weeks.items())}


TREND_METRICS = ("weight", "reps", "volume", "frequency", "duration", "e1rm")


def _metric(
    rows: Sequence[Row], metric: str, unit: str, tz: tzinfo, body_weight: float | None
) -> tuple[float, LoggedSet | None]:
    """A week's value of a metric, and the set it comes from for the heaviest load and the estimate."""
    if metric in ("weight", "e1rm"):
        sets = [s for r in rows for s in logged_sets(r, unit, tz)]
        if not sets:
            return 0.0, None
        if metric == "weight":
            top = max(sets, key=lambda s: (s.load, s.reps))
            return top.load, top
        best = best_set(sets)
        return (best.e1rm, best) if best else (0.0, None)
    if metric == "reps":
        return float(sum(sum(reps_list(r)) for r in rows)), None
    if metric == "volume":
        return sum(row_volume(r, unit, body_weight) for r in rows), None
    if metric == "frequency":
        return float(count_workouts(rows, tz)), None
    return sum(float(r.get("duration_min") or 0) for r in rows), None


def _slope(points: Sequence[tuple[float, float]]) -> float:
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0


def progress_trends(
    rows: Iterable[Row],
    metric: str,
    exercise_name: str | None = None,
    period: str = "quarter",
    *,
    now: datetime | None = None,
    unit: str = "kg",
    tz: tzinfo = UTC_ZONE,
    body_weight: float | None = None,
) -> dict[str, Any]:
    """Weekly series of a metric (weight = heaviest load, e1rm = best estimate, reps, volume,
    frequency = workouts, duration = minutes) with the least-squares slope per week and the
    first-to-last change; weeks are local Monday-to-Sunday weeks in `tz`, each named by its Monday,
    and a weight or e1rm point names the set it comes from."""
    if metric not in TREND_METRICS:
        raise ValueError(f"metric must be one of {', '.join(TREND_METRICS)}")
    u = weight_unit(unit)
    selected = [r for r in rows if r.get("performed_at") is not None]
    if exercise_name:
        key = exercise_name.strip().lower()
        selected = [r for r in selected if str(r.get("exercise_name", "")).strip().lower() == key]
    end = as_utc(now) if now else (max(map(_when, selected)) if selected else None)
    if end is not None:
        start, _ = period_range(period, end, tz)
        selected = filter_rows(selected, start, end, tz)
    by_week: dict[date, list[Row]] = defaultdict(list)
    for row in selected:
        by_week[local_week(row, tz)].append(row)
    weeks = sorted(by_week)
    measured = [_metric(by_week[w], metric, u, tz, body_weight) for w in weeks]
    values = [round(value, 2) for value, _ in measured]
    series = [
        {"week_start": w.isoformat(), "value": v, "set": done.described(u) if done else None}
        for w, v, (_, done) in zip(weeks, values, measured, strict=True)
    ]
    points = [((w - weeks[0]).days / 7, v) for w, v in zip(weeks, values, strict=True)]
    first, last = (values[0], values[-1]) if values else (0.0, 0.0)
    change = round(100 * (last - first) / first, 1) if first else None
    slope = round(_slope(points), 3)
    direction = "flat" if abs(slope) < 1e-9 else ("up" if slope > 0 else "down")
    return {
        "metric": metric,
        "exercise_name": exercise_name,
        "period": period,
        "unit": u,
        "series": series,
        "slope_per_week": slope,
        "percent_change": change,
        "direction": direction,
    }


def distance_total(rows: Iterable[Row], unit: str) -> float:
    return round(
        sum(
            convert_distance(float(r["distance"]), r.get("distance_unit") or unit, unit)
            for r in rows
            if r.get("distance")
        ),
        2,
    )


SUMMARY_SECTIONS = (
    "overview",
    "category_breakdown",
    "muscle_breakdown",
    "top_exercises",
    "progress",
    "goals",
)


def stats_summary(
    rows: Iterable[Row],
    start: datetime | date | str | None = None,
    end: datetime | date | str | None = None,
    unit: str = "kg",
    sections: Sequence[str] | None = None,
    *,
    goal_targets: Mapping[str, float] | None = None,
    tz: tzinfo = UTC_ZONE,
) -> str:
    """Readable multi-line summary of the chosen sections (all by default)."""
    wanted = list(sections or SUMMARY_SECTIONS)
    unknown = [s for s in wanted if s not in SUMMARY_SECTIONS]
    if unknown:
        raise ValueError(f"unknown sections {unknown}; choose from {', '.join(SUMMARY_SECTIONS)}")
    selected = filter_rows(rows, start, end, tz)
    stats = workout_statistics(selected, start, end, unit, tz)
    lines: list[str] = []
    if not selected:
        return "No workouts logged in this period."
    if "overview" in wanted:
        rpe = f", average RPE {stats['average_rpe']}" if stats["average_rpe"] is not None else ""
        lines.append(
            f"Overview: {stats['total_workouts']} workouts ({stats['workouts_per_week']}/week), "
            f"{stats['total_exercises']} exercises, {stats['total_sets']} sets, "
            f"volume {stats['total_volume']:g} {stats['unit']}, {stats['total_duration_min']:g} min{rpe}"
        )
    for section, by, label in (
        ("category_breakdown", "category", "Categories"),
        ("muscle_breakdown", "muscle", "Muscles"),
    ):
        if section in wanted:
            parts = [f"{b['name']} {b['percentage']:g}%" for b in exercise_breakdown(selected, by)[:8]]
            lines.append(f"{label}: {', '.join(parts) if parts else 'none recorded'}")
    if "top_exercises" in wanted:
        parts = [
            f"{b['name']} x{int(b['amount'])}" for b in exercise_breakdown(selected, "exercise_name")[:5]
        ]
        lines.append(f"Top exercises: {', '.join(parts)}")
    if "progress" in wanted:
        prs = personal_records(selected, unit, tz)
        best = sorted(prs.values(), key=lambda r: -r["e1rm"])[:5]
        parts = [
            f"{r['exercise_name']} {r['best_load']:g}{r['unit']} (e1RM {r['e1rm']:g} from "
            f"{r['e1rm_set']['load']:g} x {r['e1rm_set']['reps']})"
            for r in best
        ]
        lines.append(f"Personal records: {', '.join(parts) if parts else 'none with loads'}")
    if "goals" in wanted and goal_targets:
        totals: dict[str, float] = defaultdict(float)
        for row in selected:
            for goal, share in shares_of(
                row.get("goals") or row.get("goals_addressed") or [], "goal"
            ).items():
                totals[goal] += share
        parts = [
            f"{r.name} {r.actual:.0%} of {r.target:.0%} target"
            for r in distribution_report(goal_targets, totals)
        ]
        lines.append(f"Goals: {', '.join(parts)}")
    return "\n".join(lines)
