"""What a turn must satisfy: the scenario's expectations, plus the rules every turn keeps (a clean,
truthful reply; hard constraints on any workout it delivers). Each check returns the failures it
found, as sentences a reader can act on."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from trainer.domain.catalog import LEVELS, load_catalog
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.loading import LoadSteps
from trainer.domain.movements import equipment_class, name_key
from trainer.domain.prescriptions import rep_range as prescribed_rep_range
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD, recovering_muscles
from trainer.domain.timers import exercise_timer
from trainer.domain.units import convert_distance, convert_weight
from trainer.domain.workout import Exercise

from tests.scenarios import facts
from tests.scenarios.schema import (
    DOMAINS,
    DURATION_TOLERANCE,
    QUICK_MINUTES,
    CalendarEntryMatch,
    CalendarExpect,
    ExerciseCheck,
    Expect,
    HistoryMatch,
    MilestoneMatch,
    PreferenceMatch,
    ProgramMatch,
    ScheduleMatch,
    StateExpect,
    WorkoutExpect,
)
from tests.scenarios.world import Snapshot

READINESS_SORE = 3
"""Soreness (0-5) from which a check-in records a muscle as sore."""

CHANGEOVER_SEC = 60
"""Per exercise: walking over and setting up."""
LOAD_INCREMENT = {"kg": 2.5, "lbs": 5.0}
LOAD_TOLERANCE = 0.01

FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        ("a UUID", r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
        ("an internal id", r"\b(?:ex|art|toolu|msg|workout|pref|plan)_[0-9a-z]+\b"),
        ("a field name or snake_case label", r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"),
        ("an ISO week label", r"\b\d{4}-W\d{1,2}\b"),
        ("a raw timestamp", r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"),
        (
            "a raw schema or tool error",
            r"validation error|field required|input should be|value[_ ]error|extra inputs are not permitted"
            r"|\btype=\w+|\bloc:|needs one value per set|traceback|pydantic|not found in the current workout",
        ),
        ("markup from the model's context", r"</?[a-z_]+(?:\s[^<>]*)?>"),
        ("the offline-model boilerplate", r"offline trainer|running offline|I'?m running on"),
    )
)

CLAIM_LEAD = (
    r"(?:^\W*(?:(?:done|ok|okay|got it|great|all set|sure|perfect|nice|right)\W+)*"
    r"|\bi(?:'ve| have)?\s+(?:just\s+|now\s+|also\s+|already\s+)?"
    r"|\b(?:has|have|was|were)\s+been\s+|\b(?:is|are)\s+now\s+)"
)
"""Where a verb says the coach did something: opening the sentence ("Logged ...", "Done - swapped ..."),
after "I" ("I've removed ..."), or passive ("... has been saved")."""
ALL_DOMAINS = frozenset(DOMAINS)
CLAIMS: tuple[tuple[re.Pattern[str], frozenset[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), frozenset(domains), label)
    for pattern, domains, label in (
        (CLAIM_LEAD + r"(?:logged|recorded)\b", {"history"}, "logged something"),
        (CLAIM_LEAD + r"(?:swapped|replaced|switched out|subbed)\b", {"current_workout"}, "swapped"),
        (
            CLAIM_LEAD + r"(?:removed|deleted|dropped|took out|taken out)\b",
            {
                "current_workout",
                "history",
                "preferences",
                "schedule",
                "plans",
                "milestones",
                "programs",
                "locations",
            },
            "removed something",
        ),
        (CLAIM_LEAD + r"(?:undid|undone)\b", {"history"}, "undid a log"),
        (
            CLAIM_LEAD + r"added\b",
            {"current_workout", "history", "schedule", "preferences", "plans", "programs", "locations"},
            "added",
        ),
        (
            CLAIM_LEAD + r"(?:updated|adjusted|changed|increased|decreased|bumped|lowered|raised|corrected"
            r"|fixed|made|set)\b",
            ALL_DOMAINS,
            "changed something",
        ),
        (
            CLAIM_LEAD + r"(?:scheduled|booked|moved|rescheduled|pushed)\b",
            {"schedule", "plans", "programs"},
            "scheduled",
        ),
        (CLAIM_LEAD + r"(?:noted|saved)\b", ALL_DOMAINS - {"locations"}, "saved something"),
        (CLAIM_LEAD + r"switched\b", {"locations", "current_workout"}, "switched"),
        (
            CLAIM_LEAD + r"(?:created|built|rebuilt|generated)\b",
            {"plans", "schedule", "current_workout", "programs"},
            "created",
        ),
        (r"\bgoals\s+(?:are|have been)\s+(?:now\s+)?(?:set|updated)\b", {"goals"}, "set the goals"),
        (r"\bi'?ll (?:remember|keep that in mind)\b", {"preferences"}, "will remember"),
    )
)
READY_CLAIM = re.compile(r"\b(?:plan|program(?:me)?)\b[^.!?\n]*\b(?:is|'s)\s+(?:now\s+)?ready\b", re.I)
"""A reply saying the training plan is ready: the newest one must be."""
NOT_A_CLAIM = re.compile(
    r"\b(not|no|never|cannot|can'?t|couldn'?t|didn'?t|don'?t|unable|nothing|without|if|once|when|would|"
    r"could|should|shall|want me|let me know|whether)\b|n't\b",
    re.IGNORECASE,
)


@dataclass
class TurnOutcome:
    """One played turn: what the phone got, the state around it, and what the turn cost."""

    say: str
    status_code: int
    body: dict[str, Any]
    before: Snapshot
    after: Snapshot
    usage: dict[str, int] = field(default_factory=dict)
    cost_cents: float = 0.0

    @property
    def response(self) -> dict[str, Any]:
        return dict(self.body.get("response") or {})

    @property
    def messages(self) -> list[str]:
        return [str(m) for m in self.response.get("messages") or []]

    @property
    def question(self) -> dict[str, Any] | None:
        question = self.response.get("question")
        return question if isinstance(question, dict) else None

    @property
    def reply_text(self) -> str:
        parts = list(self.messages)
        if self.question:
            parts.append(str(self.question.get("text") or ""))
            parts.extend(str(o) for o in self.question.get("options") or [])
        return "\n".join(p for p in parts if p)

    @property
    def tools(self) -> list[tuple[str, bool]]:
        actions = self.body.get("actions") or []
        return [(str(a.get("tool")), bool((a.get("result") or {}).get("success", True))) for a in actions]

    @property
    def workout(self) -> list[dict[str, Any]] | None:
        exercises = self.response.get("exercises")
        return sorted(exercises, key=lambda e: int(e.get("order") or 0)) if exercises else None

    @property
    def timers(self) -> list[Any] | None:
        for holder in (self.body, self.response):
            value = holder.get("timers")
            if value is not None:
                return list(value)
        return None


@dataclass
class Constraints:
    """Hard rules for every workout from the current turn on."""

    avoid_muscles: set[str] = field(default_factory=set)
    avoid_exercises: set[str] = field(default_factory=set)


def compact(text: str) -> str:
    """Lower-case letters and digits of singular words: 'Push-Ups' -> 'pushup'."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "".join(w[:-1] if len(w) > 2 and w.endswith("s") and not w.endswith("ss") else w for w in words)


