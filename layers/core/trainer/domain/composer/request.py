"""A request for a workout: what the caller gives the composer (`ComposerRequest`), the error it
answers when nothing fits, and what the request's words ask for and rule out, read clause by clause
('legs today but nothing for my knee', 'a quick one with squats', 'no lunges')."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trainer.domain.distribution import DistributionRow
from trainer.domain.equipment import BODYWEIGHT, NO_EQUIPMENT, normalise_equipment
from trainer.domain.loading import LoadSteps
from trainer.domain.workout_checks import muscles_in_text, parse_time_budget, preference_constraints

QUICK_MINUTES = 20
"""What 'quick' means in a request."""

_NEGATIVE_CLAUSE = re.compile(
    r"\b(avoid\w*|no|not|nothing|never|skip\w*|without|exclud\w*|spar(?:e|ing)|easy on|hurt\w*|injur\w*"
    r"|pain\w*|sore\w*|ach(?:e|es|ing|y)|tweak\w*|strain\w*|sprain\w*|bad|dodgy|cranky|wonky|niggl\w*|don'?t|doesn'?t|can'?t|cannot|except)\b",
    re.I,
)
_CLAUSES = re.compile(r"[.,;!?]|\bbut\b|\band\b|\bexcept\b", re.I)
_CARDIO = re.compile(
    r"\b(cardio|run|running|jog\w*|cycl\w*|bike|rowing|hiit|conditioning|endurance|sweat)\b", re.I
)
_MOBILITY = re.compile(r"\b(stretch\w*|mobility|flexibility|yoga|cool ?down|limber)\b", re.I)
_FULL_BODY = re.compile(r"\bfull[\s-]?body\b", re.I)
LOGGED_WORK = re.compile(
    r"\blog(?:ged)?\b|\b(?:i|we)(?:'ve| have)?\s+(?:also\s+|just\s+|already\s+)?(?:did|done)\b", re.I
)
"""A clause telling what was done rather than asking for it ('and log 15 squats from earlier', 'I
did 20 push-ups this morning'): the exercises it names are not asked for."""
NO_WEIGHTS = re.compile(
    r"\b(?:with |using )?(?:no|without(?: any)?|zero)\s+(?:equipment|weights?|gear|kit)\b", re.I
)
"""'No equipment', 'without weights': a bodyweight session, not a muscle or an exercise to avoid ('arms
with no equipment' asks for arms)."""
_IMPLEMENT = (
    r"(?:the\s+|my\s+)?(?:dumbbells?|barbells?|kettlebells?|machines?|cables?|(?:resistance )?bands?)"
)
IMPLEMENT = re.compile(r"dumbbells?|barbells?|kettlebells?|machines?|cables?|bands?", re.I)
NO_IMPLEMENT = re.compile(
    rf"\b(?:no|without(?: any)?|not? using)\s+{_IMPLEMENT}"
    rf"(?:\s*(?:,|\bor\b|\band\b|\bnor\b)\s*{_IMPLEMENT})*\b",
    re.I,
)
"""An implement the request leaves out ('arms, no dumbbells'): the session does without it, whatever
the exercise's name says."""
QUICK = re.compile(r"\bquick(?:ie)?\b|\bshort (?:workout|session|one)\b", re.I)

_ARTICLE = re.compile(r"^(?:a|an|the|my|any|some)\s+")
_BEGINNER = re.compile(
    r"\b(?:beginners?|novice|newbie|new to (?:this|working out|training|the gym|lifting|exercis\w*|fitness)"
    r"|just (?:starting|started|getting started)|(?:my )?first (?:time|workout|ever)"
    r"|never (?:trained|worked out|lifted|exercised|been to a gym))\b",
    re.I,
)
"""Words that say the user is a beginner: the workout then keeps to beginner exercises."""
MOVEMENTS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(asked, re.I), re.compile(named))
    for asked, named in (
        (r"\bsquats?\b", r"\bsquat\b"),
        (r"\brdls?\b|\bromanian dead ?lifts?\b", r"\bromanian deadlift\b|\bstiff legged\b"),
        (r"\bdead ?lifts?\b", r"\bdeadlift\b"),
        (r"\bbench ?press(?:es)?\b|\bbenching\b", r"\bbench press\b"),
        (r"\blunges?\b", r"\blunge\b"),
        (r"\brows?\b", r"\brow\b"),
        (r"\bpull[\s-]?ups?\b|\bchin[\s-]?ups?\b", r"\bpullup\b|\bpull up\b|\bchin up\b"),
        (r"\bpush[\s-]?ups?\b|\bpress[\s-]?ups?\b", r"\bpushup\b|\bpush up\b"),
        (r"\bdips?\b", r"\bdip\b"),
        (r"\b(?:leg|hamstring) curls?\b", r"\bleg curl\b"),
        (r"(?<!leg )(?<!hamstring )\bcurls?\b", r"(?<!leg )\bcurl\b"),
        (
            r"\b(?:overhead|shoulder|military) press(?:es)?\b|\bohp\b",
            r"\b(?:shoulder|military|overhead) press\b",
        ),
        (r"\bhip thrusts?\b", r"\bhip thrust\b"),
        (r"\bbridges?\b", r"\bbridge\b"),
        (r"\bplanks?\b", r"\bplank\b"),
        (r"\bcrunch(?:es)?\b", r"\bcrunch"),
        (r"\bsit[\s-]?ups?\b", r"\bsit up\b"),
        (r"\bswings?\b", r"\bswing\b"),
        (r"\bleg press(?:es)?\b", r"\bleg press\b"),
        (r"\bcalf raises?\b", r"\bcalf raise\b"),
        (r"\bface pulls?\b", r"\bface pull\b"),
        (r"\bshrugs?\b", r"\bshrug\b"),
        (r"\bfl(?:y|ies|yes)\b", r"\bfly\b|\bflye\b"),
        (r"\bpull[\s-]?downs?\b", r"\bpulldown\b"),
        (r"\bstep[\s-]?ups?\b", r"\bstep up\b"),
        (r"\bgood ?mornings?\b", r"\bgood morning\b"),
        (r"\b(?:lateral|side) raises?\b", r"\blateral raise\b"),
        (r"\bburpees?\b", r"\bburpee\b"),
        (r"\bmountain climbers?\b", r"\bmountain climber\b"),
    )
)
"""(words of a request naming a movement, the catalog names (name_key form) that are that movement)."""


