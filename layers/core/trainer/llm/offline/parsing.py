"""Turning a user's words into the tools' own argument models (offline policy)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from trainer.domain.muscles import MUSCLES
from trainer.llm.offline.intents import INJURY, LOCATION
from trainer.tools.analytics import TimePeriod
from trainer.tools.calendar import CreateWorkoutPlanArgs, ManageMilestoneArgs
from trainer.tools.goals import CategoryGoalIn, SetGoalsArgs
from trainer.tools.logging import LogCompletedExerciseArgs
from trainer.tools.preferences import PreferenceType, SetPreferenceArgs

EX_ID = re.compile(r"\bex_[A-Za-z0-9]+\b")

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "ten": 10, "twelve": 12}  # fmt: skip
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
            "eighth": 8, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6}  # fmt: skip
CATEGORIES = {
    "strength": "Strength", "hypertrophy": "Hypertrophy", "muscle": "Hypertrophy", "size": "Hypertrophy",
    "endurance": "Endurance", "cardio": "Cardio", "conditioning": "Conditioning", "mobility": "Mobility",
    "flexibility": "Flexibility", "power": "Power", "weight loss": "Weight Loss", "fat loss": "Fat Loss",
    "stability": "Stability", "balance": "Balance", "speed": "Speed", "general fitness": "General Fitness",
}  # fmt: skip
MUSCLE_ALIASES = {
    **{m.lower(): m for m in MUSCLES},
    "quads": "Quadriceps", "hams": "Hamstrings", "lats": "Back", "delts": "Shoulders", "traps": "Trapezius",
    "core": "Abs", "bis": "Biceps", "tris": "Triceps", "pecs": "Chest", "glute": "Glutes", "calf": "Calves",
}  # fmt: skip
BODY_PARTS = ("lower back", "shoulder", "knee", "back", "wrist", "elbow", "ankle", "hip", "neck", "hamstring",
              "calf", "foot", "groin", "chest")  # fmt: skip
WORKOUT_TYPES = (
    ("upper body", "upper body"), ("lower body", "lower body"), ("full body", "full body"), ("legs", "legs"),
    ("leg", "legs"), ("push", "push"), ("pull", "pull"), ("chest", "chest"), ("back", "back"),
    ("arms", "arms"), ("shoulders", "shoulders"), ("core", "core"), ("hiit", "hiit"), ("run", "cardio"),
    ("cardio", "cardio"), ("yoga", "mobility"), ("mobility", "mobility"), ("stretch", "mobility"),
    ("strength", "strength"),
)  # fmt: skip
STOPWORDS = frozenset(
    """a an the my i i've did do done just finished completed log logged record recorded of at with for and
    sets set reps rep x kg kgs kilos lbs lb pounds today this morning some please each to in on was were then
    had have""".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _number(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token.lower())


def _round_load(value: float, unit: str | None) -> float:
    step = 5.0 if unit == "lbs" else 2.5
    return max(step, round(value / step) * step)


def workout_type(text: str) -> str:
    lowered = text.lower()
    for key, kind in WORKOUT_TYPES:
        if re.search(rf"\b{re.escape(key)}\b", lowered):
            return kind
    return "full body"


def duration_minutes(text: str) -> int | None:
    if m := re.search(r"(\d{1,3})\s*-?\s*(?:min|mins|minutes|minute)\b", text, re.IGNORECASE):
        return int(m.group(1))
    if re.search(r"\bhalf an hour\b", text, re.IGNORECASE):
        return 30
    if re.search(r"\ban hour\b|\b1 hour\b", text, re.IGNORECASE):
        return 60
    return None


def resolve_date(text: str, today: date) -> date:
    """'today', 'tomorrow', 'on Monday', 'next Friday', 'in 3 days', '2026-05-04'; default tomorrow."""
    lowered = text.lower()
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            pass
    if "day after tomorrow" in lowered:
        return today + timedelta(days=2)
    if "tomorrow" in lowered:
        return today + timedelta(days=1)
    if re.search(r"\btoday\b|\btonight\b", lowered):
        return today
    if m := re.search(r"\bin (\w+) (day|week)s?\b", lowered):
        n = _number(m.group(1))
        if n:
            return today + timedelta(days=n * (7 if m.group(2) == "week" else 1))
    for index, name in enumerate(WEEKDAYS):
        if re.search(rf"\b{name}\b", lowered):
            ahead = (index - today.weekday()) % 7 or 7
            return today + timedelta(days=ahead)
    return today + timedelta(days=1)


def resolve_deadline(text: str, today: date) -> date | None:
    lowered = text.lower()
    if m := re.search(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := re.search(r"\bin (\w+) (week|month)s?\b", lowered):
        n = _number(m.group(1))
        if n:
            return today + timedelta(days=n * (7 if m.group(2) == "week" else 30))
    if m := re.search(r"\bby (?:the end of )?(" + "|".join(MONTHS) + r")\b(?:\s+(\d{4}))?", lowered):
        month = MONTHS.index(m.group(1)) + 1
        year = int(m.group(2)) if m.group(2) else today.year + (1 if month < today.month else 0)
        following = date(year + (month == 12), month % 12 + 1, 1)
        return following - timedelta(days=1)
    if "next year" in lowered:
        return date(today.year + 1, 12, 31)
    if "next month" in lowered:
        return today + timedelta(days=30)
    return None


def expiry(text: str, now: datetime) -> tuple[str | None, bool]:
    """(expires_at ISO, delete_after_use) per the preference rules of seed 000 §2."""
    lowered = text.lower()
    if m := re.search(r"\bfor (?:the next |a |another )?(\w+)? ?(day|week|month)s?\b", lowered):
        n = _number(m.group(1)) if m.group(1) else 1
        if n:
            days = {"day": 1, "week": 7, "month": 30}[m.group(2)] * n
            return (now + timedelta(days=days)).isoformat(), False
    if re.search(r"\bthis week\b", lowered):
        return (now + timedelta(days=7)).isoformat(), False
    if re.search(r"\b(today|this workout|this session|right now|for now|tonight)\b", lowered):
        return None, True
    return None, False


def identify_exercise(text: str, exercises: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The exercise a message refers to: by id, by position ('the second', '#2', 'last') or by name."""
    if not exercises:
        return None
    ordered = sorted(exercises, key=lambda e: int(e.get("order") or 0))
    if m := EX_ID.search(text):
        found = next((e for e in ordered if e.get("id") == m.group(0)), None)
        if found:
            return found
    lowered = text.lower()
    if re.search(r"\b(the )?last (one|exercise)\b", lowered):
        return ordered[-1]
    for word, position in ORDINALS.items():
        if re.search(rf"\b{word}\b", lowered) and position <= len(ordered):
            return ordered[position - 1]
    if m := re.search(r"(?:#|exercise |number |no\.? ?)(\d{1,2})\b", lowered):
        position = int(m.group(1))
        if 1 <= position <= len(ordered):
            return ordered[position - 1]
    said = {_stem(w) for w in _words(text)} - STOPWORDS
    best: tuple[int, dict[str, Any]] | None = None
    for exercise in ordered:
        name_words = {_stem(w) for w in _words(str(exercise.get("exercise_name", "")))} - STOPWORDS
        score = len(name_words & said)
        if score and (best is None or score > best[0]):
            best = (score, exercise)
    return best[1] if best else None


