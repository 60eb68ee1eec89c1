"""Exercise choice for plan slots under the user's hard rules (the offline composer's rules: only the
equipment at hand, nothing above the user's level, nothing an injury or preference rules out, no
muscle still recovering), and turning a catalog entry into an exercise of the workout schema."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from trainer.domain.catalog import LEVELS, CatalogEntry, load_catalog
from trainer.domain.composer.goals import goal_kind
from trainer.domain.composer.goals import goal_shares as composer_goal_shares
from trainer.domain.composer.staples import STAPLE_EXERCISES
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.movements import equipment_class, movement_pattern, name_key
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD
from trainer.domain.workout import Exercise
from trainer.domain.workout_checks import exercise_matches, is_temporary, preference_constraints

STRENGTH_CATEGORIES = frozenset({"strength", "powerlifting"})
EXPERT_CATEGORIES = frozenset({"olympic weightlifting", "strongman"})
LEVEL_OF_EXPERIENCE = {"beginner": "beginner", "intermediate": "intermediate", "advanced": "expert"}
_MAIN_EQUIPMENT = {
    "barbell": 1.0, "dumbbell": 0.8, "kettlebell": 0.6, "machine": 0.6, "ez curl bar": 0.6,
    "smith machine": 0.5, "cable": 0.5,
}  # fmt: skip
_ACCESSORY_EQUIPMENT = {
    "dumbbell": 0.7,
    "cable": 0.7,
    "machine": 0.6,
    "ez curl bar": 0.6,
    "barbell": 0.5,
    "kettlebell": 0.5,
    "bands": 0.4,
}


def leading_goal(category_goals: Mapping[str, float], goal_text: str = "") -> str:
    """The kind of the user's heaviest goal; the request's words win when they name one."""
    if goal_text and (kind := goal_kind(goal_text)) != "general":
        return kind
    if category_goals:
        name = max(sorted(category_goals), key=lambda g: category_goals[g])
        return goal_kind(name)
    return "general"


@dataclass(frozen=True)
class Constraints:
    """The hard rules for one user at one location, hashable so candidate pools can be cached."""

    equipment: frozenset[str]
    level: str
    avoided: tuple[tuple[str, str], ...] = ()
    """(muscle, the preference that rules it out)."""
    excluded: tuple[tuple[str, str], ...] = ()
    """(exercise phrase, the preference that rules it out)."""
    familiar: frozenset[str] = frozenset()
    """Name keys of exercises in the user's history."""

    @property
    def avoided_muscles(self) -> set[str]:
        return {m for m, _ in self.avoided}


def constraints_for(
    equipment: Iterable[str],
    preferences: Sequence[Mapping[str, Any]],
    experience: str,
    history: Iterable[Mapping[str, Any]] = (),
    *,
    permanent_only: bool = False,
) -> Constraints:
    """The rules the preferences imply (only the permanent ones for a plan that spans weeks)."""
    prefs = [p for p in preferences if not (permanent_only and is_temporary(p))]
    rules = preference_constraints(prefs)
    available = available_equipment(list(equipment)) - rules.unavailable_equipment
    return Constraints(
        equipment=frozenset(available),
        level=LEVEL_OF_EXPERIENCE.get(experience, "intermediate"),
        avoided=tuple(sorted(rules.avoided_muscles.items())),
        excluded=tuple(sorted(rules.excluded_exercises.items())),
        familiar=frozenset(name_key(str(r.get("exercise_name") or "")) for r in history),
    )


@lru_cache(maxsize=4096)
def pattern_of(name: str) -> str | None:
    return movement_pattern(name)


def allowed(entry: CatalogEntry, rules: Constraints, blocked: frozenset[str] = frozenset()) -> bool:
    """Equipment, level, injuries and avoided muscles (any share), excluded exercises, and muscles still
    recovering (`blocked`, worked share >= 0.2)."""
    if missing_equipment(entry.equipment, rules.equipment):
        return False
    if LEVELS.index(entry.level) > LEVELS.index(rules.level):
        return False
    avoided = rules.avoided_muscles
    if avoided and any(s > 0 and m in avoided for m, s in entry.muscles):
        return False
    if blocked and entry.worked_muscles(WORKED_SHARE_THRESHOLD) & blocked:
        return False
    return not any(exercise_matches(entry.name, phrase) for phrase, _ in rules.excluded)


def preference_conflict(entry: CatalogEntry, rules: Constraints) -> str | None:
    """The preference an exercise conflicts with (a muscle it loads, or the exercise itself), or None."""
    for muscle, reason in rules.avoided:
        if entry.share_of(muscle) > 0:
            return reason
    return next((reason for phrase, reason in rules.excluded if exercise_matches(entry.name, phrase)), None)


@lru_cache(maxsize=256)
def pool(rules: Constraints) -> tuple[CatalogEntry, ...]:
    """Every catalog entry the rules allow (before recovery)."""
    return tuple(e for e in load_catalog().entries if allowed(e, rules))


def _family(entry: CatalogEntry, role: str, level: str) -> bool:
    if role == "conditioning":
        return entry.category == "cardio"
    if role == "mobility":
        return entry.category == "stretching"
    if entry.category in STRENGTH_CATEGORIES:
        return True
    return entry.category in EXPERT_CATEGORIES and level == "expert" and role == "main"


