"""Movement patterns and equipment classes: which exercises are related closely enough for one's history
to suggest the other's load, and by what factor a load carries over from one implement to another.

The catalog (free-exercise-db) has muscles, equipment, force and mechanic but no movement pattern, so
patterns are an explicit table of name phrases, tried in order (the first match wins). Two exercises
are related when they share a pattern and a primary muscle (the muscle with the largest share):
Romanian Deadlift and Stiff-Legged Dumbbell Deadlift (hip hinge, hamstrings) are; Barbell Deadlift
(hip hinge, lower back) and a Romanian Deadlift are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from trainer.domain.catalog import Catalog, load_catalog
from trainer.domain.equipment import normalise_equipment
from trainer.domain.muscles import canonical_muscle

OLYMPIC_LIFT = re.compile(r"\b(?:snatch|clean|jerk)\b", re.I)
"""Olympic-lift derivatives: fast and technical, for experts only, and never an option around a painful
joint."""

PATTERNS: tuple[tuple[str, str], ...] = (
    ("knee flexion", r"leg curl|hamstring curl|glute ham raise"),
    ("knee extension", r"leg extension"),
    ("calf raise", r"calf"),
    ("shrug", r"shrug"),
    ("hip thrust", r"hip thrust|glute bridge|hip bridge"),
    ("lunge", r"lunge|split squat|step ?up"),
    ("squat", r"squat|leg press"),
    ("hip hinge", r"deadlift|good ?morning|\brdl\b|pull ?through|rack pull|back extension|hyperextension"),
    ("vertical pull", r"pulldown|pull ?up|chin ?up"),
    ("horizontal pull", r"\brow\b|t bar"),
    ("elbow extension", r"tricep|pushdown|skull ?crusher|kickback|french press"),
    (
        "vertical push",
        r"shoulder press|military press|overhead press|arnold|push press|(seated|standing) dumbbell press"
        r"|kettlebell press",
    ),
    (
        "horizontal push",
        r"bench press|chest press|floor press|(incline|decline|dumbbell) press|push ?up|\bdip",
    ),
    ("elbow flexion", r"curl"),
    ("lateral raise", r"lateral raise|deltoid raise"),
    ("front raise", r"front .*raise"),
    ("rear delt", r"rear delt|reverse fly|face pull"),
    ("chest fly", r"\bfly|\bflye|crossover|pec deck|butterfly"),
)
"""Movement pattern -> phrases of exercise names (lower case, singular words)."""
_COMPILED = tuple((pattern, re.compile(phrases)) for pattern, phrases in PATTERNS)

LOADED_CLASSES: tuple[str, ...] = (
    "barbell", "ez curl bar", "smith machine", "dumbbell", "kettlebell", "cable", "machine",
)  # fmt: skip
"""Equipment that carries a load, in the order an exercise's class is picked from its equipment."""
_NAME_CLASSES: tuple[tuple[str, str], ...] = (
    ("smith machine", r"\bsmith\b"),
    ("ez curl bar", r"\bez\b"),
    ("barbell", r"\bbarbell\b|\bbar\b"),
    ("dumbbell", r"\bdumbbell\b|\bdb\b"),
    ("kettlebell", r"\bkettlebell\b"),
    ("cable", r"\bcable\b|\bpulley\b|\bpulldown\b|\bpushdown\b"),
    ("machine", r"\bmachine\b|\bleverage\b|\bleg press\b|\bleg extension\b|\bleg curl\b"),
)
FREE_WEIGHT_FACTORS: dict[str, float] = {
    "barbell": 1.0,
    "ez curl bar": 1.0,
    "dumbbell": 0.4,
    "kettlebell": 0.4,
}
"""Load per implement for the same effort, relative to a barbell: one dumbbell (or kettlebell) of a pair
carries about 40% of the barbell load (the pair about 80%). Machines, cables and the Smith machine are
not compared with anything but themselves: their loads depend on the machine."""


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=8192)
def name_key(text: str) -> str:
    """Lower-case, punctuation-free, singular words: 'Push-Ups' -> 'push up'."""
    return " ".join(_singular(w) for w in re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def movement_pattern(name: str) -> str | None:
    key = name_key(name)
    return next((pattern for pattern, rx in _COMPILED if rx.search(key)), None)


def equipment_class(name: str, equipment: Iterable[str] = ()) -> str | None:
    """The load-carrying implement of an exercise: from its equipment list, else from its name."""
    items = {normalise_equipment(e) for e in equipment}
    for candidate in LOADED_CLASSES:
        if candidate in items:
            return candidate
    key = name_key(name)
    return next((cls for cls, rx in _NAME_CLASSES if re.search(rx, key)), None)


def transfer_factor(source: str | None, target: str | None) -> float | None:
    """How a load on `source` equipment carries over to `target` equipment (None: not comparable)."""
    if source is None or target is None:
        return None
    if source == target:
        return 1.0
    if source in FREE_WEIGHT_FACTORS and target in FREE_WEIGHT_FACTORS:
        return FREE_WEIGHT_FACTORS[target] / FREE_WEIGHT_FACTORS[source]
    return None


@dataclass(frozen=True)
class MovementProfile:
    """What relates an exercise to others: its pattern, primary muscle and load-carrying implement."""

    name: str
    pattern: str | None
    primary_muscle: str | None
    equipment_class: str | None

    def related_to(self, other: MovementProfile) -> bool:
        return (
            self.pattern is not None
            and self.pattern == other.pattern
            and self.primary_muscle is not None
            and self.primary_muscle == other.primary_muscle
        )


def _primary(muscles: Iterable[Any]) -> str | None:
    shares: dict[str, float] = {}
    for item in muscles:
        if isinstance(item, Mapping):
            name, share = item.get("muscle"), item.get("share", 0)
        elif isinstance(item, tuple | list) and len(item) == 2:
            name, share = item
        else:
            name, share = getattr(item, "muscle", None), getattr(item, "share", 0)
        muscle = canonical_muscle(str(name or ""))
        if muscle:
            shares[muscle] = shares.get(muscle, 0.0) + float(share or 0)
    return max(sorted(shares), key=lambda m: shares[m]) if shares else None


def movement_profile(
    name: str,
    *,
    equipment: Iterable[str] | None = None,
    muscles: Iterable[Any] | None = None,
    catalog: Catalog | None = None,
) -> MovementProfile:
    """The profile of an exercise, from what is given and else from the catalog entry of that name."""
    entry = (catalog or load_catalog()).get(name)
    given_muscles = list(muscles or [])
    primary = _primary(given_muscles) if given_muscles else None
    if primary is None and entry is not None:
        primary = entry.primary_muscle
    items = list(equipment or [])
    if not items and entry is not None:
        items = list(entry.equipment)
    return MovementProfile(name, movement_pattern(name), primary, equipment_class(name, items))
