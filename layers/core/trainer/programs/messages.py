"""A day's workout as a push/SMS text (at most 1,600 characters) and as markdown
(docs/programs.md#what-a-plan-and-a-day-are-made-of).

The text groups the warm-up into one line, lists the main exercises with sets x reps @ load and rest,
keeps the cool-down brief and ends with a nudge; abbreviations (BB, DB, KB) and a compact layout keep a
long workout under the limit, and `enforce_length` is the last resort for any text.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainer.domain.timers import exercise_timer
from trainer.domain.workout import Exercise, Workout, _num
from trainer.programs.models import SMS_LIMIT, MessageDay, MessageInput, MessageLine, PlanDay

KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
_ABBREVIATIONS = (("Barbell", "BB"), ("Dumbbell", "DB"), ("Kettlebell", "KB"))
CLOSING = "💪 Let's crush it! Reply when done."
ELLIPSIS = "…"


def _sections(workout: Workout) -> tuple[list[Exercise], list[Exercise], list[Exercise]]:
    ordered = sorted(workout.exercises, key=lambda e: e.order)
    warm = [e for e in ordered if e.group is not None and e.group.type == "warmup"]
    cool = [e for e in ordered if e.group is not None and e.group.type == "cooldown"]
    main = [e for e in ordered if e not in warm and e not in cool]
    return warm, main, cool


def _minutes(exercises: Sequence[Exercise]) -> int:
    return (
        max(1, round(sum(exercise_timer(e).total_duration_sec for e in exercises) / 60)) if exercises else 0
    )


def short_name(name: str) -> str:
    for word, abbreviation in _ABBREVIATIONS:
        name = name.replace(word, abbreviation)
    return name


def _rest(seconds: int | None) -> str:
    if not seconds:
        return ""
    if seconds >= 120 and seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds}s"


def _values(values: Sequence[float]) -> str:
    if len(set(values)) == 1:
        return _num(values[0])
    return "/".join(_num(v) for v in values)


def prescription(ex: Exercise, *, with_rest: bool = True) -> str:
    """'4×8 @ 60 kg (rest 2 min)', '3×45s hold', '12 min', '8 rounds 20s on / 10s off'."""
    match ex.exercise_type:
        case "reps":
            text = f"{ex.sets}×{_values(ex.reps or [])}"
            if ex.load_each and any(v > 0 for v in ex.load_each):
                text += f" @ {_values(ex.load_each)} {ex.load_unit}"
        case "hold":
            text = f"{ex.sets}×{_values(ex.hold_sec or [])}s hold"
        case "duration":
            text = f"{_num(ex.duration_min)} min"
            if ex.distance:
                text += f", {_num(ex.distance)} {ex.distance_unit}"
            if ex.target_pace:
                text += f" @ {ex.target_pace}"
        case _:
            text = f"{ex.rounds} rounds {ex.work_sec}s on / {ex.rest_sec}s off"
    rest = _rest(ex.rest_sec) if ex.exercise_type in ("reps", "hold") else ""
    return f"{text} (rest {rest})" if with_rest and rest else text


def _number(i: int) -> str:
    return KEYCAPS[i - 1] if i <= len(KEYCAPS) else f"{i}."


def display_name(name: str) -> str:
    """'Walking, Treadmill' -> 'Walking (treadmill)'; other names abbreviated (BB, DB, KB)."""
    if ", " in name:
        head, tail = name.split(", ", 1)
        name = f"{head} ({tail.lower()})"
    return short_name(name)


def message_day(workout: Workout | None, day: PlanDay | None = None) -> MessageDay:
    """What a day's message is written from: a training day's warm-up and cool-down as names and minutes
    and its main work as lines with their numbers (a day without a workout reads as a rest day)."""
    weekday = day.weekday if day else None
    if workout is None or (day is not None and day.kind == "rest"):
        return MessageDay(weekday=weekday, kind="rest", recovery_notes=day.recovery_notes if day else None)
    warm, main, cool = _sections(workout)
    return MessageDay(
        weekday=weekday,
        focus=day.focus if day and day.focus else (workout.title or "Workout").split(" - Week")[0],
        deload=True if workout.title and "(deload)" in workout.title else None,
        warmup_min=_minutes(warm),
        warmup=[display_name(e.exercise_name) for e in warm],
        main=[
            MessageLine(
                exercise=display_name(ex.exercise_name),
                prescription=prescription(ex, with_rest=False),
                rest=(_rest(ex.rest_sec) or None) if ex.exercise_type in ("reps", "hold") else None,
            )
            for ex in main
        ],
        cooldown_min=_minutes(cool),
        cooldown=[display_name(e.exercise_name) for e in cool],
        notes=list(day.notes) if day and day.notes else None,
    )


def _heading(day: MessageDay, week_number: int | None) -> str:
    when = f"{day.weekday} " if day.weekday else ""
    week = f" - Week {week_number}" if week_number else ""
    deload = " (deload)" if day.deload else ""
    return f"🏋️ {when}{day.focus or 'Workout'}{week}{deload}"


def day_text(day: MessageDay, week_number: int | None = None, *, compact: bool = False) -> str:
    """The message for a training day; `compact` drops rests and notes for long workouts."""
    lines = [_heading(day, week_number), ""]
    if day.warmup:
        lines += [f"WARM-UP ({day.warmup_min or 1} min)", f"• {' + '.join(day.warmup)}", ""]
    lines.append("MAIN WORKOUT")
    for i, line in enumerate(day.main or [], start=1):
        rest = f" (rest {line.rest})" if line.rest and not compact else ""
        lines.append(f"{_number(i)} {line.exercise}: {line.prescription}{rest}")
    lines.append("")
    if day.cooldown:
        lines += [f"COOL DOWN ({day.cooldown_min or 1} min)", " + ".join(day.cooldown), ""]
    if day.notes and not compact:
        lines += [f"📝 {note}" for note in day.notes[:3]] + [""]
    lines.append(CLOSING)
    return "\n".join(lines)


def render_text(
    workout: Workout, day: PlanDay | None = None, week_number: int | None = None, *, compact: bool = False
) -> str:
    """The message for a training day's workout; `compact` drops rests and notes for long workouts."""
    return day_text(message_day(workout, day), week_number, compact=compact)