def swap_target_text(text: str) -> str:
    """The part of a swap request naming the exercise to replace."""
    if m := re.search(r"instead of (.+)", text, re.IGNORECASE):
        return m.group(1)
    return re.split(r"\b(?:for|with|to|into)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]


def adjustments_for(text: str, exercise: dict[str, Any]) -> dict[str, Any]:
    lowered = text.lower()
    changes: dict[str, Any] = {}
    sets = int(exercise.get("sets") or 0)
    reps = list(exercise.get("reps") or [])
    loads = list(exercise.get("load_each") or [])
    unit = exercise.get("load_unit")
    if re.search(r"heavier|more weight", lowered):
        if loads:
            changes["load_each"] = [_round_load(v * 1.1 + 0.01, unit) for v in loads]
        elif reps:
            changes["reps"] = [r + 2 for r in reps]
    if re.search(r"lighter|less weight", lowered) and loads:
        changes["load_each"] = [_round_load(v * 0.9, unit) for v in loads]
    if "more reps" in lowered and reps:
        changes["reps"] = [r + 2 for r in reps]
    if re.search(r"fewer reps|less reps", lowered) and reps:
        changes["reps"] = [max(1, r - 2) for r in reps]
    if "more sets" in lowered and sets:
        changes["sets"] = sets + 1
        for name, values in (
            ("reps", changes.get("reps", reps)),
            ("load_each", changes.get("load_each", loads)),
        ):
            if values:
                changes[name] = [*values, values[-1]]
        if exercise.get("hold_sec"):
            holds = list(exercise["hold_sec"])
            changes["hold_sec"] = [*holds, holds[-1]]
    if re.search(r"fewer sets|less sets", lowered) and sets > 1:
        changes["sets"] = sets - 1
        for name, values in (
            ("reps", changes.get("reps", reps)),
            ("load_each", changes.get("load_each", loads)),
        ):
            if values:
                changes[name] = values[: sets - 1]
        if exercise.get("hold_sec"):
            changes["hold_sec"] = list(exercise["hold_sec"])[: sets - 1]
    rest = exercise.get("rest_sec")
    if re.search(r"more rest|longer rest", lowered) and rest is not None:
        changes["rest_sec"] = int(rest) + 30
    if re.search(r"less rest|shorter rest", lowered) and rest is not None:
        changes["rest_sec"] = max(0, int(rest) - 30)
    if exercise.get("hold_sec") and re.search(r"longer hold|shorter hold", lowered):
        delta = 10 if "longer" in lowered else -10
        changes["hold_sec"] = [max(5, h + delta) for h in exercise["hold_sec"]]
    return changes


CARDIO_NAMES = {
    "ran": "Running", "run": "Running", "jogged": "Jogging", "cycled": "Cycling", "biked": "Cycling",
    "rode": "Cycling", "swam": "Swimming", "walked": "Walking", "rowed": "Rowing",
}  # fmt: skip
NOT_EXERCISE_WORDS = frozenset(
    {"times", "rounds", "held", "hold", "holding", "seconds", "sec", "did", "done"}
)
UNITS_AFTER_NUMBER = r"\d+(?:\.\d+)?\s*(kg|kgs|kilos?|lbs?|pounds?|s|sec|secs|seconds|min|minutes)?\b"


def parse_logged_exercise(text: str) -> LogCompletedExerciseArgs | None:
    """'3x10 bench press at 60kg', 'I did 3 sets of 12 squats', 'ran 5 km in 28 minutes',
    'held a plank for 60 seconds 3 times'."""
    lowered = text.lower()
    load_m = re.search(r"(\d+(?:\.\d+)?)\s*(kg|kgs|kilos?|lbs?|pounds?)\b", lowered)
    load = float(load_m.group(1)) if load_m else None
    load_unit = None if not load_m else ("kg" if load_m.group(2).startswith("k") else "lbs")
    cardio = re.search(r"\b(ran|run|jogged|cycled|biked|rode|swam|walked|rowed)\b", lowered)
    dist_m = re.search(r"(\d+(?:\.\d+)?)\s*(km|k|mi|miles?)\b", lowered)
    mins = duration_minutes(text)
    if cardio or (dist_m and mins):
        verb = cardio.group(1) if cardio else "ran"
        name = CARDIO_NAMES[verb]
        entry: dict[str, Any] = {"exercise_name": name, "exercise_type": "duration"}
        if mins:
            entry["duration_min"] = mins
        if dist_m:
            entry["distance"] = float(dist_m.group(1))
            entry["distance_unit"] = "mi" if dist_m.group(2).startswith("mi") else "km"
        if "duration_min" not in entry and "distance" not in entry:
            return None
        return LogCompletedExerciseArgs.model_validate(entry)
    hold_m = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)\b", lowered)
    sets_reps = re.search(r"(\d{1,2})\s*(?:x|sets? of|×)\s*(\d{1,3})", lowered)
    times_m = re.search(r"(\d{1,2}|two|three|four|five)\s*(?:times|sets|rounds)\b", lowered)
    name_text = re.sub(r"\d{1,2}\s*(?:x|sets? of|×)\s*\d{1,3}", " ", lowered)
    name_text = re.sub(UNITS_AFTER_NUMBER, " ", name_text)
    name_words = [
        w
        for w in _words(name_text)
        if w not in STOPWORDS and w not in NUMBER_WORDS and w not in NOT_EXERCISE_WORDS
    ]
    if not name_words:
        return None
    name = " ".join(name_words[:4]).title()
    if hold_m and not sets_reps:
        sets = (_number(times_m.group(1)) or 1) if times_m else 1
        return LogCompletedExerciseArgs(
            exercise_name=name, exercise_type="hold", sets=sets, hold_sec=[int(hold_m.group(1))] * sets
        )
    if sets_reps:
        sets, rep_count = int(sets_reps.group(1)), int(sets_reps.group(2))
        return LogCompletedExerciseArgs(
            exercise_name=name,
            exercise_type="reps",
            sets=sets,
            reps=[rep_count] * sets,
            load=load,
            load_unit=load_unit if load is not None else None,
        )
    return None


