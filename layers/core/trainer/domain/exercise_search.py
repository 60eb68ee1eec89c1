"""Exercise knowledge over the catalog: find an exercise by the name a person uses ('rdl', 'pull ups',
'romainian deadlift'), search by muscle, equipment, level and category, and suggest alternatives by
movement pattern (force and mechanic), muscles and the equipment at hand. Pure functions: the caller
passes what equipment is available.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import Any

from trainer.domain.catalog import LEVELS, Catalog, CatalogEntry, instructions, load_catalog
from trainer.domain.equipment import missing_equipment
from trainer.domain.movements import OLYMPIC_LIFT, movement_pattern
from trainer.domain.muscles import CORE, LOWER_BODY, UPPER_BODY, canonical_muscle

MATCH_THRESHOLD = 0.75
"""Share of the query's words an exercise name must match (typos and prefixes count partly)."""
LONG_MATCH_THRESHOLD = 0.66
"""The same for a query of three words or more: one of three may be missing ('barbell back squat')."""

_COMPOUNDS: dict[tuple[str, str], str] = {
    ("pull", "up"): "pullup", ("push", "up"): "pushup", ("press", "up"): "pushup", ("chin", "up"): "chinup",
    ("sit", "up"): "situp", ("step", "up"): "stepup", ("get", "up"): "getup", ("pull", "down"): "pulldown",
    ("push", "down"): "pushdown", ("skull", "crusher"): "skullcrusher", ("dead", "lift"): "deadlift",
    ("hand", "stand"): "handstand", ("kick", "back"): "kickback",
}  # fmt: skip
_WORDS: dict[str, str] = {
    "db": "dumbbell", "dbs": "dumbbell", "bb": "barbell", "kb": "kettlebell", "kbs": "kettlebell",
    "biceps": "bicep", "triceps": "tricep", "flye": "fly", "flyes": "fly", "flies": "fly", "abs": "ab",
    "situps": "situp", "pullups": "pullup", "pushups": "pushup", "chinups": "chinup", "ups": "up",
    "downs": "down", "calves": "calf", "lbs": "lb",
}  # fmt: skip
_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "rdl": ("romanian", "deadlift"), "sldl": ("stiff", "legged", "deadlift"), "ohp": ("overhead", "press"),
}  # fmt: skip
ALIASES: dict[str, str] = {
    "stiff leg deadlift": "Stiff-Legged Barbell Deadlift", "overhead press": "Standing Military Press",
    "military press": "Standing Military Press",
    "shoulder press": "Dumbbell Shoulder Press", "bench press": "Barbell Bench Press - Medium Grip",
    "bench": "Barbell Bench Press - Medium Grip", "squat": "Barbell Squat", "back squat": "Barbell Squat",
    "front squat": "Front Barbell Squat", "deadlift": "Barbell Deadlift", "dip": "Dips - Triceps Version",
    "row": "Bent Over Barbell Row", "barbell row": "Bent Over Barbell Row",
    "bent over row": "Bent Over Barbell Row", "cable row": "Seated Cable Rows",
    "lat pulldown": "Wide-Grip Lat Pulldown", "pulldown": "Wide-Grip Lat Pulldown",
    "hip thrust": "Barbell Hip Thrust", "lunge": "Dumbbell Lunges", "curl": "Dumbbell Bicep Curl",
    "bicep curl": "Dumbbell Bicep Curl", "skullcrusher": "EZ-Bar Skullcrusher",
    "kettlebell swing": "One-Arm Kettlebell Swings", "farmer walk": "Farmer's Walk",
    "farmers walk": "Farmer's Walk", "glute bridge": "Barbell Glute Bridge", "run": "Running, Treadmill",
    "running": "Running, Treadmill", "cycling": "Bicycling", "biking": "Bicycling",
    "jump rope": "Rope Jumping", "skipping": "Rope Jumping", "rowing": "Rowing, Stationary",
}  # fmt: skip
"""Common names (as `normalise_name` spells them) for the catalog exercise people usually mean."""

STRENGTH_CATEGORIES = frozenset({"strength", "powerlifting", "olympic weightlifting", "strongman"})