def names_match(name: str, phrase: str) -> bool:
    """True when the exercise name contains the phrase (alternatives separated by '|')."""
    return any(compact(p) and compact(p) in compact(name) for p in phrase.split("|"))


def mentions(text: str, needle: str) -> bool:
    if len(needle) > 2 and needle.startswith("/") and needle.endswith("/"):
        return re.search(needle[1:-1], text, re.IGNORECASE) is not None
    return needle.lower() in text.lower()


def estimated_minutes(exercises: list[dict[str, Any]]) -> float:
    """Work and rest as the exercises' timers lay them out, plus a changeover per exercise."""
    seconds = sum(exercise_timer(Exercise.model_validate(e)).total_duration_sec for e in exercises)
    return (seconds + CHANGEOVER_SEC * len(exercises)) / 60


def work(exercise: dict[str, Any]) -> float:
    """Load x reps summed over the sets (reps alone without loads; hold seconds for holds)."""
    reps = list(exercise.get("reps") or [])
    loads = [float(v or 0) for v in exercise.get("load_each") or []]
    holds = list(exercise.get("hold_sec") or [])
    if holds:
        return float(sum(holds) * int(exercise.get("sets") or 1) / len(holds))
    if loads and any(loads):
        return sum(load * r for load, r in zip(loads, reps, strict=False))
    return float(sum(reps)) or float(exercise.get("duration_min") or exercise.get("rounds") or 0)


def _overall_change(before: list[dict[str, Any]], after: list[dict[str, Any]], *, harder: bool) -> list[str]:
    """Every exercise's work (load x reps x sets) moved one way, and at least one moved."""
    old = {str(e.get("id") or e.get("exercise_name")): work(e) for e in before}
    pairs = [
        (str(e.get("exercise_name")), old.get(str(e.get("id") or e.get("exercise_name"))), work(e))
        for e in after
    ]
    word = "harder" if harder else "easier"
    wrong = [n for n, a, b in pairs if a is not None and (b < a if harder else b > a)]
    moved = [n for n, a, b in pairs if a is not None and a != b]
    if wrong:
        return [f"{wrong} went the wrong way for '{word}'"]
    return [] if moved else [f"no exercise got {word}"]


def main_muscle(exercise: dict[str, Any]) -> str | None:
    muscles = exercise.get("muscles_utilized") or []
    return max(muscles, key=lambda m: m.get("share", 0)).get("muscle") if muscles else None


def muscle_shares(exercise: dict[str, Any]) -> dict[str, float]:
    return {str(m["muscle"]): float(m["share"]) for m in exercise.get("muscles_utilized") or []}


def _max_load(exercise: dict[str, Any], unit: str) -> float | None:
    loads = [float(v) for v in exercise.get("load_each") or [] if v]
    if not loads:
        return None
    return convert_weight(max(loads), exercise.get("load_unit") or unit, unit)


def progression_cap(
    before: Snapshot, exercise: dict[str, Any], location_equipment: list[Any]
) -> tuple[str, float] | None:
    """(what the cap is based on, the heaviest load the progression rule allows) for an exercise, from
    the user's history; None when the rule has nothing to say. The rule is trainer.domain.progression's
    (`progression_target` in the range the exercise is trained in, or the older `suggest_from_history`),
    else one load increment above the last load of the same exercise."""
    unit = before.weight_unit
    name = str(exercise.get("exercise_name"))
    try:
        from trainer.domain import progression

        if hasattr(progression, "progression_target"):
            histories = progression.exercise_histories(before.history, unit, before.zone)
            steps = LoadSteps.for_unit(unit, location_equipment)
            reps = exercise.get("reps") or [1]
            own = histories.get(name_key(name))
            rep_range = progression.established_range(own) if own else prescribed_rep_range(min(reps))
            target = progression.progression_target(
                name,
                histories,
                steps,
                rep_range=rep_range,
                equipment=exercise.get("equipment") or [],
                muscles=exercise.get("muscles_utilized") or [],
            )
            if target is None:
                return None
            return f"{target.last_load:g} {unit} on {target.based_on}", float(target.max_load)
        if hasattr(progression, "suggest_from_history"):
            suggestion = progression.suggest_from_history(before.history, name, unit)
            if suggestion is None:
                return None
            return f"{suggestion.last_load:g} {unit} last time", max(
                float(suggestion.load), suggestion.last_load
            )
    except (ImportError, AttributeError, TypeError, ValueError, KeyError, ArithmeticError):
        pass
    rows = [r for r in before.history if compact(str(r.get("exercise_name", ""))) == compact(name)]
    loads = [(r["performed_at"], load) for r in rows if (load := _max_load(r, unit)) is not None]
    if not loads:
        return None
    last = max(loads)[1]
    return f"{last:g} {unit} last time", last + LOAD_INCREMENT.get(unit, 2.5)


def reply_hygiene(outcome: TurnOutcome) -> list[str]:
    text = outcome.reply_text
    failures: list[str] = []
    if not text.strip():
        failures.append("the reply is empty (no message and no question)")
    for label, pattern in FORBIDDEN:
        if match := pattern.search(text):
            failures.append(f"the reply shows {label}: {match.group(0)!r}")
    return failures


def changed_domains(before: Snapshot, after: Snapshot) -> set[str]:
    return {d for d in DOMAINS if before.domain(d) != after.domain(d)}


def truthful_claims(outcome: TurnOutcome) -> list[str]:
    """A sentence that says something was done must be backed by a change of the stored state."""
    changed = changed_domains(outcome.before, outcome.after)
    failures: list[str] = []
    for message in outcome.messages:
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", message):
            if not sentence.strip() or sentence.rstrip().endswith("?") or NOT_A_CLAIM.search(sentence):
                continue
            for pattern, domains, label in CLAIMS:
                if pattern.search(sentence) and not domains & changed:
                    failures.append(
                        f"the reply claims it {label} ({sentence.strip()[:120]!r}) but nothing it refers to "
                        f"changed ({', '.join(sorted(changed)) or 'no stored state'} changed)"
                    )
                    break
            if READY_CLAIM.search(sentence) and not NOT_A_CLAIM.search(sentence):
                newest = outcome.after.programs[-1] if outcome.after.programs else {}
                if newest.get("status") != "ready":
                    failures.append(
                        f"the reply says the plan is ready ({sentence.strip()[:120]!r}) but it is "
                        f"{newest.get('status') or 'missing'}"
                    )
    return failures


def _by_position(exercises: list[dict[str, Any]], at: int) -> dict[str, Any] | None:
    index = at - 1 if at > 0 else len(exercises) + at
    return exercises[index] if 0 <= index < len(exercises) else None


def _essence(exercise: dict[str, Any] | None) -> dict[str, Any]:
    keep = ("exercise_name", "sets", "reps", "load_each", "hold_sec", "duration_min", "rounds", "work_sec")
    return {k: (exercise or {}).get(k) for k in keep}


