"""Concise text for each data source, in the user's units and timezone.

Pure functions over repository rows. All user-supplied text is XML-escaped and flattened to one line,
so nothing a user types can open or close a tag in the model's context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainer.domain.distribution import DistributionRow
from trainer.domain.onboarding import profile_age, whole_years
from trainer.domain.readiness import CheckIn, assess
from trainer.domain.text import escape_text, one_line
from trainer.domain.units import convert_distance, convert_weight
from trainer.domain.workout import per_set_loads_text
from trainer.domain.workout_grouping import count_workouts

Row = Mapping[str, Any]


esc = one_line


def num(value: Any, places: int = 1) -> str:
    """82 / 82.5 / 0.3 — no trailing zeros, no exponent."""
    text = f"{round(float(value), places):.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def pct(fraction: Any) -> str:
    return f"{round(float(fraction) * 100):.0f}%"


def signed_pct(fraction: Any) -> str:
    value = round(float(fraction) * 100)
    return f"{'+' if value > 0 else ''}{value:.0f}%"


def zone(timezone: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def day_label(moment: datetime | date, tz: ZoneInfo | None = None) -> str:
    """'Mon, Jan 5'."""
    local = moment.astimezone(tz) if isinstance(moment, datetime) and tz else moment
    return f"{local:%a}, {local:%b} {local.day}"


def full_date(moment: date) -> str:
    """'Jan 5, 2026'."""
    return f"{moment:%b} {moment.day}, {moment.year}"


def age_on(birth_date: date, today: date) -> int:
    return whole_years(birth_date, today)


def weight_in(value: Any, from_unit: str, to_unit: str) -> str:
    return num(convert_weight(float(value), from_unit, to_unit)) + to_unit


def distance_in(value: Any, from_unit: str, to_unit: str) -> str:
    return num(convert_distance(float(value), from_unit, to_unit), 2) + to_unit


# --- profile, settings, locations ---------------------------------------------------------------


def body_stat_lines(profile: Row | None, settings: Row, today: date) -> list[str]:
    if not profile:
        return []
    lines: list[str] = []
    if profile.get("sex"):
        lines.append(f"Sex: {esc(profile['sex'])}")
    age = profile_age(profile, today)
    if age is not None:
        lines.append(f"Age: {age}")
    if profile.get("height_cm") is not None:
        lines.append(f"Height: {num(profile['height_cm'])}cm")
    if profile.get("weight_kg") is not None:
        lines.append(f"Weight: {weight_in(profile['weight_kg'], 'kg', settings['weight_unit'])}")
    if profile.get("body_fat_pct") is not None:
        lines.append(f"Body Fat: {num(profile['body_fat_pct'])}%")
    return lines


def format_user_profile(data: Mapping[str, Any]) -> str:
    profile, settings, today = data["profile"], data["settings"], data["today"]
    lines = []
    if profile and profile.get("display_name"):
        lines.append(f"Name: {esc(profile['display_name'])}")
    lines.extend(body_stat_lines(profile, settings, today))
    if profile and profile.get("experience"):
        lines.append(f"Experience: {esc(profile['experience'])}")
    if profile and profile.get("session_minutes"):
        lines.append(f"Usual session length: {int(profile['session_minutes'])} min")
    if profile and profile.get("goal_statement"):
        lines.append(f"Goals in their words: {esc(profile['goal_statement'])}")
    if profile and profile.get("no_limitations"):
        lines.append("Injuries or limitations: none (the user said so)")
    if not lines:
        return "<user_profile>No profile details yet</user_profile>"
    return "<user_profile>\n" + "\n".join(lines) + "\n</user_profile>"


def format_user_settings(settings: Row) -> str:
    lines = [
        f"Weight unit: {settings['weight_unit']}",
        f"Distance unit: {settings['distance_unit']}",
        f"Timezone: {esc(settings['timezone'])}",
    ]
    if settings.get("preferred_days"):
        lines.append(f"Preferred days: {', '.join(settings['preferred_days'])}")
    return "<user_settings>\n" + "\n".join(lines) + "\n</user_settings>"


LISTED_WEIGHTS = 12
"""The most loads an equipment line lists one by one; a longer rack is summed up as a range."""


def weights_text(weights: Sequence[Any], unit: str) -> str:
    """'5, 10, 15, 20kg'; a long list as its range: '2.5-60kg in steps of 2.5 (24 loads)', or
    '1-200kg (40 loads)' when the steps vary."""
    values = sorted({float(w) for w in weights})
    if len(weights) <= LISTED_WEIGHTS or len(values) < 2:
        return ", ".join(num(w, 2) for w in weights) + unit
    steps = {round(b - a, 2) for a, b in pairwise(values)}
    span = f"{num(values[0], 2)}-{num(values[-1], 2)}{unit}"
    if len(steps) == 1:
        return f"{span} in steps of {num(steps.pop(), 2)} ({len(values)} loads)"
    return f"{span} ({len(values)} loads)"


def format_equipment_item(item: Row) -> str:
    """'Dumbbells (free_weights): 5, 10, 15, 20kg' or 'Pull-up Bar'."""
    text = esc(item.get("name", ""))
    if item.get("type"):
        text += f" ({esc(item['type'])})"
    weights = item.get("weights")
    if weights:
        text += ": " + weights_text(weights, esc(item.get("unit") or "kg"))
    return text


def location_lines(location: Row) -> list[str]:
    lines = [f"Location: {esc(location['name'])}"]
    if location.get("description"):
        lines.append(f"Description: {esc(location['description'])}")
    equipment = location.get("equipment") or []
    if equipment:
        lines.append("Equipment:")
        lines.extend(f"  - {format_equipment_item(item)}" for item in equipment)
    else:
        lines.append("Equipment: none listed (bodyweight only)")
    return lines


def format_current_location(location: Row | None) -> str:
    if not location:
        return "<current_location>No current location set</current_location>"
    return "<current_location>\n" + "\n".join(location_lines(location)) + "\n</current_location>"


def format_all_locations(locations: Sequence[Row]) -> str:
    if not locations:
        return "<locations>No saved locations</locations>"
    blocks = []
    for location in locations:
        lines = location_lines(location)
        lines[0] += f" [id: {location['id']}]" + (" (current)" if location.get("is_current") else "")
        blocks.append("\n".join("  " + line for line in lines))
    return "<locations>\n" + "\n".join(blocks) + "\n</locations>"


# --- goals and distribution ---------------------------------------------------------------------


def _distribution_lines(rows: Sequence[DistributionRow], logged: int) -> list[str]:
    if not logged:
        return ["  Distribution: nothing logged yet"]
    lines = [f"  Distribution ({logged} exercises logged):"]
    lines.extend(
        f"    {esc(r.name)}: {pct(r.actual)} actual ({pct(r.target)} target), debt: {signed_pct(r.debt)}"
        for r in rows
    )
    return lines


def format_category_goals(data: Mapping[str, Any]) -> str:
    goals = data["goals"]
    if not goals:
        lines = ["  No category goals set"]
    else:
        lines = ["  Goals:"]
        for goal in goals:
            line = f"    {esc(goal['category'])}: {pct(goal['weight'])} target"
            if goal.get("description"):
                line += f" - {esc(goal['description'])}"
            lines.append(line)
    lines.extend(_distribution_lines(data["distribution"], data["logged_count"]))
    return "<category_goals>\n" + "\n".join(lines) + "\n</category_goals>"


def format_muscle_goals(data: Mapping[str, Any]) -> str:
    goals = data["goals"]
    if not goals:
        lines = ["  No muscle goals set"]
    else:
        lines = ["  Goals:"] + [f"    {goal['muscle']}: {pct(goal['weight'])} target" for goal in goals]
    lines.extend(_distribution_lines(data["distribution"], data["logged_count"]))
    return "<muscle_goals>\n" + "\n".join(lines) + "\n</muscle_goals>"


def format_exercise_distribution(totals: Mapping[str, Any]) -> str:
    logged = int(totals["logged_count"])
    if not logged:
        return '<exercise_distribution exercises="0">Nothing logged yet</exercise_distribution>'
    lines = []
    for label, dimension in (("Categories", "category"), ("Muscles", "muscle")):
        values: Mapping[str, Decimal] = totals[dimension]
        grand = sum((float(v) for v in values.values()), 0.0)
        if not values or grand <= 0:
            lines.append(f"  {label}: none tracked")
            continue
        ordered = sorted(values.items(), key=lambda kv: (-float(kv[1]), kv[0].lower()))
        parts = [f"{esc(name)} {pct(float(total) / grand)} ({num(total)})" for name, total in ordered]
        lines.append(f"  {label}: " + ", ".join(parts))
    return f'<exercise_distribution exercises="{logged}">\n' + "\n".join(lines) + "\n</exercise_distribution>"


# --- preferences --------------------------------------------------------------------------------


PREFERENCE_CHARS = 300
GUIDANCE_CHARS = 500
"""How much of a preference's description and guidance the prompt shows (the API keeps 1,000 and
2,000 characters): a preference is a line of at most some 200 tokens."""


def shortened(text: str, limit: int) -> str:
    """`text` (escaped, on one line) cut to `limit` characters, the cut marked with an ellipsis."""
    flat = esc(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _is_temporary(pref: Row) -> bool:
    return bool(pref.get("expires_at") or pref.get("delete_after_use"))


def format_preferences(preferences: Sequence[Row], timezone: str = "UTC") -> str:
    """One preference a line, the most important first (a prompt budget cuts from the bottom): injuries,
    then temporary ones (they override the others), then permanent ones, each group newest first
    (`preferences` come oldest first); long texts shortened (PREFERENCE_CHARS, GUIDANCE_CHARS)."""
    if not preferences:
        return "<preferences>None active</preferences>"
    tz = zone(timezone)
    newest_first = list(reversed(preferences))
    ordered = sorted(newest_first, key=lambda p: (p["type"] != "injury", not _is_temporary(p)))
    lines: list[str] = []
    for pref in ordered:
        line = f"  - {pref['type']}: {shortened(pref['description'], PREFERENCE_CHARS)}"
        if pref.get("expires_at"):
            line += f" (temporary, until {day_label(pref['expires_at'], tz)})"
        if pref.get("delete_after_use"):
            line += " (temporary, next workout only)"
        if not _is_temporary(pref):
            line += " (permanent)"
        if pref.get("guidance"):
            line += f" - guidance: {shortened(pref['guidance'], GUIDANCE_CHARS)}"
        lines.append(line + f" [id: {pref['id']}]")
    return "<preferences>\n" + "\n".join(lines) + "\n</preferences>"


# --- history and current workout ----------------------------------------------------------------


def _series(values: Sequence[Any], places: int = 1) -> str:
    texts = [num(v, places) for v in values]
    return texts[0] if len(set(texts)) == 1 else "/".join(texts)


def exercise_details(ex: Row, weight_unit: str | None = None, distance_unit: str | None = None) -> str:
    """'3x8 @60kg', '3x30s hold', '30min 5km', '8 rounds 20s on/10s off' in the wanted units."""
    parts: list[str] = []
    sets = ex.get("sets")
    reps, holds = ex.get("reps"), ex.get("hold_sec")
    loads = ex.get("load_each")
    converted: list[float] = []
    shown = ""
    if loads and any(float(v) > 0 for v in loads):
        unit = ex.get("load_unit") or weight_unit or "kg"
        shown = weight_unit or unit
        converted = [round(convert_weight(float(v), unit, shown), 1) for v in loads]
    if len(set(converted)) > 1:
        parts.append(per_set_loads_text(converted, shown, [int(r) for r in reps or []]))
    elif reps:
        parts.append(f"{sets or len(reps)}x{_series(reps, 0)}")
    if holds:
        parts.append(f"{sets or len(holds)}x{_series(holds, 0)}s hold")
    if converted and len(set(converted)) == 1:
        parts.append(f"@{_series(converted)}{shown}")
    if ex.get("rounds"):
        text = f"{ex['rounds']} rounds"
        if ex.get("work_sec"):
            text += f" {ex['work_sec']}s on"
            if ex.get("rest_sec") is not None:
                text += f"/{ex['rest_sec']}s off"
        parts.append(text)
    if ex.get("duration_min"):
        parts.append(f"{num(ex['duration_min'])}min")
    if ex.get("distance"):
        unit = ex.get("distance_unit") or distance_unit or "km"
        parts.append(distance_in(ex["distance"], unit, distance_unit or unit))
    return esc(" ".join(parts))


def format_workout_history(data: Mapping[str, Any]) -> str:
    rows, settings, params = data["rows"], data["settings"], data["params"]
    days_back = params["days_back"]
    if not rows:
        return f'<workout_history days_back="{days_back}" count="0">Nothing logged</workout_history>'
    tz = zone(settings["timezone"])
    workouts = count_workouts(rows, tz)
    lines = []
    for ex in rows:
        details = f"{esc(ex['exercise_name'])} ({ex['exercise_type']})"
        extra = exercise_details(ex, settings["weight_unit"], settings["distance_unit"])
        if extra:
            details += f" {extra}"
        if ex.get("rpe") is not None:
            details += f" RPE:{num(ex['rpe'])}"
        lines.append(f"  {day_label(ex['performed_at'], tz)}: {details} [id: {ex['id']}]")
    return (
        f'<workout_history days_back="{days_back}" count="{len(rows)}" workouts="{workouts}">\n'
        + "\n".join(lines)
        + "\n</workout_history>"
    )


def format_progression_targets(data: Mapping[str, Any]) -> str:
    """Each recently trained exercise's next load x reps (trainer.domain.progression), with why."""
    targets, unit = data["targets"], data["unit"]
    if not targets:
        return (
            f'<progression_targets unit="{unit}">No loaded exercises in the last {data["days_back"]} days'
            "</progression_targets>"
        )
    lines = [
        f"  {esc(t['exercise_name'])}: {t['sets']}x{t['reps']} @{num(t['load'], 2)}{unit}"
        f" - {esc(t['reasoning'])}"
        for t in targets
    ]
    return f'<progression_targets unit="{unit}">\n' + "\n".join(lines) + "\n</progression_targets>"


