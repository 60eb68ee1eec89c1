"""What a composer gives up when it cannot satisfy everything, and how it says so.

A request can ask for more than the hard rules allow ('a biceps workout' with only bodyweight, 'legs'
with bad knees, 'pull-ups' without a bar). The composer then relaxes the least important constraint
and says which, in words a user reads:

1. the muscles asked for widen to their part of the body ('biceps' -> upper body), then to the whole
   body: a session that trains something else beats no session (`widened_plans`);
2. an exercise asked for by name is left out when no version of it is allowed or fits the time.

The hard rules are never relaxed (the location's equipment, the user's level, injuries and avoided
areas, muscles still recovering, exercises and movements the user ruled out): each is a fact about
the user's body or place, and the workout review would flag a workout that broke one. The sentences
hold no digits, so they pass the closing reply's note filter whole (trainer.agents.closing)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from trainer.domain.catalog import CatalogEntry
from trainer.domain.composer.session_plan import HARD_RULES, HardRule, SessionPlan, allowed, broken_rules
from trainer.domain.equipment import BODYWEIGHT
from trainer.domain.muscles import CORE, LOWER_BODY, UPPER_BODY, region_of
from trainer.domain.recovery import WORKED_SHARE_THRESHOLD
from trainer.domain.workout import Workout
from trainer.domain.workout_checks import muscles_in_text, name_key

MINUTES_IN_TITLE = re.compile(r"\s*\([^)]*\)\s*$")
REGION_WORDS = {"upper": "upper body", "lower": "lower body", "core": "core"}
LEFT_OUT_MOVEMENT = "since you asked me to leave them out"


@dataclass(frozen=True)
class Relaxation:
    """One constraint the composed workout could not keep, said in a sentence without digits."""

    kind: str
    """'focus' (the muscles asked for) or 'movement' (an exercise asked for by name)."""
    words: str


@dataclass(frozen=True)
class ComposedWorkout:
    """A composed workout and the constraints it relaxed to exist (none: it kept every one)."""

    workout: Workout
    relaxed: tuple[Relaxation, ...] = ()

    def relaxed_words(self) -> str | None:
        """What the workout gave up, for the reply (None: nothing)."""
        return " ".join(r.words for r in self.relaxed) or None


def widened_plans(plan: SessionPlan) -> Iterator[SessionPlan]:
    """The plan with its muscle focus widened: first to the parts of the body the muscles asked for
    belong to, as a request for that part reads them (less the avoided ones), then to the whole body."""
    regions = {REGION_WORDS[region_of(m)] for m in plan.focus or plan.asked_muscles}
    region = set().union(*(muscles_in_text(r) for r in sorted(regions))) - set(plan.avoided)
    if region and region != plan.focus:
        yield replace(plan, focus=region)
    yield replace(plan, focus=set(), restrict_to_focus=False)


def focus_relaxed(plan: SessionPlan, lifts: Sequence[CatalogEntry], workout: Workout) -> Relaxation:
    """'Nothing for your legs fits with just your bodyweight and without working your quadriceps, so
    I made an upper body workout instead.' `lifts`: the exercises the session would draw from for the
    muscles asked for, the hard rules aside."""
    made = MINUTES_IN_TITLE.sub("", workout.title or "workout").lower().replace(" & ", " and ")
    because = reasons(lifts, plan, leaving_out="without the exercises you asked me to leave out")
    return Relaxation(
        "focus",
        f"Nothing for your {muscle_words(plan.asked_muscles or plan.focus)} fits"
        f"{' ' + because if because else ''}, so I made {article(made)} {made} instead.",
    )


def movements_left_out(
    plan: SessionPlan, pool: Sequence[CatalogEntry], workout: Workout
) -> tuple[Relaxation, ...]:
    """A sentence for the exercises the request named that the workout does not hold, one per reason
    ('I couldn't fit rows and curls in the time you have.'). `pool`: the exercises the session draws
    from, the hard rules and the muscle focus aside."""
    held = [name_key(ex.exercise_name) for ex in workout.exercises]
    by_reason: dict[tuple[str, str], list[str]] = {}
    for named, words in zip(plan.movements, plan.movement_words, strict=False):
        if any(named.search(name) for name in held):
            continue
        versions = [e for e in pool if named.search(name_key(e.name))]
        if not versions:
            reason = ("I left out", ", which this kind of session doesn't use")
        elif any(allowed(e, plan) for e in versions):
            reason = ("I couldn't fit", " in the time you have")
        else:
            reason = ("I couldn't include", " " + reasons(versions, plan, leaving_out=LEFT_OUT_MOVEMENT))
        by_reason.setdefault(reason, []).append(words)
    return tuple(
        Relaxation("movement", f"{verb} {joined(names)}{because}.")
        for (verb, because), names in by_reason.items()
    )


def reasons(entries: Sequence[CatalogEntry], plan: SessionPlan, *, leaving_out: str) -> str:
    """The fewest hard rules that rule out every one of `entries` (greedily: the rule ruling out the
    most entries still unexplained, until each is explained), said in HardRule order ('with just your
    bodyweight and without working your quadriceps')."""
    broken = {e.name: set(broken_rules(e, plan)) for e in entries}
    unexplained = {name for name, rules in broken.items() if rules}
    chosen: list[HardRule] = []
    while unexplained:
        counts: dict[HardRule, int] = {}
        for name in sorted(unexplained):
            for rule in broken[name]:
                counts[rule] = counts.get(rule, 0) + 1
        rule = max(sorted(counts), key=lambda r: counts[r])
        chosen.append(rule)
        unexplained = {name for name in unexplained if rule not in broken[name]}
    said = [rule_words(rule, plan, entries, leaving_out) for rule in sorted(chosen, key=HARD_RULES.index)]
    return " and ".join(said)


def rule_words(rule: HardRule, plan: SessionPlan, entries: Sequence[CatalogEntry], leaving_out: str) -> str:
    if rule == "equipment":
        return (
            "with just your bodyweight"
            if plan.equipment <= {BODYWEIGHT}
            else "with the equipment you have here"
        )
    if rule == "level":
        return "for a beginner" if plan.level == "beginner" else "at your level"
    if rule == "avoided":
        hit = {m for e in entries for m, s in e.muscles if s > 0 and m in plan.avoided}
        return f"without working your {muscle_words(hit)}"
    if rule == "recovering":
        hit = {m for e in entries for m in e.worked_muscles(WORKED_SHARE_THRESHOLD) if m in plan.blocked}
        return f"while your {muscle_words(hit)} {'recovers' if len(hit) == 1 else 'recover'}"
    return leaving_out


def muscle_words(muscles: Iterable[str]) -> str:
    """Muscles as a user names them: 'legs', 'arms', 'upper body', else 'chest and shoulders'."""
    named = set(muscles)
    if len(named & LOWER_BODY) >= 3 and named <= LOWER_BODY | CORE:
        return "legs"
    if named == {"Biceps", "Triceps"}:
        return "arms"
    if len(named & UPPER_BODY) >= 5 and named <= UPPER_BODY | CORE:
        return "upper body"
    return joined(sorted(m.lower() for m in named)) or "muscles"


def joined(words: Sequence[str]) -> str:
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


def article(phrase: str) -> str:
    return "an" if phrase[:1] in "aeiou" else "a"