def parse_goals(text: str) -> SetGoalsArgs | None:
    """set_goals arguments from 'strength 60%, cardio 40%' or 'focus on glutes and hamstrings'."""
    lowered = text.lower()
    segments = re.split(r",|;|\band\b|\bplus\b", lowered)
    found: list[tuple[str, str, float | None]] = []
    for segment in segments:
        pct_m = re.search(r"(\d{1,3}(?:\.\d+)?)\s*(?:%|percent)", segment)
        pct = float(pct_m.group(1)) if pct_m else None
        label: tuple[str, str] | None = None
        for key, muscle in sorted(MUSCLE_ALIASES.items(), key=lambda kv: -len(kv[0])):
            if re.search(rf"\b{re.escape(key)}\b", segment):
                label = ("muscle", muscle)
                break
        if label is None:
            for key, category in sorted(CATEGORIES.items(), key=lambda kv: -len(kv[0])):
                if re.search(rf"\b{re.escape(key)}\b", segment):
                    label = ("category", category)
                    break
        if label and all(label[1] != name for _, name, _ in found):
            found.append((label[0], label[1], pct))
    if not found:
        return None
    kind = "muscle" if sum(k == "muscle" for k, _, _ in found) > len(found) / 2 else "category"
    chosen = [(name, pct) for k, name, pct in found if k == kind]
    given = [p for _, p in chosen if p is not None]
    missing = [n for n, p in chosen if p is None]
    left = max(0.0, 100.0 - sum(given))
    share = round(left / len(missing), 1) if missing else 0.0
    weights = {name: (pct if pct is not None else share) for name, pct in chosen}
    if kind == "muscle":
        return SetGoalsArgs(goal_type="muscle", muscle_goals=weights)
    return SetGoalsArgs(
        goal_type="category",
        category_goals=[
            CategoryGoalIn(category=name, description=f"{name} focus", percentage=pct)
            for name, pct in weights.items()
        ],
    )