def format_current_workout(workout: Mapping[str, Any] | None) -> str:
    exercises = (workout or {}).get("exercises") or []
    if not exercises:
        return "<current_workout>No active workout</current_workout>"
    assert workout is not None
    lines = []
    if workout.get("title"):
        lines.append(f"Title: {esc(workout['title'])}")
    done = sum(1 for ex in exercises if ex.get("completed"))
    lines.append(f"Progress: {done}/{len(exercises)}")
    for index, ex in enumerate(exercises, start=1):
        mark = "✓" if ex.get("completed") else "○"
        name = esc(ex.get("exercise_name") or ex.get("name") or "?")
        kind = esc(ex.get("exercise_type") or ex.get("type") or "?")
        line = f"  {mark} {esc(ex.get('order', index))}. {name} ({kind})"
        extra = exercise_details(ex)
        if extra:
            line += f" {extra}"
        if ex.get("id"):
            line += f" [id: {esc(ex['id'])}]"
        lines.append(line)
    return "<current_workout>\n" + "\n".join(lines) + "\n</current_workout>"


# --- calendar, plans, milestones ----------------------------------------------------------------


def format_schedule(data: Mapping[str, Any]) -> str:
    """The sessions to come (the plan's days marked `plan day`, the same ids the schedule tools take),
    then what was changed for sessions missed lately."""
    rows, settings, days_ahead = data["rows"], data["settings"], data["params"]["days_ahead"]
    missed = _missed_lines(data.get("missed") or [])
    if not rows:
        return f'<schedule days_ahead="{days_ahead}">No upcoming workouts{missed}</schedule>'
    tz = zone(settings["timezone"])
    lines = []
    for w in rows:
        local = w["scheduled_date"].astimezone(tz)
        when = day_label(local) + ("" if (local.hour, local.minute) == (0, 0) else f" {local:%H:%M}")
        line = f"  {when}: {esc(w['workout_type'])}"
        if w.get("duration_minutes"):
            line += f" ({w['duration_minutes']}min)"
        if w.get("notes"):
            line += f" - {esc(w['notes'])}"
        if w.get("exercises"):
            line += f" ({len(w['exercises'])} exercises planned)"
        if w.get("source") == "plan":
            line += " (plan day)"
        lines.append(line + f" [id: {w['id']}]")
    return f'<schedule days_ahead="{days_ahead}">\n' + "\n".join(lines) + missed + "\n</schedule>"