def _score(entry: CatalogEntry, role: str, rules: Constraints, prefer_not: frozenset[str]) -> float:
    key = name_key(entry.name)
    cls = equipment_class(entry.name, entry.equipment)
    score = 3.0 * (entry.name in STAPLE_EXERCISES) + 1.0 * (key in rules.familiar)
    if role in ("main", "secondary"):
        score += 0.8 * (entry.mechanic == "compound") + _MAIN_EQUIPMENT.get(cls or "", 0.3)
    elif role in ("accessory", "core"):
        score += 0.3 * (entry.mechanic == "isolation") + _ACCESSORY_EQUIPMENT.get(cls or "", 0.4)
    if role == "core" and entry.force == "static":
        score += 0.4 if rules.level == "beginner" else 0.1
    score -= 2.0 * (key in prefer_not)
    return score - 0.04 * len(entry.name.split())


def slot_candidates(
    entries: Iterable[CatalogEntry],
    *,
    pattern: str | None,
    muscle: str,
    role: str,
    level: str,
) -> list[CatalogEntry]:
    """Entries for a slot, best fit first: its pattern and primary muscle, else its primary muscle, else
    any entry working the muscle for at least 30%."""
    family = [e for e in entries if _family(e, role, level)]
    if role in ("conditioning", "mobility"):
        tiers = [[e for e in family if e.primary_muscle == muscle], family]
    else:
        tiers = [
            [
                e
                for e in family
                if e.primary_muscle == muscle and (pattern is None or pattern_of(e.name) == pattern)
            ],
            [e for e in family if e.primary_muscle == muscle],
            [e for e in family if e.share_of(muscle) >= 0.3],
        ]
    seen: set[str] = set()
    ordered: list[CatalogEntry] = []
    for tier in tiers:
        for e in tier:
            if e.name not in seen:
                seen.add(e.name)
                ordered.append(e)
    return ordered


def ranked_candidates(
    rules: Constraints,
    *,
    pattern: str | None,
    muscle: str,
    role: str,
    taken: Iterable[str] = (),
    blocked: frozenset[str] = frozenset(),
    prefer_not: Iterable[str] = (),
) -> list[CatalogEntry]:
    """Every allowed exercise for a slot, best first, leaving out those already `taken` that day;
    `prefer_not` (used on another day) only lowers a candidate."""
    taken_keys = {name_key(n) for n in taken}
    avoid = frozenset(name_key(n) for n in prefer_not)
    entries = [e for e in pool(rules) if name_key(e.name) not in taken_keys and allowed(e, rules, blocked)]
    candidates = slot_candidates(entries, pattern=pattern, muscle=muscle, role=role, level=rules.level)
    tier_of = _tiers(candidates, pattern, muscle, role)
    return sorted(candidates, key=lambda e: (tier_of[e.name], -_score(e, role, rules, avoid), e.name))


def pick_exercise(
    rules: Constraints,
    *,
    pattern: str | None,
    muscle: str,
    role: str,
    taken: Iterable[str] = (),
    blocked: frozenset[str] = frozenset(),
    prefer_not: Iterable[str] = (),
) -> CatalogEntry | None:
    """The best allowed exercise for a slot (ranked_candidates' first), or None."""
    ranked = ranked_candidates(
        rules, pattern=pattern, muscle=muscle, role=role, taken=taken, blocked=blocked, prefer_not=prefer_not
    )
    return ranked[0] if ranked else None


def _tiers(candidates: Sequence[CatalogEntry], pattern: str | None, muscle: str, role: str) -> dict[str, int]:
    tiers: dict[str, int] = {}
    for e in candidates:
        if e.primary_muscle == muscle and (
            role in ("conditioning", "mobility") or pattern is None or pattern_of(e.name) == pattern
        ):
            tiers[e.name] = 0
        elif e.primary_muscle == muscle:
            tiers[e.name] = 1
        else:
            tiers[e.name] = 2
    return tiers


def resolve(name: str) -> CatalogEntry | None:
    """The catalog entry a name means (exact, else the closest match a person's wording allows)."""
    from trainer.domain.exercise_search import find_exercise

    catalog = load_catalog()
    return catalog.get(name) or find_exercise(name, catalog)


# --- exercises in the workout schema --------------------------------------------------------------


def goal_shares(entry: CatalogEntry, category_goals: Mapping[str, float]) -> list[dict[str, Any]]:
    """The user's goals this exercise serves, as shares summing to 1 (its own kind when none does)."""
    return [{"goal": g, "share": s} for g, s in composer_goal_shares(entry, category_goals)]


def muscle_shares(entry: CatalogEntry) -> list[dict[str, Any]]:
    return [{"muscle": m, "share": s} for m, s in entry.muscles]


def make_exercise(
    entry: CatalogEntry,
    *,
    order: int,
    category_goals: Mapping[str, float],
    reasoning: str,
    fields: Mapping[str, Any],
    group: Mapping[str, Any] | None = None,
) -> Exercise:
    """An exercise of the workout schema for a catalog entry with its prescription `fields`."""
    data: dict[str, Any] = {
        "exercise_name": entry.name,
        "order": order,
        "muscles_utilized": muscle_shares(entry),
        "goals_addressed": goal_shares(entry, category_goals),
        "equipment": list(entry.equipment),
        "reasoning": reasoning[:300] or "Part of your plan.",
        **fields,
    }
    if group is not None:
        data["group"] = dict(group)
    return Exercise.model_validate(data)
