"""Swapping one exercise of a workout for another, for the reason the user gives."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from contextlib import suppress

from trainer.domain.catalog import LEVELS, Catalog, CatalogEntry, load_catalog
from trainer.domain.composer.prescription import (
    BeyondRule,
    exercise_kind,
    prescribed,
    prescription_kind,
    volume,
    volume_range,
    with_volume,
)
from trainer.domain.composer.ranking import rank
from trainer.domain.composer.request import ComposerError, ComposerRequest, parse_request
from trainer.domain.composer.session_plan import allowed, name_excluded, pattern_of, resolve_plan
from trainer.domain.movements import equipment_class
from trainer.domain.muscles import region_of
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD
from trainer.domain.workout import Exercise
from trainer.domain.workout_checks import name_key

EASIER = re.compile(
    r"\b(easier|simpler|less (?:hard|difficult|demanding)|too (?:hard|difficult|heavy))\b", re.I
)
HARDER = re.compile(r"\b(harder|tougher|more (?:challenging|difficult)|too (?:easy|light))\b", re.I)


def swap_level(old: CatalogEntry | None, user_level: str, text: str) -> str:
    """The level a replacement should have: the old exercise's (else the user's), a step down or up when
    the user asks for something easier or harder, never above the user's level."""
    rank = LEVELS.index(old.level) if old is not None else LEVELS.index(user_level)
    if EASIER.search(text):
        rank -= 1
    elif HARDER.search(text):
        rank += 1
    return LEVELS[max(0, min(rank, LEVELS.index(user_level)))]


def similarity(entry: CatalogEntry, shares: Mapping[str, float]) -> float:
    return sum(min(s, shares.get(m, 0.0)) for m, s in entry.muscles)


def compose_replacement(
    req: ComposerRequest,
    old_exercise: Exercise,
    *,
    avoid_names: Iterable[str] = (),
    catalog: Catalog | None = None,
) -> Exercise:
    """A different exercise in the old one's place (order, group, volume), under the same rules and
    for the reason the user gives: an exercise they name ('for push-ups') first; a disliked movement
    ('I don't like rows') takes its whole pattern out; a painful joint ('my knee hurts') its muscles,
    the replacement then coming from the same region of the body. Otherwise it trains the same primary
    muscle, which counts as asked for (the user is swapping, not dropping it); other recovering
    muscles stay off-limits."""
    cat = catalog or load_catalog()
    shares: dict[str, float] = {m.muscle: m.share for m in old_exercise.muscles_utilized}
    primary = max(old_exercise.muscles_utilized, key=lambda m: m.share).muscle
    parsed = parse_request(req.request_text or "")
    focus = (req.focus_muscles if req.focus_muscles is not None else set()) | {primary}
    plan = resolve_plan(ComposerRequest(**{**req.__dict__, "focus_muscles": focus}))
    old_key = name_key(old_exercise.exercise_name)
    generic = [d for d in parsed.dislikes if len(name_key(d).split()) == 1]
    patterns = {p for p in map(pattern_of, generic) if p}
    if any(name_excluded(old_exercise.exercise_name, d) for d in generic):
        patterns.add(pattern_of(old_exercise.exercise_name) or "")
    plan.avoid_patterns = frozenset(patterns - {""})
    taken = {name_key(n) for n in (*req.excluded_exercises, old_exercise.exercise_name, *avoid_names)}
    old_kind = exercise_kind(old_exercise)
    old_entry = cat.get(old_exercise.exercise_name)
    stretch = old_entry is not None and old_entry.category == "stretching"
    pool = [
        e for e in cat.entries
        if allowed(e, plan) and name_key(e.name) not in taken and (e.category == "stretching") == stretch
    ]  # fmt: skip
    asked = [rx for rx in parsed.movements if not rx.search(old_key)]
    same = [e for e in pool if any(rx.search(name_key(e.name)) for rx in asked)]
    if not same and primary not in plan.avoided:
        same = [e for e in pool if e.primary_muscle == primary] or [
            e for e in pool if e.share_of(primary) >= WORKED_SHARE_THRESHOLD
        ]
    if not same:
        kept = {m: s for m, s in shares.items() if m not in plan.avoided}
        nearby = [e for e in pool if region_of(e.primary_muscle) == region_of(primary)]
        same = [e for e in nearby if similarity(e, kept) > 0] or nearby
    if not same:
        raise ComposerError(f"No other exercise for {primary} fits the current constraints.")
    old_pattern = pattern_of(old_exercise.exercise_name)
    if old_pattern and old_pattern not in plan.avoid_patterns and not asked:
        same = [e for e in same if pattern_of(e.name) == old_pattern] or same
    same_kind = [e for e in same if prescription_kind(e) == old_kind] or same
    level = swap_level(old_entry, plan.level, req.request_text or "")
    loaded = bool(old_exercise.load_each) or equipment_class(
        old_exercise.exercise_name, old_exercise.equipment or []
    )
    scored = sorted(
        rank(same_kind, plan),
        key=lambda se: (
            abs(LEVELS.index(se[1].level) - LEVELS.index(level)),
            (equipment_class(se[1].name, se[1].equipment) is not None) != bool(loaded),
            -se[0] * (0.5 + similarity(se[1], shares)),
            se[1].name,
        ),
    )
    minutes = old_exercise.duration_min if old_exercise.exercise_type == "duration" else None
    intervals = old_exercise.exercise_type == "intervals"
    for _, entry in scored:
        rounds = old_exercise.rounds if intervals and prescription_kind(entry) != "cardio" else None
        with suppress(BeyondRule):
            new = prescribed(entry, plan, old_exercise.order, minutes=minutes, rounds=rounds)
            break
    else:
        raise ComposerError(f"No other exercise for {primary} fits the current constraints.")
    if new.exercise_type == old_exercise.exercise_type and old_exercise.exercise_type != "duration":
        low, high = volume_range(entry, new)
        new = with_volume(new, min(max(volume(old_exercise), low), max(high, volume(new))))
    return new.model_copy(update={"group": old_exercise.group})