def _missed_lines(rows: Sequence[Mapping[str, Any]]) -> str:
    """'Missed lately' lines: each missed plan day with what was changed for it (its own note)."""
    lines = []
    for row in rows:
        said = [str(n) for n in row.get("notes") or [] if str(n).startswith("Missed ")]
        lines.append(f"  {esc(said[-1] if said else 'Missed ' + str(row.get('focus') or 'a session'))}")
    return "\n Missed lately (the plan was adapted):\n" + "\n".join(lines) if lines else ""


def format_plans(data: Mapping[str, Any]) -> str:
    rows, status = data["rows"], data["params"]["status"]
    if not rows:
        return f'<workout_plans status="{status}">No plans</workout_plans>'
    lines = []
    for plan in rows:
        line = (
            f"  {esc(plan['plan_name'])} ({plan['status']}): {full_date(plan['start_date'])} to "
            f"{full_date(plan['end_date'])}, {plan['duration_weeks']} weeks"
        )
        if plan.get("workouts_per_week"):
            line += f", {plan['workouts_per_week']}x/week"
        if plan.get("preferred_days"):
            line += f" on {', '.join(d[:3] for d in plan['preferred_days'])}"
        if plan.get("workout_types"):
            line += f"; types: {esc(', '.join(plan['workout_types']))}"
        if plan.get("goal_description"):
            line += f"; goal: {esc(plan['goal_description'])}"
        lines.append(line + f" [id: {plan['id']}]")
    return f'<workout_plans status="{status}">\n' + "\n".join(lines) + "\n</workout_plans>"