class ComposerError(ValueError):
    """No workout can be built under the user's constraints (the message says why)."""


@dataclass
class ComposerRequest:
    request_text: str = ""
    weight_unit: str = "kg"
    distance_unit: str = "km"
    available_equipment: set[str] = field(default_factory=lambda: {BODYWEIGHT})
    category_goals: dict[str, float] = field(default_factory=dict)
    muscle_goals: dict[str, float] = field(default_factory=dict)
    category_debt: list[DistributionRow] = field(default_factory=list)
    muscle_debt: list[DistributionRow] = field(default_factory=list)
    preferences: list[dict[str, Any]] = field(default_factory=list)
    """{type, description, guidance, temporary: bool} (expires_at / delete_after_use also mean temporary)."""
    history: list[dict[str, Any]] = field(default_factory=list)
    now: datetime | None = None
    """Recovery reference time; None means the latest history entry (everything just logged recovers)."""
    time_budget_min: int | None = None
    """Explicit budget; else the minutes the request names ('30 minutes', 'half an hour'), a temporary
    time preference, 'quick' (QUICK_MINUTES), a permanent time preference, `preferred_minutes`."""
    preferred_minutes: int | None = None
    """The user's usual session length; None means DEFAULT_TIME_BUDGET_MIN."""
    session_cap_minutes: int | None = None
    """The longest session the user has (their profile): the workout never runs longer, unless the
    request or a temporary preference names its time."""
    focus_muscles: set[str] | None = None
    """Explicitly requested muscles; None means parse them from the request text."""
    excluded_exercises: set[str] = field(default_factory=set)
    excluded_muscles: set[str] = field(default_factory=set)
    experience_level: str = "intermediate"
    recovering: dict[str, datetime] | None = None
    """Precomputed muscle -> ready-at; None means derive it from history."""
    progression_history: list[dict[str, Any]] | None = None
    """The recent sessions of each exercise progression reads; None means `history`."""
    load_steps: LoadSteps | None = None
    """The loads the user can set up; None means the defaults for the weight unit."""
    timezone: str = "UTC"