def _singular(word: str) -> str:
    if len(word) <= 3 or word.endswith("ss"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


def name_tokens(text: str) -> tuple[str, ...]:
    """Lower-case words without punctuation, singular, with split compounds joined ('Pull-Ups' ->
    ('pullup',)) and abbreviations spelled out ('DB' -> 'dumbbell', 'RDL' -> 'romanian deadlift');
    lone letters are dropped."""
    raw = [w for w in re.sub(r"[^a-z0-9]+", " ", text.lower()).split() if len(w) > 1 or w.isdigit()]
    words = [part for w in raw for part in _ABBREVIATIONS.get(w) or _ABBREVIATIONS.get(_singular(w)) or (w,)]
    joined: list[str] = []
    for word in (_WORDS.get(w) or _singular(w) for w in words):
        if joined and (joined[-1], word) in _COMPOUNDS:
            joined[-1] = _COMPOUNDS[(joined[-1], word)]
        else:
            joined.append(word)
    return tuple(joined)


def normalise_name(text: str) -> str:
    return " ".join(name_tokens(text))


@dataclass(frozen=True, slots=True)
class NameMatch:
    entry: CatalogEntry
    score: float
    coverage: float
    """Share of the query's words the name matched (1.0: every word)."""


def _word_score(word: str, names: Sequence[str]) -> tuple[float, int | None]:
    """How well one query word matches the best word of a name (1 exact, less for a prefix or a typo),
    with the index of that name word."""
    best, where = 0.0, None
    for i, name in enumerate(names):
        if name == word:
            return 1.0, i
        score = 0.0
        if len(word) >= 4 and len(name) >= 4:
            score = 0.85 if name.startswith(word) or word.startswith(name) else _typo_score(word, name)
        if score > best:
            best, where = score, i
    return best, where


@lru_cache(maxsize=65536)
def _typo_score(word: str, name: str) -> float:
    """0.9 x similarity for a misspelling (same first letter, length within 2, 80% alike), else 0."""
    if word[0] != name[0] or abs(len(word) - len(name)) > 2:
        return 0.0
    matcher = SequenceMatcher(None, word, name)
    if matcher.quick_ratio() < 0.8:
        return 0.0
    ratio = matcher.ratio()
    return ratio * 0.9 if ratio >= 0.8 else 0.0


@cache
def _entry_tokens(name: str) -> tuple[str, ...]:
    return name_tokens(name)


def name_score(query: Sequence[str], name: str) -> tuple[float, float]:
    """(score, coverage) of a catalog name for query words: coverage is the matched share of the
    query; the score also prefers names without extra words and exact names."""
    names = _entry_tokens(name)
    if not query or not names:
        return 0.0, 0.0
    if "".join(query) == "".join(names):
        return 2.0, 1.0
    used: set[int] = set()
    total = 0.0
    for word in query:
        score, where = _word_score(word, names)
        total += score
        if where is not None:
            used.add(where)
    coverage = total / len(query)
    extra = len(names) - len(used)
    in_order = 0.02 if names[: len(query)] == tuple(query) else 0.0
    return coverage - 0.04 * extra + in_order, coverage


MAX_QUERY_WORDS = 12
"""Words of a query that are matched: the catalog's longest name has 10, and every word costs a pass
over the whole catalog, so a pasted paragraph read as a name costs no more than a long name."""


def match_names(query: str, catalog: Catalog | None = None, limit: int = 10) -> list[NameMatch]:
    """Catalog exercises for a name as a person writes it, best first: the usual exercise for a
    common name ('rdl', 'bench press', 'dips') first, then names matching most of the words."""
    cat = catalog or load_catalog()
    words = name_tokens(query)[:MAX_QUERY_WORDS]
    if not words:
        return []
    matches: dict[str, NameMatch] = {}
    alias = ALIASES.get(" ".join(words))
    aliased = cat.get(alias) if alias else None
    if aliased is not None:
        matches[aliased.id] = NameMatch(aliased, 3.0, 1.0)
    threshold = LONG_MATCH_THRESHOLD if len(words) >= 3 else MATCH_THRESHOLD
    for entry in cat.entries:
        if entry.id in matches:
            continue
        score, coverage = name_score(words, entry.name)
        if coverage >= threshold:
            matches[entry.id] = NameMatch(entry, score, coverage)
    ranked = sorted(
        matches.values(),
        key=lambda m: (
            -m.score,
            m.entry.category not in STRENGTH_CATEGORIES,
            len(m.entry.name),
            m.entry.name,
        ),
    )
    return ranked[:limit]


def find_exercise(query: str, catalog: Catalog | None = None) -> CatalogEntry | None:
    """The catalog exercise a name most likely means, or None."""
    found = match_names(query, catalog, limit=1)
    return found[0].entry if found else None


def _doable(entry: CatalogEntry, available: Iterable[str] | None) -> bool:
    return available is None or not missing_equipment(entry.equipment, available)


def search_exercises(
    *,
    query: str | None = None,
    muscle: str | None = None,
    available: Iterable[str] | None = None,
    max_level: str | None = None,
    category: str | None = None,
    limit: int = 10,
    catalog: Catalog | None = None,
) -> list[CatalogEntry]:
    """Exercises matching every filter given: the name (fuzzy), a muscle worked (the more of the
    work it does, the earlier), doable with the available equipment (None: any), at or below a
    level, in a category. By name match first when a query is given."""
    cat = catalog or load_catalog()
    wanted = canonical_muscle(muscle) if muscle else None
    if muscle and wanted is None:
        raise ValueError(f"unknown muscle '{muscle}'")
    if max_level is not None and max_level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    have = set(available) if available is not None else None
    rank = LEVELS.index(max_level) if max_level else len(LEVELS) - 1

    def fits(entry: CatalogEntry) -> bool:
        return (
            (wanted is None or entry.share_of(wanted) > 0)
            and (category is None or entry.category == category)
            and LEVELS.index(entry.level) <= rank
            and _doable(entry, have)
        )

    if query:
        return [m.entry for m in match_names(query, cat, limit=len(cat)) if fits(m.entry)][:limit]
    hits = [e for e in cat.entries if fits(e)]
    hits.sort(
        key=lambda e: (
            e.category not in STRENGTH_CATEGORIES,
            -(e.share_of(wanted) if wanted else 0.0),
            LEVELS.index(e.level),
            e.name,
        )
    )
    return hits[:limit]


@dataclass(frozen=True, slots=True)
class Alternative:
    entry: CatalogEntry
    score: float
    reason: str
    """Why it can replace the exercise, in words: 'same movement (compound push); works Triceps, Chest'."""


def muscle_similarity(a: CatalogEntry, b: CatalogEntry) -> float:
    """Cosine similarity of the two exercises' muscle shares (1: the same muscles in the same shares)."""
    shares_b = dict(b.muscles)
    dot = sum(share * shares_b.get(muscle, 0.0) for muscle, share in a.muscles)
    norm = math.sqrt(sum(s * s for _, s in a.muscles)) * math.sqrt(sum(s * s for _, s in b.muscles))
    return dot / norm if norm else 0.0


def movement_text(mechanic: str | None, force: str | None, category: str) -> str:
    """The movement pattern in words: 'compound push', 'isolation pull', 'compound hold'."""
    shown = {"static": "hold"}.get(force or "", force or "")
    return " ".join(part for part in (mechanic or "", shown) if part) or category


def movement(entry: CatalogEntry) -> str:
    return movement_text(entry.mechanic, entry.force, entry.category)


def _same_family(a: CatalogEntry, b: CatalogEntry) -> bool:
    return a.category == b.category or {a.category, b.category} <= STRENGTH_CATEGORIES


def alternatives(
    reference: CatalogEntry,
    *,
    available: Iterable[str] | None = None,
    avoid_name: str | None = None,
    max_level: str | None = None,
    limit: int = 5,
    catalog: Catalog | None = None,
) -> list[Alternative]:
    """Exercises to do instead of `reference`, best first: the same kind of training (category), as
    much of the same muscles as possible, the same movement pattern (force, mechanic), doable with the
    available equipment (None: any), not harder than `max_level`. Variants of the same exercise on the
    same equipment ('Ring Dips' for 'Dips', or any name containing `avoid_name`'s words) are not
    alternatives; a variant on other equipment ('Bench Dips' without a dip station) is."""
    cat = catalog or load_catalog()
    have = set(available) if available is not None else None
    rank = LEVELS.index(max_level) if max_level else len(LEVELS) - 1
    same_words = name_tokens(avoid_name) if avoid_name else name_tokens(reference.name)
    found: list[Alternative] = []
    for entry in cat.entries:
        if entry.id == reference.id or not _same_family(entry, reference):
            continue
        if LEVELS.index(entry.level) > rank or not _doable(entry, have):
            continue
        _, coverage = name_score(same_words, entry.name)
        if coverage >= 0.99 and set(entry.equipment) == set(reference.equipment):
            continue
        similarity = muscle_similarity(reference, entry)
        same_primary = entry.primary_muscle == reference.primary_muscle
        if similarity < 0.5 and not same_primary:
            continue
        score = (
            0.6 * similarity
            + 0.15 * same_primary
            + 0.15 * (entry.force == reference.force)
            + 0.1 * (entry.mechanic == reference.mechanic)
            - 0.05 * max(0, LEVELS.index(entry.level) - LEVELS.index(reference.level))
        )
        found.append(Alternative(entry, round(score, 4), _reason(reference, entry)))
    found.sort(key=lambda a: (-a.score, len(a.entry.name), a.entry.name))
    return found[:limit]


PAINFUL_PATTERNS: dict[str, frozenset[str]] = {
    "knee": frozenset({"squat", "lunge", "knee extension"}),
    "shoulder": frozenset({"vertical push", "lateral raise", "front raise", "chest fly", "horizontal push"}),
    "lower back": frozenset({"hip hinge", "squat"}),
    "back": frozenset({"hip hinge", "squat"}),
    "elbow": frozenset({"elbow extension", "elbow flexion"}),
    "wrist": frozenset({"horizontal push", "elbow flexion"}),
    "hip": frozenset({"squat", "lunge"}),
    "ankle": frozenset({"squat", "lunge", "calf raise"}),
}
"""The movement patterns that load a sore joint: alternatives for a movement that hurts come from others."""
_REGIONS: tuple[frozenset[str], ...] = (UPPER_BODY, LOWER_BODY, CORE)
_JOINT_LOADING_NAMES = re.compile(r"jump|hop|bound|sprint|plyo|pistol|sissy|skater|burpee", re.I)
"""Impact and deep single-joint moves left out of pain-free alternatives, whatever their pattern."""
_JOINT_NAMES: dict[str, re.Pattern[str]] = {
    "knee": re.compile(r"squat|lunge|step ?up|leg extension|split", re.I),
    "shoulder": re.compile(r"press|raise|dip|handstand|pike|upright row|push ?up|pushup", re.I),
    "lower back": re.compile(r"deadlift|good morning|row|squat|hyperextension|back extension", re.I),
    "back": re.compile(r"deadlift|good morning|squat|hyperextension|back extension", re.I),
    "elbow": re.compile(r"curl|extension|skull|dip|press", re.I),
    "wrist": re.compile(r"push ?up|pushup|press|curl|plank", re.I),
}
"""Names of movements that load a sore joint whatever the pattern table says ('See-Saw Press')."""


def joint_of(text: str) -> str | None:
    """The joint a message names ('my knee', 'lower back', 'shoulders') in PAINFUL_PATTERNS' terms."""
    lowered = text.lower()
    return next((j for j in PAINFUL_PATTERNS if re.search(rf"\b{j}s?\b", lowered)), None)


def pain_free_alternatives(
    reference: CatalogEntry,
    joint: str,
    *,
    available: Iterable[str] | None = None,
    max_level: str | None = None,
    limit: int = 5,
    catalog: Catalog | None = None,
    muscle: str | None = None,
) -> list[Alternative]:
    """Exercises for `reference`'s muscles that do not load `joint` the way it does: none of the joint's
    painful movement patterns (PAINFUL_PATTERNS) nor impact moves, strength work the equipment allows,
    easiest first among equals (a sore joint is no time for a new, technical lift). `muscle`: the one
    the user wants worked instead of the reference's ('my lower back aches when I deadlift, what else
    works my hamstrings?'): its part of the body, that muscle first."""
    from trainer.domain.composer.staples import STAPLE_EXERCISES  # the composer's well-known lifts

    cat = catalog or load_catalog()
    have = set(available) if available is not None else None
    banned = PAINFUL_PATTERNS.get(joint, frozenset()) | (
        {p} if (p := movement_pattern(reference.name)) and joint not in PAINFUL_PATTERNS else set()
    )
    rank = LEVELS.index(max_level) if max_level else len(LEVELS) - 1
    worked = {m for m, s in reference.muscles if s >= 0.2} if muscle is None else {muscle}
    primary = reference.primary_muscle if muscle is None else muscle
    region = next((r for r in _REGIONS if primary in r), frozenset(worked))
    found: list[Alternative] = []
    for entry in cat.entries:
        if entry.id == reference.id or entry.category not in STRENGTH_CATEGORIES:
            continue
        if LEVELS.index(entry.level) > rank or not _doable(entry, have):
            continue
        named = _JOINT_NAMES.get(joint)
        if movement_pattern(entry.name) in banned or _JOINT_LOADING_NAMES.search(entry.name):
            continue
        if named is not None and named.search(entry.name):
            continue
        if OLYMPIC_LIFT.search(entry.name) or (joint == "lower back" and entry.share_of("Lower Back") > 0):
            continue
        if entry.primary_muscle not in region:
            continue
        score = (
            muscle_similarity(reference, entry)
            + 0.3 * (entry.primary_muscle == primary)
            + (entry.share_of(muscle) if muscle is not None else 0.0)
            - 0.1 * LEVELS.index(entry.level)
            + 0.1 * (entry.mechanic == "compound")
            + 0.6 * (entry.name in STAPLE_EXERCISES)
        )
        shared = [m for m, _ in entry.muscles if m in worked] or [entry.primary_muscle]
        reason = f"works {', '.join(shared)} without loading the {joint}"
        found.append(Alternative(entry, round(score, 4), reason))
    found.sort(key=lambda a: (-a.score, len(a.entry.name), a.entry.name))
    return found[:limit]


def _reason(reference: CatalogEntry, entry: CatalogEntry) -> str:
    shared = [m for m, _ in entry.muscles if reference.share_of(m) > 0]
    parts = []
    if movement(entry) == movement(reference):
        parts.append(f"same movement ({movement(entry)})")
    if shared:
        parts.append("works " + ", ".join(shared))
    return "; ".join(parts) or f"works {entry.primary_muscle}"


_CUE = re.compile(
    r"^(?:tip:\s*)?(?:keep|make sure|be sure|ensure|avoid|do not|don'?t|never|remember|maintain|focus|"
    r"breathe|exhale|inhale|brace|squeeze|control|pause|look)\b",
    re.I,
)


def form_cues(steps: Iterable[str], limit: int = 4) -> list[str]:
    """The form cues in an exercise's instruction steps: the sentences that say what to keep, avoid,
    squeeze or breathe ('Keep your back flat', 'Tip: do not lock your knees'), in order, at most `limit`."""
    cues: list[str] = []
    for step in steps:
        for sentence in re.split(r"(?<=[.!?])\s+", step):
            text = sentence.strip()
            if _CUE.search(text) and text not in cues:
                cues.append(re.sub(r"^tip:\s*", "", text, flags=re.I))
    return cues[:limit]


def summary_text(name: str, category: str, level: str, mechanic: str | None, force: str | None) -> str:
    """'Romanian Deadlift: strength, intermediate, compound pull'."""
    return f"{name}: {category}, {level}, {movement_text(mechanic, force, category)}"


def describe(entry: CatalogEntry) -> str:
    return summary_text(entry.name, entry.category, entry.level, entry.mechanic, entry.force)


def shares_text(muscles: Iterable[tuple[str, float]]) -> str:
    """'Hamstrings 60%, Calves 13%, Glutes 13%, Lower Back 14%' (largest share first)."""
    ordered = sorted(muscles, key=lambda m: -m[1])
    return ", ".join(f"{m} {round(s * 100)}%" for m, s in ordered)


def muscles_text(entry: CatalogEntry) -> str:
    return shares_text(entry.muscles)


def equipment_text(equipment: Iterable[str]) -> str:
    items = list(equipment)
    return ", ".join(items) if items else "none (bodyweight)"


def exercise_guide(
    query: str,
    available: Iterable[str] | None = None,
    *,
    location: str | None = None,
    limit: int = 5,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """What to know about the exercise a name means, as JSON-ready data: its fields, muscles,
    equipment and instruction steps, the equipment it needs that is not available, and alternatives
    doable with the available equipment (None: any). Without a match, the closest names."""
    cat = catalog or load_catalog()
    have = sorted(set(available)) if available is not None else None
    entry = find_exercise(query, cat)
    guide: dict[str, Any] = {"query": query, "equipment": have, "location": location}
    if entry is None:
        words = name_tokens(query)
        close = sorted(cat.entries, key=lambda e: -name_score(words, e.name)[0])[:5] if words else []
        return {
            **guide,
            "exercise": None,
            "similar": [e.name for e in close if name_score(words, e.name)[1] > 0],
        }
    guide["exercise"] = {
        "name": entry.name,
        "summary": describe(entry),
        "muscles": muscles_text(entry),
        "equipment": list(entry.equipment),
        "missing_equipment": sorted(missing_equipment(entry.equipment, have)) if have is not None else [],
        "steps": list(instructions(entry)),
    }
    guide["alternatives"] = [
        {"name": a.entry.name, "equipment": list(a.entry.equipment), "why": a.reason}
        for a in alternatives(entry, available=have, avoid_name=query, limit=limit, catalog=cat)
    ]
    return guide


def equipment_overview(
    available: Iterable[str] | None = None,
    *,
    location: str | None = None,
    examples: int = 3,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """What the catalog offers with the available equipment (None: any), as JSON-ready data: the
    strength exercises doable, per main muscle, with the first few (easiest first) as examples."""
    cat = catalog or load_catalog()
    have = sorted(set(available)) if available is not None else None
    doable = [e for e in cat.entries if e.category in STRENGTH_CATEGORIES and _doable(e, have)]
    by_muscle: dict[str, list[CatalogEntry]] = {}
    for entry in sorted(doable, key=lambda e: (LEVELS.index(e.level), len(e.name), e.name)):
        by_muscle.setdefault(entry.primary_muscle, []).append(entry)
    return {
        "query": None,
        "equipment": have,
        "location": location,
        "count": len(doable),
        "muscles": [
            {"muscle": muscle, "count": len(entries), "examples": [e.name for e in entries[:examples]]}
            for muscle, entries in sorted(by_muscle.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
    }


_ARTICLE = r"(?:(?:the|a|an|my|some|proper|correct|good|doing)\s+)*"
_PHRASE = r"(?P<x>[a-z0-9][a-z0-9 '\-/,]*?)"
_END = r"(?=\s*(?:$|[?.!;]|\bwith\b|\bbecause\b|\bsince\b|\bat home\b|\bat the\b|\btoday\b|\bplease\b|\bproperly\b|\bcorrectly\b|\bsafely\b|\bin my\b|\bon my\b|\bfor my\b|\bif\b|\bwhen\b))"  # noqa: E501
_ALTERNATIVE_QUESTION = re.compile(
    rf"\b(?:instead of|alternatives? (?:to|for)|substitutes? (?:to|for)|replacements? for|other than|"
    rf"similar to|swap out|replace)\s+{_ARTICLE}{_PHRASE}{_END}",
    re.I,
)
_HOW_QUESTION = re.compile(
    rf"\b(?:how (?:do|should|can|would|to) (?:i |you |we |one )?(?:do|perform|execute|make)|"
    rf"(?:form|technique|cues?|instructions?|tips?|steps?) (?:for|on|of)|how does|what is|what's|"
    rf"explain|show me how to do|teach me)\s+{_ARTICLE}{_PHRASE}{_END}",
    re.I,
)
_MUSCLES_QUESTION = re.compile(
    rf"\bwhat (?:muscles? )?(?:does|do|will) {_ARTICLE}{_PHRASE}\s+(?:work|target|hit|train|build)\b", re.I
)


def exercise_question(text: str) -> tuple[str, str] | None:
    """(kind, the exercise as the user wrote it) when the message asks about a catalog exercise:
    'alternatives' ('what can I do instead of dips?') or 'how' ('how do I do a Romanian deadlift?',
    'what muscles do lunges work?'). None when no named exercise is in the catalog."""
    for kind, pattern in (
        ("alternatives", _ALTERNATIVE_QUESTION),
        ("how", _MUSCLES_QUESTION),
        ("how", _HOW_QUESTION),
    ):
        for found in pattern.finditer(text):
            phrase = " ".join(found.group("x").split()).strip(" ,-/'")
            if phrase and len(phrase) <= 80 and find_exercise(phrase) is not None:
                return kind, phrase
    return None
