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
- volume: sum over sets of reps x load (bodyweight sets add no volume);
- hard sets per muscle: every logged reps/hold set counts one set for the primary muscle (highest
  share) and half a set for each secondary muscle (other muscles with share >= 0.2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta, tzinfo
from typing import Any

from trainer.domain.distribution import distribution_report, shares_of
from trainer.domain.one_rep_max import brzycki_1rm, epley_1rm
from trainer.domain.progression import reps_list
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, as_utc
from trainer.domain.units import convert_distance, convert_weight, weight_unit
from trainer.domain.workout_grouping import (
    UTC_ZONE,
    count_workouts,
    local_day,
    local_midnight,
    week_start,
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


def row_volume(row: Row, unit: str) -> float:
    """Sum of reps x load over the sets, in `unit`."""
    reps = reps_list(row)
    loads = _loads(row, unit, len(reps))
    if not reps or not loads:
        return 0.0
    return sum(r * loads[min(i, len(loads) - 1)] for i, r in enumerate(reps))


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
) -> dict[str, Any]:
    """Totals for the period; `start` and `end` come back as moments in `tz`, and workouts per week
    divide by the period's local calendar days / 7 (at least one week)."""
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
        "total_volume": round(sum(row_volume(r, u) for r in selected), 1),
        "total_duration_min": round(sum(float(r.get("duration_min") or 0) for r in selected), 1),
        "average_rpe": round(sum(rpes) / len(rpes), 1) if rpes else None,
        "workouts_per_week": round(workouts / weeks, 2),
    }


def exercise_moves(
    rows: Iterable[Row],
    start: datetime | date | str | None = None,
    end: datetime | date | str | None = None,
    unit: str = "kg",
    tz: tzinfo = UTC_ZONE,
    limit: int = 3,
) -> list[dict[str, Any]]:
    """The lifts whose top load moved in the period, most first (by share of the starting load): each
    with its first and last session's heaviest set, in `unit`. An exercise logged loaded only once, or
    at the same top load throughout, did not move."""
    u = weight_unit(unit)
    by_name: dict[str, list[float]] = {}
    for row in sorted(filter_rows(rows, start, end, tz), key=_when):
        top = max(_loads(row, u, set_count(row)) or [0.0])
        if top > 0:
            by_name.setdefault(str(row.get("exercise_name")), []).append(top)
    moved = sorted(
        (
            (name, tops[0], tops[-1], len(tops))
            for name, tops in by_name.items()
            if len(tops) >= 2 and tops[0] != tops[-1]
        ),
        key=lambda m: (-abs(m[2] - m[1]) / m[1], m[0]),
    )
    return [
        {
            "exercise_name": name,
            "unit": u,
            "from_load": round(first, 2),
            "to_load": round(last, 2),
            "sessions": n,
        }
        for name, first, last, n in moved[:limit]
    ]


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


def personal_records(
    rows: Iterable[Row], unit: str = "kg", tz: tzinfo = UTC_ZONE
) -> dict[str, dict[str, Any]]:
    """Per exercise: heaviest load, and best estimated 1RM by Epley and by Brzycki (r <= 10); dates
    are local days in `tz`."""
    u = weight_unit(unit)
    records: dict[str, dict[str, Any]] = {}
    for row in rows:
        reps = reps_list(row)
        loads = _loads(row, u, len(reps))
        if not reps or not loads:
            continue
        name = str(row.get("exercise_name") or "unknown")
        day = local_day(row["performed_at"], tz).isoformat() if row.get("performed_at") else None
        rec = records.setdefault(
            name,
            {
                "exercise_name": name,
                "unit": u,
                "best_load": 0.0,
                "best_load_reps": 0,
                "best_load_date": None,
                "epley_1rm": 0.0,
                "brzycki_1rm": None,
                "date": None,
            },
        )
        for i, r in enumerate(reps):
            load = loads[min(i, len(loads) - 1)]
            if load <= 0 or r < 1:
                continue
            if load > rec["best_load"] or (load == rec["best_load"] and r > rec["best_load_reps"]):
                rec.update(best_load=round(load, 2), best_load_reps=r, best_load_date=day)
            epley = epley_1rm(load, r)
            if epley > rec["epley_1rm"]:
                rec.update(epley_1rm=round(epley, 1), date=day)
            brzycki = brzycki_1rm(load, r)
            if brzycki is not None and (rec["brzycki_1rm"] is None or brzycki > rec["brzycki_1rm"]):
                rec["brzycki_1rm"] = round(brzycki, 1)
    return {n: r for n, r in sorted(records.items()) if r["best_load"] > 0}


def local_week(row: Row, tz: tzinfo) -> date:
    """The Monday (a local date) of the week a row was performed in."""
    return week_start(local_day(row["performed_at"], tz))


def weekly_hard_sets(rows: Iterable[Row], tz: tzinfo = UTC_ZONE) -> dict[date, dict[str, float]]:
    """Week start (local Monday) -> muscle -> hard sets (secondary muscles count half a set)."""
    weeks: dict[date, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        if row.get("exercise_type") not in ("reps", "hold", None) or row.get("performed_at") is None:
            continue
        sets = set_count(row)
        primary, secondary = primary_and_secondary(row)
        if not sets or primary is None:
            continue
        week = weeks[local_week(row, tz)]
        week[primary] += sets
        for muscle in secondary:
            week[muscle] += sets / 2
    return {w: dict(sorted(m.items())) for w, m in sorted(weeks.items())}


TREND_METRICS = ("weight", "reps", "volume", "frequency", "duration", "e1rm")


def _metric(rows: Sequence[Row], metric: str, unit: str, tz: tzinfo) -> float:
    if metric == "weight":
        return max((max(_loads(r, unit, 1), default=0.0) for r in rows), default=0.0)
    if metric == "e1rm":
        return max((_best_e1rm(r, unit) for r in rows), default=0.0)
    if metric == "reps":
        return float(sum(sum(reps_list(r)) for r in rows))
    if metric == "volume":
        return sum(row_volume(r, unit) for r in rows)
    if metric == "frequency":
        return float(count_workouts(rows, tz))
    return sum(float(r.get("duration_min") or 0) for r in rows)


def _best_e1rm(row: Row, unit: str) -> float:
    """The best Epley estimated 1RM of a row's loaded sets, in `unit`."""
    reps = reps_list(row)
    loads = _loads(row, unit, len(reps))
    return max((epley_1rm(w, n) for n, w in zip(reps, loads, strict=False) if n >= 1 and w > 0), default=0.0)


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
) -> dict[str, Any]:
    """Weekly series of a metric (weight = heaviest load, reps, volume, frequency = workouts,
    duration = minutes) with the least-squares slope per week and the first-to-last change; weeks
    are local Monday-to-Sunday weeks in `tz`, each named by its Monday."""
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
    values = [round(_metric(by_week[w], metric, u, tz), 2) for w in weeks]
    series = [{"week_start": w.isoformat(), "value": v} for w, v in zip(weeks, values, strict=True)]
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
        best = sorted(prs.values(), key=lambda r: -r["epley_1rm"])[:5]
        parts = [
            f"{r['exercise_name']} {r['best_load']:g}{r['unit']} (e1RM {r['epley_1rm']:g})" for r in best
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