def parse_preference(text: str, now: datetime) -> SetPreferenceArgs:
    lowered = text.lower()
    expires_at, once = expiry(text, now)
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    kind: PreferenceType
    if INJURY.search(text) and part:
        kind = "injury"
        description = f"{part.title()} pain - avoid loading the {part}"
        guidance = f"Exclude exercises that load the {part}; offer pain-free alternatives"
        if not expires_at and not once:
            expires_at = (now + timedelta(days=7)).isoformat()
    elif m := re.search(
        r"\b(?:hate|don'?t like|do not like|dislike|can'?t stand|no more|never give me)\s+(?:doing\s+)?"
        r"(?:the\s+|any\s+)?([a-z][a-z -]{2,40}?)"
        r"(?=[.,!?;]|\s+(?:and|but|so|anymore|any more|please|again)\b|$)",
        lowered,
    ):
        thing = m.group(1).strip()
        kind = "exercise"
        description = f"User dislikes {thing}"
        guidance = f"Never include {thing} in recommendations"
    elif m := re.search(r"\bavoid(?:ing)?\s+(?:the\s+|my\s+|any\s+)?([a-z][a-z -]{2,40}?)"
                        r"(?=[.,!?;]|\s+for\b|$)",
                        lowered):  # fmt: skip
        thing = m.group(1).strip()
        muscle = (
            MUSCLE_ALIASES.get(thing) or MUSCLE_ALIASES.get(_stem(thing)) or MUSCLE_ALIASES.get(thing + "s")
        )
        kind = "muscle_group" if muscle or part else "exercise"
        description = f"Avoid {thing}"
        guidance = f"Do not program exercises that target {thing}"
    elif m := re.search(r"\bonly have (\d{1,3})\s*(?:min|mins|minutes)\b", lowered):
        kind = "time"
        description = f"Only {m.group(1)} minutes available"
        guidance = f"Keep the workout within {m.group(1)} minutes including rest"
        if not expires_at:
            once = True
    elif re.search(r"\b(no equipment|i don'?t have|only have)\b", lowered):
        kind = "equipment"
        description = text.strip()[:120]
        guidance = "Only use equipment the user has; bodyweight alternatives otherwise"
    elif re.search(r"\b(take it easy|go easy|tired|exhausted|low intensity)\b", lowered):
        kind = "intensity"
        description = "User wants lower intensity"
        guidance = "Reduce loads and volume; keep RPE around 6"
    elif m := re.search(r"\bprefer\s+(.{3,80}?)(?=[.!?;]|$)", lowered):
        kind = "workout"
        description = f"Prefers {m.group(1).strip()}"
        guidance = f"Favour {m.group(1).strip()} when planning workouts"
    else:
        kind = "other"
        description = text.strip()[:120]
        guidance = "Take this into account"
    preference = SetPreferenceArgs(type=kind, description=description, guidance=guidance)
    if expires_at:
        preference.expires_at = datetime.fromisoformat(expires_at)
    if once:
        preference.delete_after_use = True
    return preference