@dataclass(frozen=True)
class ParsedRequest:
    """What a request asks for, read clause by clause ('legs today but nothing for my knee')."""

    focus: frozenset[str]
    """Muscles asked for ('full body': none), less the avoided ones."""
    asked: frozenset[str]
    """Muscles asked for, the avoided ones included ('legs' of 'legs, but my knees are bad')."""
    avoid: frozenset[str]
    """Muscles a negative or painful clause names, joints included ('my knee hurts')."""
    minutes: int | None
    cardio: bool
    mobility: bool
    movements: tuple[re.Pattern[str], ...]
    """Exercises asked for by name ('with squats'), as patterns over catalog name keys."""
    movement_words: tuple[str, ...]
    """How the request named each of `movements` ('pull-ups'), in the same order."""
    dislikes: tuple[str, ...]
    """Exercise name phrases the request rules out ('no lunges', 'I don't like rows')."""
    bodyweight_only: bool = False
    """The request says there is no equipment ('no weights', 'bodyweight only')."""
    without: frozenset[str] = frozenset()
    """Implements the request leaves out ('no dumbbells'), canonical names."""


def request_minutes(text: str) -> int | None:
    """Minutes a request asks for: '30 minutes', '45 min', 'half an hour', 'an hour'; 'quick' is
    QUICK_MINUTES."""
    minutes = parse_time_budget(text)
    if minutes is None and QUICK.search(text):
        return QUICK_MINUTES
    return minutes


def _dislikes(text: str) -> tuple[str, ...]:
    phrases = preference_constraints([{"type": "exercise", "description": text}]).excluded_exercises
    cleaned = (_ARTICLE.sub("", phrase) for phrase in phrases)
    return tuple(dict.fromkeys(p for p in cleaned if len(p) >= 3))


def without_equipment_words(text: str) -> str:
    """The text without what it says about equipment ('no equipment', 'no dumbbells'): those words
    name no muscle to avoid and no exercise to rule out."""
    return NO_IMPLEMENT.sub(" ", NO_WEIGHTS.sub(" ", NO_EQUIPMENT.sub(" ", text)))


def parse_request(text: str) -> ParsedRequest:
    """The muscles, time, kind of session and exercises a request asks for and rules out."""
    focus: set[str] = set()
    avoid: set[str] = set()
    cardio = mobility = False
    movements: list[re.Pattern[str]] = []
    movement_words: list[str] = []
    for clause in _CLAUSES.split(text):
        clause = without_equipment_words(clause)
        if not clause.strip() or LOGGED_WORK.search(clause):
            continue
        if _NEGATIVE_CLAUSE.search(clause):
            avoid |= muscles_in_text(clause, include_joints=True)
            continue
        focus |= muscles_in_text(clause)
        cardio = cardio or bool(_CARDIO.search(clause))
        mobility = mobility or bool(_MOBILITY.search(clause))
        for asked, named in MOVEMENTS:
            said = asked.search(clause)
            if said and named not in movements:
                movements.append(named)
                movement_words.append(said.group(0).lower())
    if re.search(r"\bexcept\b", text, re.I):
        avoid |= muscles_in_text(
            re.split(r"\bexcept\b", text, maxsplit=1, flags=re.I)[1], include_joints=True
        )
    if _FULL_BODY.search(text):
        focus = set()
    return ParsedRequest(
        focus=frozenset(focus - avoid),
        asked=frozenset(focus),
        avoid=frozenset(avoid),
        minutes=request_minutes(text),
        cardio=cardio,
        mobility=mobility,
        movements=tuple(movements),
        movement_words=tuple(movement_words),
        dislikes=_dislikes(without_equipment_words(text)),
        bodyweight_only=bool(NO_EQUIPMENT.search(text) or NO_WEIGHTS.search(text)),
        without=frozenset(
            normalise_equipment(word)
            for said in NO_IMPLEMENT.finditer(text)
            for word in IMPLEMENT.findall(said[0])
        ),
    )


def parse_request_muscles(text: str) -> tuple[set[str], set[str]]:
    """(muscles asked for, muscles to leave out) from the request, clause by clause:
    'legs today but nothing for my knee' -> ({legs...}, {Quadriceps, Hamstrings})."""
    parsed = parse_request(text)
    return set(parsed.focus), set(parsed.avoid)


def parse_focus(text: str) -> set[str]:
    """Muscles the request asks for: 'chest', 'legs', 'upper body', 'push'... ('full body': none)."""
    return set(parse_request(text).focus)


def says_beginner(text: str, preferences: Iterable[Mapping[str, Any]] = ()) -> bool:
    """The request or an active preference says the user is a beginner ('I'm new to this')."""
    said = [text, *(f"{p.get('description', '')} {p.get('guidance', '')}" for p in preferences)]
    return any(_BEGINNER.search(t) for t in said)