def rest_day_text(day: MessageDay, week_number: int | None = None) -> str:
    week = f" - Week {week_number}" if week_number else ""
    notes = day.recovery_notes or "Rest day: recover, walk, sleep well."
    return f"😴 {day.weekday} rest day{week}\n\n{notes}\n\n💤 Recover well - see you next session!"


def enforce_length(text: str, limit: int = SMS_LIMIT) -> str:
    """The text cut to `limit` characters at a line break when one is near, ending with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)]
    newline = cut.rfind("\n")
    if newline >= limit // 2:
        cut = cut[:newline]
    return cut.rstrip() + ELLIPSIS


def day_message(day: MessageDay, week_number: int | None = None) -> str:
    """The offline writer's text for a day: compacted and then cut if it is too long."""
    if day.kind == "rest":
        return enforce_length(rest_day_text(day, week_number))
    text = day_text(day, week_number)
    if len(text) > SMS_LIMIT:
        text = day_text(day, week_number, compact=True)
    return enforce_length(text)


def workout_message(message: MessageInput) -> str:
    """The offline `workout_message` agent: the day's text, compacted and then cut if it is too long."""
    return day_message(message_day(message.day.workout, message.day), message.week_number)


def render_workout_markdown(workout: Workout, day: PlanDay | None = None) -> str:
    """The workout as markdown (warm-up, main workout, cool down, notes)."""
    warm, main, cool = _sections(workout)
    when = f"{day.weekday}, {day.date.day} {day.date:%B %Y}" if day else (workout.title or "Today")
    lines = [f"# Workout - {when}"]
    if workout.title:
        lines += [f"Focus: {workout.title}"]
    lines.append("")
    if warm:
        lines += [
            f"## Warm-Up ({_minutes(warm)} min)",
            *[f"- {e.exercise_name}: {_plain(e)}" for e in warm],
            "",
        ]
    lines.append("## Main Workout")
    for i, ex in enumerate(main, start=1):
        lines += [f"### {i}. {ex.exercise_name}", _plain(ex, with_rest=True)]
    lines.append("")
    if cool:
        lines += [
            f"## Cool Down ({_minutes(cool)} min)",
            *[f"- {e.exercise_name}: {_plain(e)}" for e in cool],
            "",
        ]
    if day and day.notes:
        lines += ["## Notes", *[f"- {n}" for n in day.notes], ""]
    return "\n".join(lines).rstrip() + "\n"


def _plain(ex: Exercise, *, with_rest: bool = False) -> str:
    """'4 sets x 8 reps @ 60 kg, rest 90 s' (per-set values joined with '/')."""
    match ex.exercise_type:
        case "reps":
            text = f"{ex.sets} sets x {_values(ex.reps or [])} reps"
            if ex.load_each and any(v > 0 for v in ex.load_each):
                text += f" @ {_values(ex.load_each)} {ex.load_unit}"
        case "hold":
            text = f"{ex.sets} sets x {_values(ex.hold_sec or [])} s hold"
        case "duration":
            text = f"{_num(ex.duration_min)} min"
            if ex.distance:
                text += f", {_num(ex.distance)} {ex.distance_unit}"
        case _:
            text = f"{ex.rounds} rounds of {ex.work_sec} s on / {ex.rest_sec} s off"
    if with_rest and ex.exercise_type in ("reps", "hold") and ex.rest_sec:
        text += f", rest {ex.rest_sec} s"
    return text