def new_or_changed(outcome: TurnOutcome, exercises: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Exercises of the delivered workout that were not in the workout before the turn, as they were."""
    earlier = [_essence(e) for e in (outcome.before.current_workout or {}).get("exercises") or []]
    return [e for e in exercises if _essence(e) not in earlier]


def workout_constraints(outcome: TurnOutcome, rules: Constraints, expect: WorkoutExpect | None) -> list[str]:
    """Hard rules for every exercise a turn puts in a workout."""
    exercises = outcome.workout
    if not exercises:
        return []
    failures: list[str] = []
    after = outcome.after
    unit = after.weight_unit
    location = after.current_location
    allowed: set[str] | None = None
    where = "the current location"
    if expect is not None and expect.equipment_only is not None:
        allowed = available_equipment(expect.equipment_only)
        where = "what the user has with them"
    elif location is not None:
        allowed = available_equipment(location.get("equipment") or [])
        where = str(location["name"])
    equipment = list((location or {}).get("equipment") or [])
    exempt = set(expect.allow_recovering) if expect else set()
    recovering = recovering_muscles(outcome.before.history, outcome.before.taken_at)
    check_progression = expect.progression if expect else True
    for ex in new_or_changed(outcome, exercises):
        name = str(ex.get("exercise_name"))
        label = f"#{ex.get('order')} {name}"
        if allowed is not None:
            missing = sorted(missing_equipment(ex.get("equipment") or [], allowed))
            if missing:
                failures.append(f"{label} needs {', '.join(missing)}, which {where} does not have")
        shares = muscle_shares(ex)
        loaded = sorted(m for m, s in shares.items() if s > 0 and m in rules.avoid_muscles)
        if loaded:
            failures.append(
                f"{label} loads {', '.join(loaded)}, which the user must not load (injury/preference)"
            )
        for phrase in sorted(rules.avoid_exercises):
            if names_match(name, phrase):
                failures.append(f"{label} is an exercise the user excluded ({phrase!r})")
        worked = {m for m, s in shares.items() if s >= WORKED_SHARE_THRESHOLD}
        still = sorted(worked & set(recovering) - exempt)
        if still:
            failures.append(f"{label} works {', '.join(still)}, still recovering from a recent session")
        if ex.get("load_unit") and ex["load_unit"] != unit:
            failures.append(f"{label} is loaded in {ex['load_unit']}, but the user trains in {unit}")
        if ex.get("distance_unit") and ex["distance_unit"] != after.distance_unit:
            failures.append(
                f"{label} is measured in {ex['distance_unit']}, but the user uses {after.distance_unit}"
            )
        load = _max_load(ex, unit)
        cap = progression_cap(outcome.before, ex, equipment) if check_progression and load else None
        if cap is not None and load is not None and load > cap[1] + LOAD_TOLERANCE:
            failures.append(
                f"{label} prescribes {load:g} {unit}, more than the progression rule allows after "
                f"{cap[0]} (at most {cap[1]:g} {unit})"
            )
    return failures


def _exercise_check(
    check: ExerciseCheck, now: list[dict[str, Any]], before: list[dict[str, Any]]
) -> list[str]:
    ex = _by_position(now, check.at)
    where = f"exercise {check.at}" if check.at > 0 else "the last exercise"
    if ex is None:
        return [f"{where} does not exist (the workout has {len(now)})"]
    old = _by_position(before, check.at) if before else None
    name = str(ex.get("exercise_name"))
    failures: list[str] = []
    if check.name_has and not names_match(name, check.name_has):
        failures.append(f"{where} is {name!r}, expected {check.name_has!r}")
    if check.name_not and names_match(name, check.name_not):
        failures.append(f"{where} is still {name!r}")
    if check.same_as_before is True and _essence(ex) != _essence(old):
        failures.append(f"{where} changed ({_essence(old)} -> {_essence(ex)}) but should not have")
    if (
        check.same_as_before is False
        and old is not None
        and ex.get("exercise_name") == old.get("exercise_name")
    ):
        failures.append(f"{where} is still {name!r}; it should have been replaced")
    unit = str(ex.get("load_unit") or "kg")
    new_load, old_load = _max_load(ex, unit), _max_load(old or {}, unit)
    if check.heavier_than_before and not (new_load and old_load and new_load > old_load):
        failures.append(f"{where} is not heavier than before ({old_load} -> {new_load} {unit})")
    if check.harder_than_before and not _harder(ex, old or {}, unit):
        failures.append(f"{where} is not harder than before ({_essence(old)} -> {_essence(ex)})")
    if check.lighter_than_before and not (new_load and old_load and new_load < old_load):
        failures.append(f"{where} is not lighter than before ({old_load} -> {new_load} {unit})")
    for key, field_name in (("sets", "sets"), ("reps", "reps"), ("rest", "rest_sec")):
        wanted = getattr(check, key)
        if wanted is not None and ex.get(field_name) != wanted:
            failures.append(f"{where} has {field_name} {ex.get(field_name)}, expected {wanted}")
    if check.loads is not None and not _same_numbers(ex.get("load_each"), check.loads):
        failures.append(f"{where} has loads {ex.get('load_each')}, expected {check.loads}")
    if check.completed is not None and bool(ex.get("completed")) != check.completed:
        failures.append(f"{where} completed={bool(ex.get('completed'))}, expected {check.completed}")
    if check.main_muscle is not None and main_muscle(ex) not in check.main_muscle:
        failures.append(
            f"{where} ({name}) mainly trains {main_muscle(ex)}, expected {'/'.join(check.main_muscle)}"
        )
    return failures


def _harder(new: dict[str, Any], old: dict[str, Any], unit: str) -> bool:
    new_load, old_load = _max_load(new, unit) or 0.0, _max_load(old, unit) or 0.0
    if new_load != old_load:
        return new_load > old_load
    return sum(new.get("reps") or []) + sum(new.get("hold_sec") or []) > sum(old.get("reps") or []) + sum(
        old.get("hold_sec") or []
    )


def _same_numbers(got: Iterable[Any] | None, wanted: list[float], tolerance: float = LOAD_TOLERANCE) -> bool:
    values = [float(v) for v in got or []]
    return len(values) == len(wanted) and all(
        abs(a - b) <= tolerance for a, b in zip(values, wanted, strict=True)
    )


def workout_expectations(outcome: TurnOutcome, expect: WorkoutExpect) -> list[str]:
    exercises = outcome.workout
    if not expect.present:
        return ["the reply carries a workout, but none was expected"] if exercises else []
    current = (outcome.after.current_workout or {}).get("exercises") or []
    shown = exercises or sorted(current, key=lambda e: int(e.get("order") or 0))
    if not exercises:
        return ["the reply carries no workout"]
    failures: list[str] = []
    names = [str(e.get("exercise_name")) for e in shown]
    if expect.minutes is not None:
        target = QUICK_MINUTES if expect.minutes == "quick" else expect.minutes
        low, high = target * (1 - DURATION_TOLERANCE), target * (1 + DURATION_TOLERANCE)
        minutes = estimated_minutes(shown)
        if not low <= minutes <= high:
            asked = f"'quick' ({QUICK_MINUTES} min)" if expect.minutes == "quick" else f"{target} min"
            failures.append(
                f"the workout lasts about {minutes:.0f} min, asked {asked} (allowed {low:.0f}-{high:.0f})"
            )
    if expect.focus:
        on_focus = [n for n, e in zip(names, shown, strict=True) if main_muscle(e) in expect.focus]
        if len(on_focus) < math.ceil(len(shown) / 2):
            failures.append(
                f"only {len(on_focus)} of {len(shown)} exercises mainly train "
                f"{'/'.join(expect.focus)}: {names}"
            )
    if expect.min_exercises is not None and len(shown) < expect.min_exercises:
        failures.append(f"the workout has {len(shown)} exercises, expected at least {expect.min_exercises}")
    if expect.max_exercises is not None and len(shown) > expect.max_exercises:
        failures.append(f"the workout has {len(shown)} exercises, expected at most {expect.max_exercises}")
    if expect.max_sets is not None:
        over = [
            n
            for n, e in zip(names, shown, strict=True)
            if int(e.get("sets") or e.get("rounds") or 0) > expect.max_sets
        ]
        if over:
            failures.append(f"{over} have more than {expect.max_sets} sets")
    if expect.max_reps is not None:
        many = [
            f"{n} {e.get('sets')}x{max(e.get('reps') or [0])}"
            for n, e in zip(names, shown, strict=True)
            if max(int(r) for r in e.get("reps") or [0]) > expect.max_reps
        ]
        if many:
            failures.append(f"{many} prescribe more than {expect.max_reps} reps a set")
    for n, e in zip(names, shown, strict=True):
        worked = sorted(
            m for m, s in muscle_shares(e).items() if s >= WORKED_SHARE_THRESHOLD and m in expect.spares
        )
        if worked:
            failures.append(f"{n} works {', '.join(worked)}, which the check-in said are sore")
    if expect.only_muscles:
        off = [n for n, e in zip(names, shown, strict=True) if main_muscle(e) not in expect.only_muscles]
        if off:
            failures.append(f"{off} mainly train something other than {'/'.join(expect.only_muscles)}")
    if expect.max_level is not None:
        catalog = load_catalog()
        top = LEVELS.index(expect.max_level)
        above = [
            n for n in names if (entry := catalog.get(n)) is not None and LEVELS.index(entry.level) > top
        ]
        if above:
            failures.append(f"{above} are above {expect.max_level} level")
    title = str((outcome.after.current_workout or {}).get("title") or "")
    if expect.title_has is not None and expect.title_has.lower() not in title.lower():
        failures.append(f"the workout is titled {title!r}, expected {expect.title_has!r} in it")
    before = sorted(
        (outcome.before.current_workout or {}).get("exercises") or [], key=lambda e: int(e.get("order") or 0)
    )
    if expect.harder_overall is not None:
        failures += _overall_change(before, shown, harder=expect.harder_overall)
    if expect.count_change is not None and len(shown) - len(before) != expect.count_change:
        failures.append(
            f"the workout went from {len(before)} to {len(shown)} exercises, expected a change of "
            f"{expect.count_change:+d}"
        )
    for phrase in expect.includes:
        if not any(names_match(n, phrase) for n in names):
            failures.append(f"the workout has no {phrase!r}: {names}")
    for phrase in expect.excludes:
        if any(names_match(n, phrase) for n in names):
            failures.append(f"the workout still has {phrase!r}: {names}")
    if expect.has_type and not any(e.get("exercise_type") == expect.has_type for e in shown):
        failures.append(f"the workout has no {expect.has_type} exercise: {names}")
    for check in expect.exercises:
        failures.extend(_exercise_check(check, shown, before))
    return failures


def _history_row_matches(row: dict[str, Any], match: HistoryMatch, today: Any, zone: Any) -> list[str]:
    """Why a stored row does not match (empty when it does)."""
    problems: list[str] = []
    if not names_match(str(row.get("exercise_name")), match.name):
        return ["name"]
    if match.sets is not None and row.get("sets") != match.sets:
        problems.append(f"sets {row.get('sets')} != {match.sets}")
    if match.reps is not None and row.get("reps") != match.reps:
        problems.append(f"reps {row.get('reps')} != {match.reps}")
    if match.loads is not None and not _same_numbers(row.get("load_each"), match.loads):
        problems.append(f"loads {row.get('load_each')} != {match.loads}")
    if match.unit is not None and row.get("load_unit") != match.unit:
        problems.append(f"unit {row.get('load_unit')} != {match.unit}")
    if match.loads_kg is not None:
        unit = row.get("load_unit") or "kg"
        kg = [convert_weight(float(v), unit, "kg") for v in row.get("load_each") or []]
        if not _same_numbers(kg, match.loads_kg, tolerance=0.6):
            problems.append(f"loads {row.get('load_each')} {unit} are not {match.loads_kg} kg")
    if match.hold is not None and row.get("hold_sec") != match.hold:
        problems.append(f"holds {row.get('hold_sec')} != {match.hold}")
    if match.minutes is not None and abs(float(row.get("duration_min") or 0) - match.minutes) > 0.5:
        problems.append(f"minutes {row.get('duration_min')} != {match.minutes}")
    if match.distance_km is not None:
        distance = row.get("distance")
        km = convert_distance(float(distance), row.get("distance_unit") or "km", "km") if distance else 0.0
        if abs(km - match.distance_km) > 0.02 * match.distance_km:
            problems.append(f"distance {distance} {row.get('distance_unit')} is not {match.distance_km} km")
    if match.name_not is not None and match.name_not.lower() in str(row.get("exercise_name")).lower():
        problems.append(f"name {row.get('exercise_name')!r} contains {match.name_not!r}")
    if match.rpe is not None and (row.get("rpe") is None or float(row["rpe"]) != match.rpe):
        problems.append(f"rpe {row.get('rpe')} != {match.rpe}")
    if match.rpe_each is not None and not _same_numbers(row.get("rpe_each"), match.rpe_each):
        problems.append(f"rpe per set {row.get('rpe_each')} != {match.rpe_each}")
    if match.today and row["performed_at"].astimezone(zone).date() != today:
        problems.append(f"performed {row['performed_at']:%Y-%m-%d}, not today")
    return problems


def _find_rows(
    rows: list[dict[str, Any]], matches: list[HistoryMatch], after: Snapshot, what: str
) -> list[str]:
    zone = after.zone
    today = after.taken_at.astimezone(zone).date()
    failures = []
    for match in matches:
        attempts = [(row, _history_row_matches(row, match, today, zone)) for row in rows]
        if any(not problems for _, problems in attempts):
            continue
        named = [(row, problems) for row, problems in attempts if problems != ["name"]]
        if named:
            row, problems = named[-1]
            failures.append(f"{what}: {row['exercise_name']!r} does not match ({'; '.join(problems)})")
        else:
            logged = [str(r.get("exercise_name")) for r in rows]
            failures.append(f"{what}: no {match.name!r} row (rows: {logged})")
    return failures


def _preference_problems(pref: dict[str, Any], match: PreferenceMatch, now: datetime) -> list[str]:
    text = f"{pref.get('description')} {pref.get('guidance')}".lower()
    if not any(alt.lower() in text for alt in match.text.split("|")):
        return ["text"]
    problems: list[str] = []
    expires = pref.get("expires_at")
    one_shot = bool(pref.get("delete_after_use")) or (
        expires is not None and expires - now <= timedelta(days=1.5)
    )
    if match.type is not None and pref.get("type") not in match.type.split("|"):
        problems.append(f"type {pref.get('type')} != {match.type}")
    if (
        match.permanent is not None
        and (expires is None and not pref.get("delete_after_use")) != match.permanent
    ):
        problems.append("permanent" if not match.permanent else f"not permanent (expires {expires})")
    if match.one_shot is not None and one_shot != match.one_shot:
        problems.append("one-shot" if not match.one_shot else "not limited to the next workout or today")
    if match.expires_in_days is not None:
        low, high = match.expires_in_days
        days = (expires - now).total_seconds() / 86400 if expires else None
        if days is None or not low <= days <= high:
            problems.append(f"expires in {days if days is None else round(days, 1)} days, not {low}-{high}")
    return problems


def _schedule_problems(row: dict[str, Any], match: ScheduleMatch, after: Snapshot) -> list[str]:
    zone = after.zone
    local = row["scheduled_date"].astimezone(zone)
    today = after.taken_at.astimezone(zone).date()
    problems = []
    if match.days_ahead is not None and (local.date() - today).days != match.days_ahead:
        problems.append(f"on {local:%a %Y-%m-%d}, not {match.days_ahead} days ahead")
    if match.weekday is not None and local.strftime("%A").lower() != match.weekday.lower():
        problems.append(f"on a {local:%A}, not {match.weekday}")
    if match.type_has is not None and not any(
        alt.lower() in str(row.get("workout_type")).lower() for alt in match.type_has.split("|")
    ):
        problems.append(f"type {row.get('workout_type')!r} lacks {match.type_has!r}")
    if match.hour is not None and local.hour != match.hour:
        problems.append(f"at {local:%H:%M}, not {match.hour}:00")
    return problems


def _milestone_problems(row: dict[str, Any], match: MilestoneMatch) -> list[str]:
    if match.name.lower() not in str(row.get("goal_name", "")).lower():
        return ["name"]
    problems = []
    for name in ("target_value", "time_limit_min", "target_reps"):
        wanted = getattr(match, name)
        if wanted is not None and (row.get(name) is None or abs(float(row[name]) - wanted) > 0.01):
            problems.append(f"{name} {row.get(name)} != {wanted}")
    if match.target_unit is not None and row.get("target_unit") != match.target_unit:
        problems.append(f"target_unit {row.get('target_unit')} != {match.target_unit}")
    if match.target_month is not None and (
        row.get("target_date") is None or row["target_date"].month != match.target_month
    ):
        problems.append(f"target_date {row.get('target_date')} not in month {match.target_month}")
    return problems


def readiness_expectations(before: Snapshot, after: Snapshot, expect: StateExpect) -> list[str]:
    failures: list[str] = []
    old = {r["id"] for r in before.readiness}
    added = [r for r in after.readiness if r["id"] not in old]
    if expect.readiness_added is not None and len(added) != expect.readiness_added:
        failures.append(f"{len(added)} readiness check-ins stored, expected {expect.readiness_added}")
    match = expect.readiness_has
    if match is None:
        return failures
    if not after.readiness:
        return [*failures, "no readiness check-in is stored"]
    row = after.readiness[0]
    problems: list[str] = []
    if match.sleep_hours is not None and (
        row["sleep_hours"] is None or abs(row["sleep_hours"] - match.sleep_hours) > 0.01
    ):
        problems.append(f"sleep_hours {row['sleep_hours']}, expected {match.sleep_hours}")
    for key, limit in (("energy", match.max_energy), ("sleep_quality", match.max_sleep_quality)):
        if limit is not None and (row[key] is None or row[key] > limit):
            problems.append(f"{key} {row[key]}, expected at most {limit}")
    if match.min_stress is not None and (row["stress"] is None or row["stress"] < match.min_stress):
        problems.append(f"stress {row['stress']}, expected at least {match.min_stress}")
    sore = {m for m, level in (row["soreness"] or {}).items() if level >= READINESS_SORE}
    if set(match.sore) - sore:
        problems.append(f"sore muscles {sorted(sore)}, expected {match.sore}")
    if problems:
        failures.append(f"the newest check-in does not match: {'; '.join(problems)}")
    return failures


def _entry_problems(entry: dict[str, Any], match: CalendarEntryMatch, today: date) -> list[str]:
    day = date.fromisoformat(entry["date"])
    problems = []
    if match.days_ahead is not None and (day - today).days != match.days_ahead:
        problems.append(f"on {day:%a %Y-%m-%d}, not {match.days_ahead} days ahead")
    if match.weekday is not None and day.strftime("%A").lower() != match.weekday.lower():
        problems.append(f"on a {day:%A}, not {match.weekday}")
    for name in ("source", "kind", "status"):
        wanted = getattr(match, name)
        if wanted is not None and entry.get(name) != wanted:
            problems.append(f"{name} {entry.get(name)}, not {wanted}")
    if match.focus_has is not None and not any(
        alt.lower() in str(entry.get("focus") or "").lower() for alt in match.focus_has.split("|")
    ):
        problems.append(f"focus {entry.get('focus')!r} lacks {match.focus_has!r}")
    return problems


HARD_EXEMPT = re.compile(
    r"\b(recover\w*|mobility|easy|zone ?2|walk\w*|yoga|stretch\w*|light|rest|deload)\b", re.I
)


def calendar_expectations(before: Snapshot, after: Snapshot, match: CalendarExpect | None) -> list[str]:
    """What the turn did to the calendar, as GET /workouts lists it before and after."""
    if match is None:
        return []
    failures: list[str] = []
    today = after.taken_at.astimezone(after.zone).date()
    old = {e["id"]: e for e in before.calendar}
    new = {e["id"]: e for e in after.calendar}
    added = [e for i, e in new.items() if i not in old]
    unused = list(added)
    for wanted in match.added:
        found = next((e for e in unused if not _entry_problems(e, wanted, today)), None)
        if found is None:
            problems = [_entry_problems(e, wanted, today) for e in added]
            failures.append(
                f"no new calendar entry matches {wanted.model_dump(exclude_none=True)}: {problems[:3]}"
            )
        else:
            unused.remove(found)
    for wanted in match.has:
        if not any(not _entry_problems(e, wanted, today) for e in after.calendar):
            failures.append(f"no calendar entry matches {wanted.model_dump(exclude_none=True)}")
    moved = [
        e for i, e in new.items()
        if i in old and e["kind"] == "training" and e["date"] != old[i]["date"]
    ]  # fmt: skip
    if match.moved is not None and len(moved) != match.moved:
        failures.append(f"{len(moved)} sessions moved, expected {match.moved}: {[m['focus'] for m in moved]}")
    if match.moved_from is not None:
        day = (today + timedelta(days=match.moved_from)).isoformat()
        if not any(old[m["id"]]["date"] == day for m in moved):
            failures.append(f"the session of {day} did not move")
    skipped = [
        e for i, e in new.items() if e["status"] == "skipped" and old.get(i, {}).get("status") != "skipped"
    ]
    if match.skipped is not None and len(skipped) != match.skipped:
        failures.append(f"{len(skipped)} sessions skipped, expected {match.skipped}")
    missed = [e for e in after.calendar if e["status"] == "missed"]
    if match.missed is not None and len(missed) != match.missed:
        failures.append(f"{len(missed)} sessions marked missed, expected {match.missed}")
    ahead = [
        e for e in after.calendar
        if e["kind"] == "training" and e["status"] == "scheduled" and e["date"] >= today.isoformat()
    ]  # fmt: skip
    if match.adapted is not None:
        changed = any(
            e["notes"] != old.get(e["id"], {}).get("notes") and e["source"] == "plan" for e in ahead
        )
        if changed != match.adapted:
            failures.append(f"a session to come was {'' if changed else 'not '}adapted for a missed one")
    if match.training_days is not None:
        off = [
            f"{e['focus']} on {e['weekday']} {e['date']}"
            for e in ahead
            if e["weekday"] not in match.training_days
        ]
        if off:
            failures.append(f"sessions on days not available ({match.training_days}): {off}")
    if match.no_hard_back_to_back:
        hard = sorted(
            date.fromisoformat(e["date"]) for e in ahead if not HARD_EXEMPT.search(str(e.get("focus") or ""))
        )
        pairs = [(a, b) for a, b in itertools.pairwise(hard) if (b - a).days == 1]
        if pairs:
            failures.append(f"hard sessions on consecutive days: {pairs}")
    return failures


def profile_expectations(after: Snapshot, expect: StateExpect) -> list[str]:
    match = expect.profile_has
    if match is None:
        return []
    profile = after.profile
    problems: list[str] = []
    for key in ("age", "sex", "experience", "session_minutes", "no_limitations"):
        wanted = getattr(match, key)
        if wanted is not None and profile.get(key) != wanted:
            problems.append(f"{key} {profile.get(key)!r}, expected {wanted!r}")
    if match.weight_kg is not None and (
        profile.get("weight_kg") is None or abs(float(profile["weight_kg"]) - match.weight_kg) > 0.6
    ):
        problems.append(f"weight_kg {profile.get('weight_kg')!r}, expected {match.weight_kg}")
    if match.available_days is not None and profile.get("available_days") != match.available_days:
        problems.append(f"available_days {profile.get('available_days')}, expected {match.available_days}")
    statement = str(profile.get("goal_statement") or "").lower()
    problems.extend(
        f"goal_statement {statement!r} lacks {word!r}"
        for word in match.goal_has
        if word.lower() not in statement
    )
    injuries = [str(i.get("description", "")).lower() for i in profile.get("injuries") or []]
    if match.injuries_count is not None and len(injuries) != match.injuries_count:
        problems.append(f"{len(injuries)} injuries, expected {match.injuries_count}")
    problems.extend(
        f"no injury names {word!r} (injuries: {injuries})"
        for word in match.injuries_has
        if not any(word.lower() in i for i in injuries)
    )
    return [f"the profile does not match: {'; '.join(problems)}"] if problems else []


def location_expectations(after: Snapshot, expect: StateExpect) -> list[str]:
    failures: list[str] = []
    if expect.locations_count is not None and len(after.locations) != expect.locations_count:
        failures.append(f"{len(after.locations)} locations saved, expected {expect.locations_count}")
    match = expect.location_has
    if match is None:
        return failures
    loc = next((x for x in after.locations if x["name"].lower() == match.name.lower()), None)
    if loc is None:
        return [*failures, f"no location named {match.name!r} ({[x['name'] for x in after.locations]})"]
    items = list(loc.get("equipment") or [])
    have = available_equipment(items)
    problems: list[str] = []
    if match.current is not None and bool(loc["is_current"]) != match.current:
        problems.append(f"current={loc['is_current']}")
    missing = sorted(missing_equipment(match.equipment, have))
    if missing:
        problems.append(f"lacks {missing}")
    extra = sorted(set(match.lacks) & have)
    if extra:
        problems.append(f"has {extra}, which the user did not mention")
    steps = LoadSteps.for_unit(match.unit, items)
    if match.dumbbells_max is not None and (
        not steps.dumbbells or abs(steps.dumbbells[-1] - match.dumbbells_max) > 0.01
    ):
        problems.append(f"dumbbells {list(steps.dumbbells)}, expected up to {match.dumbbells_max}")
    if match.plates is not None and sorted(steps.plates) != sorted(match.plates):
        problems.append(f"plates {list(steps.plates)}, expected {match.plates}")
    if match.bar is not None and steps.bar != match.bar:
        problems.append(f"bar {steps.bar}, expected {match.bar}")
    if problems:
        failures.append(f"location {loc['name']!r}: {'; '.join(problems)}")
    return failures


def settable_loads(outcome: TurnOutcome) -> list[str]:
    """Every load of the delivered workout can be set up at the current location: a barbell load is the
    bar plus pairs of its plates, a dumbbell load one of its pairs (checked when it lists them)."""
    location = outcome.after.current_location
    if location is None or not outcome.workout:
        return []
    unit = outcome.after.weight_unit
    items = list(location.get("equipment") or [])
    steps = LoadSteps.for_unit(unit, items)
    failures: list[str] = []
    for ex in new_or_changed(outcome, outcome.workout):
        kind = equipment_class(str(ex.get("exercise_name")), ex.get("equipment") or [])
        allowed = _settable(kind, steps)
        if not allowed:
            continue
        for load in ex.get("load_each") or []:
            if not any(abs(float(load) - a) <= 0.011 for a in allowed):
                failures.append(
                    f"#{ex.get('order')} {ex.get('exercise_name')} prescribes {load} {unit}, which "
                    f"{location['name']} cannot make (its {kind} loads: {_sample(allowed)})"
                )
                break
    return failures


def _settable(kind: str | None, steps: LoadSteps) -> tuple[float, ...]:
    """Independently of the product's rounding: the bar plus any pairs of plates; the listed pairs."""
    if kind == "barbell" and steps.plates and steps.bar is not None:
        totals = {0.0}
        for _ in range(40):
            totals |= {round(t + 2 * p, 2) for t in totals for p in steps.plates if t + 2 * p <= 500}
        return tuple(sorted(round(steps.bar + t, 2) for t in totals))
    if kind == "dumbbell":
        return steps.dumbbells or steps.kettlebells
    if kind == "kettlebell":
        return steps.kettlebells or steps.dumbbells
    return ()


def _sample(values: tuple[float, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values[:8]) + (" ..." if len(values) > 8 else "")


def state_expectations(before: Snapshot, after: Snapshot, expect: StateExpect) -> list[str]:
    failures: list[str] = []
    for wanted in expect.milestones_has:
        attempts = [_milestone_problems(m, wanted) for m in after.milestones]
        if not any(not problems for problems in attempts):
            close = [p for p in attempts if p != ["name"]]
            shown = "; ".join(close[-1]) if close else f"none named {wanted.name!r}"
            failures.append(f"milestones: {shown} (have {[m.get('goal_name') for m in after.milestones]})")
    old_ids = {r["id"] for r in before.history}
    added = [r for r in after.history if r["id"] not in old_ids]
    if expect.history_added is not None and len(added) != expect.history_added:
        names = [r["exercise_name"] for r in added]
        removed = len(before.history) + len(added) - len(after.history)
        failures.append(
            f"{len(added)} history rows added ({names}), {removed} removed; "
            f"expected {expect.history_added} added"
        )
    failures.extend(_find_rows(after.history, expect.history_has, after, "history"))
    failures.extend(_find_rows(added, expect.history_added_match, after, "rows added"))
    for phrase in expect.history_lacks:
        found = [r["exercise_name"] for r in after.history if names_match(str(r["exercise_name"]), phrase)]
        if found:
            failures.append(f"history still has {found}")
    now = after.taken_at
    for match in expect.preferences_has:
        problems = [_preference_problems(p, match, now) for p in after.preferences]
        if not any(not p for p in problems):
            close = [p for p in problems if p != ["text"]]
            shown = [str(p["description"]) for p in after.preferences]
            detail = "; ".join(close[0]) if close else f"none mentions {match.text!r}: {shown}"
            failures.append(f"no matching preference ({detail})")
    for text in expect.preferences_lacks:
        found = [
            p["description"]
            for p in after.preferences
            if any(alt.lower() in f"{p['description']} {p['guidance']}".lower() for alt in text.split("|"))
        ]
        if found:
            failures.append(f"the preference {found[0]!r} is still active")
    if expect.no_new_permanent_preferences:
        old_prefs = {p["id"] for p in before.preferences}
        for pref in after.preferences:
            if (
                pref["id"] not in old_prefs
                and pref.get("expires_at") is None
                and not pref.get("delete_after_use")
            ):
                failures.append(
                    f"a situation of today became a permanent preference: {pref['description']!r}"
                )
    for kind, wanted, got in (
        ("category", expect.category_goals, after.category_goals),
        ("muscle", expect.muscle_goals, after.muscle_goals),
    ):
        if wanted is None:
            continue
        want = {k.lower(): float(v) for k, v in wanted.items()}
        have = {k.lower(): float(v) for k, v in got.items()}
        if set(want) != set(have) or any(abs(want[k] - have[k]) > 1.0 for k in want):
            failures.append(f"{kind} goals are {got}, expected {wanted}")
    if expect.current_location is not None:
        current = after.current_location
        name = current["name"] if current else None
        if name is None or name.lower() != expect.current_location.lower():
            failures.append(f"the current location is {name!r}, expected {expect.current_location!r}")
    old_schedule = {r["id"] for r in before.schedule}
    new_schedule = [r for r in after.schedule if r["id"] not in old_schedule]
    if expect.schedule_added is not None and len(new_schedule) != expect.schedule_added:
        failures.append(f"{len(new_schedule)} workouts scheduled, expected {expect.schedule_added}")
    for match in expect.schedule_has:
        if not any(not _schedule_problems(r, match, after) for r in after.schedule):
            problems = [_schedule_problems(r, match, after) for r in after.schedule]
            failures.append(
                f"no scheduled workout matches {match.model_dump(exclude_none=True)}: {problems[:3]}"
            )
    for match in expect.schedule_lacks:
        if any(
            not _schedule_problems(r, match, after) for r in after.schedule if r.get("status") == "scheduled"
        ):
            failures.append(f"a scheduled workout still matches {match.model_dump(exclude_none=True)}")
    if expect.plan_has is not None:
        failures.extend(_plan_problems(after, expect))
    if expect.program_has is not None:
        failures.extend(_program_problems(before, after, expect.program_has))
    if expect.history_added_from_workout:
        failures.extend(_logged_as_planned(before, added))
    failures.extend(readiness_expectations(before, after, expect))
    failures.extend(calendar_expectations(before, after, expect.calendar))
    failures.extend(location_expectations(after, expect))
    failures.extend(profile_expectations(after, expect))
    exercises = (after.current_workout or {}).get("exercises") or []
    if expect.workout_open is not None and bool(exercises) != expect.workout_open:
        failures.append(f"the current workout is {'open' if exercises else 'closed'}, expected the opposite")
    if expect.completed_in_workout is not None:
        done = [str(e["exercise_name"]) for e in exercises if e.get("completed")]
        ok = len(done) == len(expect.completed_in_workout) and all(
            any(names_match(n, phrase) for n in done) for phrase in expect.completed_in_workout
        )
        if not ok:
            failures.append(f"completed exercises are {done}, expected {expect.completed_in_workout}")
    if expect.settings is not None:
        for key, value in expect.settings.items():
            if str(after.settings_row.get(key)) != value:
                failures.append(f"setting {key} is {after.settings_row.get(key)!r}, expected {value!r}")
    return failures


def _logged_as_planned(before: Snapshot, added: list[dict[str, Any]]) -> list[str]:
    planned = [e for e in (before.current_workout or {}).get("exercises") or [] if not e.get("completed")]
    if not planned:
        return ["there was no open workout to log"]
    failures = []
    rows = list(added)
    for ex in planned:
        name = str(ex.get("exercise_name"))
        row = next((r for r in rows if str(r["exercise_name"]).lower() == name.lower()), None)
        if row is None:
            failures.append(
                f"{name!r} of the workout was not logged (added: {[r['exercise_name'] for r in added]})"
            )
            continue
        rows.remove(row)
        for key in ("reps", "hold_sec", "load_each"):
            if ex.get(key) is not None and not _same_numbers(row.get(key), [float(v) for v in ex[key]]):
                failures.append(f"{name!r} was logged with {key} {row.get(key)}, planned {ex[key]}")
    return failures


def _program_problems(before: Snapshot, after: Snapshot, match: ProgramMatch) -> list[str]:
    if match.count is not None and len(after.programs) != match.count:
        return [f"the user has {len(after.programs)} training plans, expected {match.count}"]
    if not after.programs:
        return ["the user has no training plan"]
    plan = after.programs[-1]
    problems = [
        f"the training plan's {key.replace('_', ' ')} is {plan.get(key)!r}, expected {wanted!r}"
        for key in ("status", "weeks", "days_per_week", "training_days", "session_minutes")
        if (wanted := getattr(match, key)) is not None and plan.get(key) != wanted
    ]
    if match.weeks_changed is not None:
        earlier = {d["id"]: d for d in before.program_days}
        later = {d["id"]: d for d in after.program_days}
        changed = sorted(
            {d["week_number"] for d in after.program_days if earlier.get(d["id"]) != d}
            | {d["week_number"] for d in before.program_days if d["id"] not in later}
        )
        if changed != sorted(match.weeks_changed):
            problems.append(f"the planned days of weeks {changed} changed, expected {match.weeks_changed}")
    return problems


def _plan_problems(after: Snapshot, expect: StateExpect) -> list[str]:
    plan_match = expect.plan_has
    assert plan_match is not None
    if not after.plans:
        return ["no workout plan was created"]
    plan = after.plans[-1]
    sessions = [r for r in after.schedule if r.get("plan_id") == plan["id"]]
    problems = []
    if plan_match.weeks is not None and plan.get("duration_weeks") != plan_match.weeks:
        problems.append(f"the plan spans {plan.get('duration_weeks')} weeks, expected {plan_match.weeks}")
    if plan_match.per_week is not None and plan.get("workouts_per_week") != plan_match.per_week:
        problems.append(
            f"the plan has {plan.get('workouts_per_week')} workouts a week, expected {plan_match.per_week}"
        )
    if plan_match.days is not None:
        days = sorted({r["scheduled_date"].astimezone(after.zone).strftime("%A") for r in sessions})
        if days != sorted(plan_match.days):
            problems.append(f"the plan's workouts fall on {days}, expected {plan_match.days}")
    if plan_match.sessions is not None and len(sessions) != plan_match.sessions:
        problems.append(f"the plan scheduled {len(sessions)} workouts, expected {plan_match.sessions}")
    return problems


LOAD_PATTERNS = {
    "kg": re.compile(r"(\d+(?:\.\d+)?)\s*(?:kg|kgs|kilos?|kilograms?)\b", re.IGNORECASE),
    "lbs": re.compile(r"(\d+(?:\.\d+)?)\s*(?:lb|lbs|pounds?)\b", re.IGNORECASE),
}


def check_turn(expect: Expect, outcome: TurnOutcome, rules: Constraints, *, final: bool = False) -> list[str]:
    """Every failure of one turn (or, with `final`, of the whole conversation's end state)."""
    failures: list[str] = []
    if not final:
        if outcome.status_code != 200:
            return [f"HTTP {outcome.status_code}: {str(outcome.body)[:300]}"]
        if outcome.body.get("status") != "completed":
            failures.append(f"the turn ended with status {outcome.body.get('status')!r}")
        failures.extend(reply_hygiene(outcome))
        failures.extend(truthful_claims(outcome))
        failures.extend(workout_constraints(outcome, rules, expect.workout))
        failures.extend(settable_loads(outcome))
    called = {name for name, ok in outcome.tools if ok}
    attempted = [name for name, _ in outcome.tools]
    for tool in expect.tools:
        if tool not in called:
            failures.append(f"{tool} was not called successfully (calls: {attempted or 'none'})")
    if expect.tools_any and not called & set(expect.tools_any):
        failures.append(f"none of {expect.tools_any} was called successfully (calls: {attempted or 'none'})")
    for tool in expect.no_tools:
        if tool in attempted:
            failures.append(f"{tool} was called, and should not have been")
    text = outcome.reply_text
    for needle in expect.mentions:
        if not mentions(text, needle):
            failures.append(f"the reply does not mention {needle!r}: {text[:300]!r}")
    if expect.mentions_any and not any(mentions(text, n) for n in expect.mentions_any):
        failures.append(f"the reply mentions none of {expect.mentions_any}: {text[:300]!r}")
    for needle in expect.not_mentions:
        if mentions(text, needle):
            failures.append(f"the reply mentions {needle!r}, and should not: {text[:300]!r}")
    for name in expect.facts:
        truth, pattern = facts.evaluate(name, outcome.after if name in facts.AFTER_TURN else outcome.before)
        if not re.search(pattern, text, re.IGNORECASE):
            failures.append(f"the reply does not state {name.replace('_', ' ')} = {truth}: {text[:300]!r}")
    if expect.asks is True and not (outcome.question or "?" in text):
        failures.append("the reply does not ask the user anything")
    if expect.asks is False and outcome.question:
        failures.append(f"the reply asks {outcome.question.get('text')!r} instead of acting")
    if expect.question_options:
        failures.extend(_one_question(outcome.question, expect.question_options))
    changed = changed_domains(outcome.before, outcome.after)
    for domain in expect.changed:
        if domain not in changed:
            failures.append(f"{domain.replace('_', ' ')} did not change")
    for domain in expect.unchanged:
        if domain in changed:
            failures.append(f"{domain.replace('_', ' ')} changed, and should not have")
    if expect.workout is not None and not final:
        failures.extend(workout_expectations(outcome, expect.workout))
    if expect.names_new_exercises:
        for ex in new_or_changed(outcome, outcome.workout or []):
            if compact(str(ex.get("exercise_name"))) not in compact(text):
                failures.append(
                    f"the reply does not name {ex.get('exercise_name')!r}, which it put in the workout"
                )
    if expect.timers is not None:
        timers = outcome.timers
        wanted = 1 if expect.timers is True else int(expect.timers)
        if expect.timers is False and timers:
            failures.append("the response carries timers, and should not")
        elif expect.timers is not False and len(timers or []) < wanted:
            shown = "no `timers` field" if timers is None else f"{len(timers)} timers"
            failures.append(f"the response delivers {shown}, expected at least {wanted}")
    if expect.state is not None:
        failures.extend(state_expectations(outcome.before, outcome.after, expect.state))
    if expect.loads is not None:
        failures.extend(_load_mentions(text, expect))
    return failures


def _one_question(question: dict[str, Any] | None, wanted: list[str]) -> list[str]:
    if not question:
        return ["the reply asks no question with options"]
    text, options = str(question.get("text") or ""), [str(o).lower() for o in question.get("options") or []]
    failures = []
    if text.count("?") != 1:
        failures.append(f"the reply should ask one question, it asks {text.count('?')}: {text[:300]!r}")
    missing = [w for w in wanted if not any(w.lower() in o for o in options)]
    if missing:
        failures.append(f"the question's options {options} lack {missing}")
    return failures


def _load_mentions(text: str, expect: Expect) -> list[str]:
    spec = expect.loads
    assert spec is not None
    values = [float(v) for v in LOAD_PATTERNS[spec.unit].findall(text)]
    low = spec.min if spec.min is not None else -math.inf
    high = spec.max if spec.max is not None else math.inf
    outside = [v for v in values if not low <= v <= high]
    failures = []
    if spec.required and not [v for v in values if low <= v <= high]:
        failures.append(
            f"the reply names no load in {spec.unit} between {low:g} and {high:g}: {text[:300]!r}"
        )
    if outside:
        failures.append(f"the reply names {outside} {spec.unit}, outside {low:g}-{high:g}")
    return failures