def parse_location(text: str) -> str | None:
    if m := LOCATION.search(text):
        name = (m.group("a") or m.group("b") or "").strip()
        return name or None
    return None


def parse_milestone(text: str, today: date) -> ManageMilestoneArgs:
    lowered = text.lower()
    value: float | None = None
    unit: str | None = None
    if m := re.search(r"\b(half marathon|marathon)\b", lowered):
        name, kind = f"Run a {m.group(1)}", "endurance"
        value, unit = (21.1 if m.group(1).startswith("half") else 42.2), "km"
    elif m := re.search(
        r"\b(run|row|swim|cycle|bike|walk)?\s*(?:an?\s+)?(\d+(?:\.\d+)?)\s*(k|km|mi|miles?)\b", lowered
    ):
        verb = m.group(1) or "run"
        unit = "mi" if m.group(3).startswith("mi") else "km"
        name, kind, value = f"{verb.title()} {m.group(2)} {unit}", "endurance", float(m.group(2))
    elif m := re.search(
        r"\b(bench|squat|deadlift|overhead press|press)\w*\s+(\d+(?:\.\d+)?)\s*(kg|lbs?)\b", lowered
    ):
        unit = "kg" if m.group(3) == "kg" else "lbs"
        name, kind, value = f"{m.group(1).title()} {m.group(2)} {unit}", "strength", float(m.group(2))
    elif m := re.search(r"\b(\d{1,3})\s+(pull-?ups?|push-?ups?|chin-?ups?|dips)\b", lowered):
        name, kind = f"{m.group(1)} {m.group(2)}", "strength"
        value, unit = float(m.group(1)), "reps"
    else:
        name, kind = text.strip()[:80], "other"
    return ManageMilestoneArgs(
        action="create",
        goal_name=name,
        goal_type=kind,
        target_value=value,
        target_unit=unit,
        target_date=resolve_deadline(text, today),
    )


def parse_plan(text: str, today: date) -> CreateWorkoutPlanArgs:
    lowered = text.lower()
    weeks = 4
    if m := re.search(
        r"\b(\d{1,2}|one|two|three|four|five|six|eight|twelve)[- ]?(week|wk|month)s?\b", lowered
    ):
        n = _number(m.group(1)) or 4
        weeks = n * (4 if m.group(2) == "month" else 1)
    days = [d.title() for d in WEEKDAYS if re.search(rf"\b{d}s?\b", lowered)]
    per_week = len(days) or 3
    if m := re.search(r"\b(\d|two|three|four|five|six)\s*(?:x|times|days|sessions|workouts)\s*"
                      r"(?:a|per|/|each)\s*week",
                      lowered):  # fmt: skip
        per_week = _number(m.group(1)) or per_week
    start = (
        resolve_date(text, today)
        if re.search(r"\bstart", lowered)
        else today + timedelta(days=(7 - today.weekday()) % 7 or 7)
    )
    kind = workout_type(text)
    return CreateWorkoutPlanArgs(
        plan_name=f"{weeks}-week {kind} plan",
        start_date=start.isoformat(),
        duration_weeks=weeks,
        goal_description=text.strip()[:200],
        workouts_per_week=per_week,
        preferred_days=days or None,
        workout_types=[kind] if kind != "full body" else None,
    )


STATS_PERIODS: tuple[tuple[str, TimePeriod], ...] = (
    (r"all[- ]time|ever|lifetime", "all_time"),
    (r"year|annual", "year"),
    (r"quarter|3 months|three months", "quarter"),
    (r"week", "week"),
    (r"month", "month"),
)


def stats_period(text: str) -> TimePeriod:
    lowered = text.lower()
    for pattern, period in STATS_PERIODS:
        if re.search(pattern, lowered):
            return period
    return "month"


def timer_exercise(text: str) -> dict[str, Any]:
    """An inline intervals exercise for generate_exercise_timer ('tabata', '30 on 15 off 6 rounds')."""
    lowered = text.lower()
    work = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)?\s*(?:on|work)\b", lowered)
    rest = re.search(r"(\d{1,3})\s*(?:s|sec|secs|seconds)?\s*(?:off|rest)\b", lowered)
    rounds = re.search(r"(\d{1,2})\s*(?:rounds|sets|intervals)\b", lowered)
    return {
        "exercise_name": "Tabata intervals" if "tabata" in lowered else "Intervals",
        "exercise_type": "intervals",
        "rounds": int(rounds.group(1)) if rounds else 8,
        "work_sec": int(work.group(1)) if work else 20,
        "rest_sec": int(rest.group(1)) if rest else 10,
    }
