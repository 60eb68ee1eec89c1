"""What a message says the user wants, for the offline coach: goals ('strength 60%, cardio 40%', 'move
10% from strength to cardio'), preferences (an injury, a disliked exercise, the equipment or time at
hand), a milestone ('run 5 km in under 30 minutes by March')."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from trainer.domain.equipment import NO_EQUIPMENT
from trainer.domain.message_words import stem
from trainer.domain.restrictions import restricted_phrases, restrictions_in
from trainer.offline.dates import expiry, resolve_deadline
from trainer.offline.patterns import INJURY
from trainer.offline.vocabulary import BODY_PARTS, CATEGORIES, MUSCLE_ALIASES
from trainer.tools.calendar import ManageMilestoneArgs
from trainer.tools.goals import CategoryGoalIn, GoalEntry, SetGoalsArgs
from trainer.tools.injuries import RecordInjuryArgs
from trainer.tools.preferences import SetPreferenceArgs, SettablePreferenceType

StatedPreference = SetPreferenceArgs | RecordInjuryArgs
"""What a message states: a preference, or an injury (which has its own tool, record_injury)."""


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


GOAL_SHIFT = re.compile(
    r"\b(?:move|shift|take|transfer|put|swap)\s+(\d{1,3}(?:\.\d+)?)\s*(?:%|percent)\s+(?:of\s+)?"
    r"(?:from|off|away from|out of)\s+(?:my\s+)?([a-z][a-z ]*?)\s+"
    r"(?:to|into|onto|towards?|over to|and give it to)"
    r"\s+(?:my\s+)?([a-z][a-z ]*?)(?=\s+(?:work|training|goals?)\b|[.,!?;]|$)",
    re.IGNORECASE,
)


def _category(phrase: str) -> str | None:
    for key, category in sorted(CATEGORIES.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"\b{re.escape(key)}\b", phrase.lower()):
            return category
    return None


def parse_goal_shift(text: str, goals: Sequence[GoalEntry]) -> SetGoalsArgs | None:
    """'move 10% from strength to cardio': the current category goals with that share moved."""
    m = GOAL_SHIFT.search(text)
    if m is None or not goals:
        return None
    amount = float(m.group(1))
    source, target = _category(m.group(2)), _category(m.group(3))
    if source is None or target is None or source == target:
        return None
    weights = {g.name: g.percentage for g in goals}
    names = {name.lower(): name for name in weights}
    source_name = names.get(source.lower())
    if source_name is None:
        return None
    target_name = names.get(target.lower(), target)
    moved = min(amount, weights[source_name])
    weights[source_name] = round(weights[source_name] - moved, 1)
    weights[target_name] = round(weights.get(target_name, 0.0) + moved, 1)
    descriptions = {g.name: g.description for g in goals}
    return SetGoalsArgs(
        goal_type="category",
        category_goals=[
            CategoryGoalIn(
                category=name, description=descriptions.get(name) or f"{name} focus", percentage=pct
            )
            for name, pct in weights.items()
            if pct > 0
        ],
    )


DISLIKE = re.compile(
    r"\b(?:hate|don'?t like|do not like|dislike|can'?t stand|no more|never give me|not a fan of)\s+"
    r"(?:doing\s+)?(?:the\s+|any\s+)?([a-z][a-z ,&'-]{2,80}?)"
    r"(?=[.!?;]|,\s*(?:never|but|so|please|i|and i)\b"
    r"|\s+(?:but|so|anymore|any more|please|again|because)\b|$)",
    re.IGNORECASE,
)

NOT_AN_EXERCISE = re.compile(r"\b(i|me|you|them|those|these|it|that|this|want|give|never|anything)\b", re.I)


def disliked_exercises(text: str) -> list[str]:
    """The exercises a message says the user dislikes: 'I hate burpees and lunges' -> both."""
    found: list[str] = []
    for m in DISLIKE.finditer(text):
        for item in re.split(r",|\band\b|\bor\b|&", m.group(1)):
            thing = item.strip(" '-").lower()
            if len(thing) >= 3 and not NOT_AN_EXERCISE.search(thing) and thing not in found:
                found.append(thing)
    return found


def equipment_statement(text: str) -> tuple[str, str] | None:
    """(description, guidance) of a statement about the equipment at hand ('no equipment',
    "I don't have a barbell here", 'only have dumbbells')."""
    lowered = text.lower()
    if NO_EQUIPMENT.search(lowered):
        return "No equipment available", "Bodyweight exercises only"
    if m := re.search(
        r"\b(?:i )?don'?t have (?:a |an |any )?([a-z -]{3,40}?)(?=\s+(?:here|today|with me)\b|[.,!?;]|$)",
        lowered,
    ):
        thing = m.group(1).strip()
        return f"No {thing} available", f"Do not use a {thing}; offer alternatives"
    if m := re.search(
        r"\bonly have (?:a |an |some )?([a-z -]{3,40}?)(?=\s+(?:here|today|with me)\b|[.,!?;]|$)", lowered
    ):
        thing = m.group(1).strip()
        return f"Only {thing} available", f"Only use {thing} (or bodyweight)"
    return None


def parse_preference(text: str, now: datetime) -> StatedPreference:
    lowered = text.lower()
    expires_at, once = expiry(text, now)
    part = next((p for p in BODY_PARTS if re.search(rf"\b{p}s?\b", lowered)), None)
    kind: SettablePreferenceType
    if INJURY.search(text) and part:
        until = datetime.fromisoformat(expires_at) if expires_at else now + timedelta(days=1 if once else 7)
        return RecordInjuryArgs(injury=f"{part.title()} pain - avoid loading the {part}", until=until)
    if dislikes := disliked_exercises(text):
        thing = dislikes[0]
        kind = "exercise"
        description = f"Dislikes {thing}"
        guidance = f"Never include {thing} in recommendations"
        expires_at, once = None, False
    elif m := re.search(r"\bavoid(?:ing)?\s+(?:the\s+|my\s+|any\s+)?([a-z][a-z -]{2,40}?)"
                        r"(?=[.,!?;]|\s+for\b|$)",
                        lowered):  # fmt: skip
        thing = m.group(1).strip()
        muscle = (
            MUSCLE_ALIASES.get(thing) or MUSCLE_ALIASES.get(stem(thing)) or MUSCLE_ALIASES.get(thing + "s")
        )
        kind = "muscle_group" if muscle or part else "exercise"
        description = f"Avoid {thing}"
        guidance = f"Do not program exercises that target {thing}"
    elif m := TODAY_LIMIT.search(lowered):
        kind = "time"
        minutes = next(g for g in m.groups() if g)
        description = f"Only {minutes} minutes available"
        guidance = f"Keep the workout within {minutes} minutes including rest"
        if not expires_at:
            once = True
    elif equipment := equipment_statement(text):
        kind = "equipment"
        description, guidance = equipment
        if not expires_at:
            once = True
    elif re.search(r"\b(take it easy|go easy|tired|exhausted|low intensity)\b", lowered):
        kind = "intensity"
        description = "Take it easy: lower intensity"
        guidance = "Reduce loads and volume; keep RPE around 6"
    elif m := re.search(r"\bprefer\s+(.{3,80}?)(?=[.!?;]|$)", lowered):
        kind = "workout"
        description = f"Prefers {m.group(1).strip()}"
        guidance = f"Favour {m.group(1).strip()} when planning workouts"
    elif restriction := restriction_preference(text):
        return restriction
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


def restriction_preference(text: str) -> SetPreferenceArgs | None:
    """The movement restrictions a text states ('nothing above my head'), as one lasting preference."""
    restricted = restrictions_in(text)
    if not restricted:
        return None
    movements = " or ".join(restricted)
    return SetPreferenceArgs(
        type="exercise",
        description=f"No {movements} movements",
        guidance=f"Never include {movements} exercises ({', '.join(restricted_phrases(text))})",
    )


def parse_preferences(text: str, now: datetime) -> list[StatedPreference]:
    """Every preference a message states: an injury (which keeps the joint's movements out on its own:
    an injury is recorded once, whatever else is said with it), then each disliked exercise, else one
    preference."""
    lowered = text.lower()
    found: list[StatedPreference] = []
    if INJURY.search(text) and any(re.search(rf"\b{p}s?\b", lowered) for p in BODY_PARTS):
        found.append(parse_preference(text, now))
    for thing in disliked_exercises(text):
        found.append(
            SetPreferenceArgs(
                type="exercise",
                description=f"Dislikes {thing}",
                guidance=f"Never include {thing} in recommendations",
            )
        )
    return found or [parse_preference(text, now)]


GOAL_CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Weight Loss", re.compile(r"\b(los(e|ing) (some )?(weight|fat|kilos|pounds|lbs|the belly)|fat loss|slim|"
                               r"lean(er)?|tone up|drop (a few )?(kilos|pounds|weight))\b", re.I)),
    ("Strength", re.compile(r"\b(strong(er)?|strength)\b", re.I)),
    ("Hypertrophy", re.compile(r"\b(build(ing)? muscle|muscle|bigger|bulk|size)\b", re.I)),
    ("Endurance", re.compile(r"\b(fit(ter|ness)?|endurance|stamina|run(ning)?|cardio)\b", re.I)),
    ("Mobility", re.compile(r"\b(mobility|flexib\w+|move better)\b", re.I)),
)  # fmt: skip


def goal_weights(statement: str) -> SetGoalsArgs | None:
    """The goal categories a goal said in words gives ('lose weight and get stronger' -> Weight Loss
    50, Strength 50), equal shares that sum to 100; None when it names none."""
    found = [name for name, pattern in GOAL_CATEGORIES if pattern.search(statement)]
    if not found:
        return None
    share, extra = divmod(100, len(found))
    return SetGoalsArgs(
        goal_type="category",
        category_goals=[
            CategoryGoalIn(category=name, description=f"From your goal: {statement[:200]}",
                           percentage=float(share + (1 if k < extra else 0)))
            for k, name in enumerate(found)
        ],
    )  # fmt: skip


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
    limit = time_limit_minutes(lowered) if kind == "endurance" else None
    if (
        kind == "endurance"
        and limit is None
        and (bare := re.search(r"\bsub[- ]?(\d{2,3})\b(?!\s*(?:k|km|mi))", lowered))
    ):
        limit = float(bare.group(1))  # 'a sub-30 5k': minutes, as runners say it
    reps = None
    if (
        kind == "strength"
        and unit in ("kg", "lbs")
        and (r := re.search(r"\b(?:for|x)\s*(\d{1,3})(?:\s*reps?)?\b|\b(\d{1,3})\s*reps?\b", lowered))
    ):
        reps = int(r.group(1) or r.group(2))
    return ManageMilestoneArgs(
        action="create",
        goal_name=name,
        goal_type=kind,
        target_value=value,
        target_unit=unit,
        target_date=resolve_deadline(text, today),
        time_limit_min=limit,
        target_reps=reps,
    )


TIME_LIMIT = re.compile(
    r"\b(?:under|in|below|within|sub|faster than|less than)[- ]?(?:an?\s+)?"
    r"(?:(\d{1,2}):(\d{2})|(\d+(?:\.\d+)?)\s*(min(?:ute)?s?|h(?:ou)?rs?|hours?)\b|(hour|half an hour))"
)
_MINUTES = r"(\d{1,3})\s*(?:min|mins|minutes)"
TODAY_LIMIT = re.compile(
    rf"\b(?:only|just)\s+(?:have|got|'ve got|have got)\s+(?:about\s+|around\s+)?{_MINUTES}\b"
    rf"|\b(?:i(?:'ve| have)?|got)\s+(?:only\s+|just\s+)?(?:about\s+|around\s+)?{_MINUTES}\s+"
    r"(?:today|tonight|this (?:morning|afternoon|evening)|max|tops|at most)\b"
    rf"|\b{_MINUTES}\s+(?:is all i(?:'ve| have)|max today|tops today)\b"
)
"""A time limit for today: 'I only have 20 minutes', 'got 25 min today', '30 minutes is all I have'."""


def time_limit(text: str) -> int | None:
    """The minutes a message says the user has today ('only got 20 minutes'); None without a limit."""
    m = TODAY_LIMIT.search(text.lower())
    return int(next(g for g in m.groups() if g)) if m else None


def time_limit_minutes(lowered: str) -> float | None:
    """The time limit of a distance goal, in minutes: 'under 30 minutes', 'in 28:30', 'sub 2 hours',
    'in under an hour'."""
    m = TIME_LIMIT.search(lowered)
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1)) + int(m.group(2)) / 60
    if m.group(5):
        return 30.0 if m.group(5) == "half an hour" else 60.0
    value = float(m.group(3))
    return value * 60 if m.group(4).startswith("h") else value