def format_milestones(data: Mapping[str, Any]) -> str:
    rows, status = data["rows"], data["params"]["status"]
    if not rows:
        return f'<milestone_goals status="{status}">No milestones</milestone_goals>'
    lines = []
    for goal in rows:
        line = f"  {esc(goal['goal_name'])} ({goal['goal_type']}, {goal['status']})"
        unit = esc(goal.get("target_unit") or "")
        if goal.get("target_value") is not None:
            current = num(goal["current_value"], 2) if goal.get("current_value") is not None else "?"
            line += f": {current}/{num(goal['target_value'], 2)}{(' ' + unit) if unit else ''}"
        if goal.get("target_reps"):
            line += f" for {goal['target_reps']} reps"
        if goal.get("time_limit_min"):
            line += f" within {num(goal['time_limit_min'], 2)} min"
        if goal.get("target_date"):
            line += f", by {full_date(goal['target_date'])}"
        if goal.get("achieved_at"):
            line += f", achieved {full_date(goal['achieved_at'].date())}"
        lines.append(line + f" [id: {goal['id']}]")
    return f'<milestone_goals status="{status}">\n' + "\n".join(lines) + "\n</milestone_goals>"


def format_exercise_info(guide: Mapping[str, Any]) -> str:
    """One catalog exercise (trainer.domain.exercise_search.exercise_guide): what it is, its muscles
    and equipment, the steps, and alternatives with the equipment at hand."""
    if guide.get("query") is None:
        return _format_equipment_overview(guide)
    query = esc(guide["query"])
    head = f'<exercise_info query="{escape_text(guide["query"], attribute=True)}">'
    ex = guide.get("exercise")
    if ex is None:
        similar = ", ".join(esc(n) for n in guide.get("similar") or [])
        body = f"No catalog exercise matches '{query}'" + (f"; closest names: {similar}" if similar else "")
        return f"{head}{body}</exercise_info>"
    lines = [esc(ex["summary"]), f"Muscles: {esc(ex['muscles'])}"]
    needs = esc(", ".join(ex["equipment"]) or "none (bodyweight)")
    if ex.get("missing_equipment"):
        needs += f" (not at the current location: {esc(', '.join(ex['missing_equipment']))})"
    lines.append(f"Equipment: {needs}")
    if ex.get("steps"):
        lines.append("Steps:")
        lines.extend(f"  {n}. {esc(step)}" for n, step in enumerate(ex["steps"], start=1))
    equipment = guide.get("equipment")
    where = (
        f"with the equipment at {esc(guide['location'])} ({esc(', '.join(equipment))})"
        if equipment is not None and guide.get("location")
        else "with any equipment (no current location)"
    )
    alternatives = guide.get("alternatives") or []
    if alternatives:
        lines.append(f"Alternatives {where}:")
        for alt in alternatives:
            gear = esc(", ".join(alt["equipment"]) or "bodyweight")
            lines.append(f"  - {esc(alt['name'])} [{gear}]: {esc(alt['why'])}")
    else:
        lines.append(f"No alternatives {where}")
    return f"{head}\n" + "\n".join(lines) + "\n</exercise_info>"


def _format_equipment_overview(overview: Mapping[str, Any]) -> str:
    equipment = overview.get("equipment")
    where = (
        f"with the equipment at {esc(overview.get('location') or 'the current location')} "
        f"({esc(', '.join(equipment))})"
        if equipment is not None
        else "with any equipment (no current location)"
    )
    lines = [f"{overview['count']} strength exercises {where}; by main muscle, easiest first:"]
    for row in overview["muscles"]:
        lines.append(f"  {esc(row['muscle'])} ({row['count']}): {esc(', '.join(row['examples']))}")
    return "<exercise_info>\n" + "\n".join(lines) + "\n</exercise_info>"


def jsonable(value: Any) -> Any:
    """Rows as JSON-safe values (Decimal -> int/float, dates -> ISO, UUID -> str)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, DistributionRow):
        return {"name": value.name, "target": value.target, "actual": value.actual, "debt": value.debt}
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def format_readiness(data: Mapping[str, Any]) -> str:
    """Today's computed readiness (from the newest check-in of the day) and the recent check-ins."""
    today = data.get("today")
    lines = ["<readiness>"]
    if today is None:
        lines.append("No check-in today (ask how they slept and feel before a hard session).")
    else:
        assessment = assess(CheckIn.from_row(today))
        lines.append(f"Today: {assessment.level} - {assessment.advice}")
    for row in data.get("recent") or []:
        parts = [
            f"{k}={row[k]}"
            for k in ("sleep_hours", "sleep_quality", "energy", "stress", "last_session_rpe")
            if row.get(k) is not None
        ]
        if row.get("soreness"):
            parts.append("soreness " + ", ".join(f"{m} {v}/5" for m, v in row["soreness"].items()))
        lines.append(f"- {row['recorded_at']:%Y-%m-%d %H:%M}: {'; '.join(parts) or 'no details'}")
    lines.append("</readiness>")
    return "\n".join(lines)


def format_health_data(data: Mapping[str, Any]) -> str:
    """Today's readiness from the health data, the nights, the trends and other apps' workouts."""
    lines = ["<health_data>", f"Today: {esc(data['today'])}", f"Sleep: {esc(data['sleep'])}"]
    lines.extend(f"Trend: {esc(line)}" for line in data.get("trends") or ())
    lines.append(f"Other apps: {escape_text(data['workouts'])}")
    lines.append("</health_data>")
    return "\n".join(lines)
