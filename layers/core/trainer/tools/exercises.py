"""search_exercises: exercise knowledge from the catalog (trainer.domain.exercise_search) — how to do
an exercise (instruction steps, muscles, equipment), exercises for a muscle, and what to do instead
of an exercise with the equipment at hand."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, Field, model_validator

from trainer.domain.catalog import CatalogEntry, instructions, load_catalog
from trainer.domain.equipment import available_equipment, missing_equipment
from trainer.domain.exercise_search import (
    alternatives,
    equipment_text,
    find_exercise,
    form_cues,
    match_names,
    name_score,
    name_tokens,
    pain_free_alternatives,
    search_exercises,
    shares_text,
    summary_text,
)
from trainer.domain.muscles import Muscle
from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, joined

Level = Literal["beginner", "intermediate", "expert"]
Category = Literal[
    "strength", "powerlifting", "olympic weightlifting", "strongman", "cardio", "plyometrics", "stretching"
]
EquipmentFrom = Literal["given", "current_location", "any"]


class SearchExercisesArgs(BaseModel):
    model_config = STRICT_NUMBERS
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="An exercise to look up ('rdl'): the best match, with its steps",
    )
    alternatives_to: str | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="An exercise to replace (same movement and muscles)",
    )
    painful_joint: (
        Literal["knee", "shoulder", "lower back", "back", "elbow", "wrist", "hip", "ankle"] | None
    ) = Field(
        default=None,
        description="With alternatives_to: spare this joint",
    )
    muscle: Muscle | None = Field(default=None, description="Only exercises that work this muscle")
    category: Category | None = Field(default=None, description="Only this kind of exercise")
    level: Level | None = Field(default=None, description="The hardest level to include")
    equipment: list[Annotated[str, Field(min_length=1, max_length=60)]] | None = Field(
        default=None,
        max_length=30,
        description="Only this equipment (default: the current location's)",
    )
    any_equipment: bool = Field(default=False, description="Ignore equipment altogether")
    include_instructions: bool = Field(default=False, description="Steps for every result, not only query's")
    limit: int = Field(default=5, ge=1, le=10, description="How many results")

    @model_validator(mode="after")
    def _what_to_search(self) -> Self:
        if not (self.query or self.alternatives_to or self.muscle or self.category):
            raise ValueError("give query, alternatives_to, muscle or category")
        if self.query and self.alternatives_to:
            raise ValueError("give query or alternatives_to, not both")
        if self.equipment is not None and self.any_equipment:
            raise ValueError("give equipment or any_equipment, not both")
        return self


class MuscleShareInfo(BaseModel):
    muscle: str
    share: float


class ExerciseInfo(BaseModel):
    """A catalog exercise as search_exercises returns it."""

    name: str
    category: str
    level: str
    mechanic: str | None = None
    force: str | None = None
    equipment: list[str]
    """Everything it needs; [] for bodyweight."""
    missing_equipment: list[str] = Field(default_factory=list)
    """What it needs that the user's current location lacks (empty when unknown)."""
    muscles: list[MuscleShareInfo]
    instructions: list[str] = Field(default_factory=list)
    why: str | None = None
    """For an alternative: what it shares with the exercise it replaces."""


ASKS_MUSCLES = re.compile(r"\bmuscles?\b|\bwork(s)?\b|\btarget|\bhit\b", re.IGNORECASE)
ASKS_HOW = re.compile(r"\bhow (do|should|can) i\b", re.IGNORECASE)
"""A question about an exercise that asks which muscles it works, not how to do it, is answered with the
muscles alone."""


def muscles_answer(info: ExerciseInfo) -> str:
    """'Squat mainly works your quadriceps (about 40% of the work), with your glutes helping.'"""
    shares = sorted(((m.muscle, m.share) for m in info.muscles), key=lambda m: -m[1])
    if not shares:
        return f"The catalog doesn't list the muscles {info.name} works."
    main, share = shares[0]
    others = [m.lower() for m, _ in shares[1:]]
    helpers = f", with your {joined(others)} helping" if others else ""
    return f"{info.name} mainly works your {main.lower()} (about {share:.0%} of the work){helpers}."


def equipment_note(info: ExerciseInfo, location: str | None) -> str:
    """What an exercise needs, and what of it the user's location lacks."""
    if not info.equipment:
        return "No equipment needed."
    needs = f"You'll need: {joined(info.equipment)}"
    if not info.missing_equipment:
        return f"{needs}."
    return f"{needs} - {location or 'your current location'} has no {joined(info.missing_equipment, 'or')}."


class SearchExercisesResult(ToolResult):
    exercises: list[ExerciseInfo]
    reference: ExerciseInfo | None = None
    """The exercise alternatives_to named, as the catalog has it."""
    equipment: list[str] | None = None
    """The equipment the results were limited to; None when any equipment was allowed."""
    equipment_from: EquipmentFrom = "any"
    location: str | None = None
    painful_joint: str | None = None
    """The joint the alternatives spare (alternatives to a movement that hurts)."""

    needs_user_context = True

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        """How to do the exercise, which muscles it works, or what to do instead of it."""
        if self.reference is not None:
            return self._alternatives(self.reference)
        if not self.exercises:
            return "I couldn't find that exercise in my catalog - try its full name."
        info = self.exercises[0]
        if ASKS_MUSCLES.search(ctx.text) and not ASKS_HOW.search(ctx.text):
            return muscles_answer(info)
        lines = [muscles_answer(info), equipment_note(info, ctx.location)]
        if info.instructions:
            lines.append("How to do it:")
            lines.extend(f"{n}. {step}" for n, step in enumerate(info.instructions, start=1))
            if cues := form_cues(info.instructions):
                lines.append("Form cues: " + " ".join(cues))
        return "\n".join(lines)

    def _alternatives(self, reference: ExerciseInfo) -> str:
        if not self.exercises:
            return f"I couldn't find an alternative to {reference.name} that fits the equipment you have."
        where = f" with the equipment at {self.location}" if self.location else ""
        sparing = f" that go easy on your {self.painful_joint}" if self.painful_joint else ""
        lines = [f"Instead of {reference.name}, you could do these{sparing}{where}:"]
        for info in self.exercises:
            why = f" - {info.why}" if info.why else ""
            lines.append(f"- {info.name}{why}")
        if self.painful_joint:
            lines.append(
                "Keep every movement pain-free, and stop if it hurts; if the pain is sharp or lasts, have a "
                "physiotherapist or doctor look at it. I haven't changed your workouts or saved anything."
            )
        return "\n".join(lines)


def _info(entry: CatalogEntry, *, steps: bool, have: set[str] | None, why: str | None = None) -> ExerciseInfo:
    return ExerciseInfo(
        name=entry.name,
        category=entry.category,
        level=entry.level,
        mechanic=entry.mechanic,
        force=entry.force,
        equipment=list(entry.equipment),
        missing_equipment=sorted(missing_equipment(entry.equipment, have)) if have is not None else [],
        muscles=[MuscleShareInfo(muscle=m, share=s) for m, s in entry.muscles],
        instructions=list(instructions(entry)) if steps else [],
        why=why,
    )


def _not_found(name: str) -> ToolError:
    words = name_tokens(name)
    close = sorted(load_catalog().entries, key=lambda e: -name_score(words, e.name)[0])[:5] if words else []
    hint = f"; closest names: {', '.join(e.name for e in close)}" if close else ""
    return ToolError(f"no catalog exercise matches '{name}'{hint}")


class SearchExercises(Tool[SearchExercisesArgs, SearchExercisesResult]):
    name = "search_exercises"
    description = (
        "The exercise catalogue: an exercise by name (steps, muscles, equipment, level), exercises for a "
        "muscle or kind, or what to do instead of one."
    )
    shared_arguments: ClassVar[Mapping[str, str]] = {"muscle": "generate_workout"}
    Args = SearchExercisesArgs
    Result = SearchExercisesResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Looking up exercises...", done="Exercises found"
    )
    category = "full"

    async def execute(self, args: SearchExercisesArgs, ctx: ToolContext) -> SearchExercisesResult:
        user_have, location = await self._user_equipment(ctx)
        given = available_equipment(args.equipment) if args.equipment is not None else None
        have = given if given is not None else user_have  # to say what an exercise lacks (None: unknown)
        limit_to: set[str] | None
        equipment_from: EquipmentFrom
        if args.any_equipment or (given is None and (args.query or user_have is None)):
            limit_to, equipment_from = None, "any"
        elif given is not None:
            limit_to, equipment_from = given, "given"
        else:
            limit_to, equipment_from = user_have, "current_location"
        result = SearchExercisesResult(
            exercises=[],
            equipment=sorted(limit_to) if limit_to is not None else None,
            equipment_from=equipment_from,
            location=location if equipment_from == "current_location" else None,
        )
        if args.alternatives_to:
            reference = find_exercise(args.alternatives_to)
            if reference is None:
                raise _not_found(args.alternatives_to)
            options = (
                pain_free_alternatives(
                    reference,
                    args.painful_joint,
                    available=limit_to,
                    max_level=args.level,
                    limit=len(load_catalog()),
                    muscle=args.muscle,
                )
                if args.painful_joint
                else alternatives(
                    reference,
                    available=limit_to,
                    avoid_name=args.alternatives_to,
                    max_level=args.level,
                    limit=len(load_catalog()),
                )
            )
            result.painful_joint = args.painful_joint
            found = [
                a
                for a in options
                if (args.muscle is None or a.entry.share_of(args.muscle) > 0)
                and (args.category is None or a.entry.category == args.category)
            ][: args.limit]
            result.reference = _info(reference, steps=False, have=have)
            result.exercises = [
                _info(a.entry, steps=args.include_instructions, have=have, why=a.reason) for a in found
            ]
            return result
        entries = search_exercises(
            query=args.query,
            muscle=args.muscle,
            available=limit_to,
            max_level=args.level,
            category=args.category,
            limit=args.limit,
        )
        if args.query and not entries and not match_names(args.query, limit=1):
            raise _not_found(args.query)
        result.exercises = [
            _info(e, steps=args.include_instructions or (bool(args.query) and i == 0), have=have)
            for i, e in enumerate(entries)
        ]
        return result

    async def _user_equipment(self, ctx: ToolContext) -> tuple[set[str] | None, str | None]:
        """The current location's equipment and name; (None, None) without a location or database."""
        if ctx.db is None:
            return None, None
        current = await ctx.user_data.locations.current()
        if current is None:
            return None, None
        return available_equipment(current.get("equipment") or []), str(current["name"])

    def format(self, result: SearchExercisesResult) -> str:
        lines: list[str] = []
        if result.reference is not None:
            sparing = f" that spare the {result.painful_joint}" if result.painful_joint else ""
            lines.append(f"Alternatives to {_summary(result.reference)}{sparing}:")
        if result.equipment is not None:
            where = f"at {result.location} " if result.location else ""
            lines.append(f"Limited to the equipment {where}({', '.join(result.equipment)})")
        if not result.exercises:
            lines.append("No exercise matches.")
        for info in result.exercises:
            lines.append(f"- {_summary(info)}")
            needs = equipment_text(info.equipment)
            if info.missing_equipment:
                needs += f" (missing here: {', '.join(info.missing_equipment)})"
            lines.append(f"  Muscles: {_muscles(info)}; equipment: {needs}")
            if info.why:
                lines.append(f"  Why: {info.why}")
            if info.instructions:
                lines.append("  Steps:")
                lines.extend(f"    {n}. {step}" for n, step in enumerate(info.instructions, start=1))
        return "\n".join(lines)


def _summary(info: ExerciseInfo) -> str:
    return summary_text(info.name, info.category, info.level, info.mechanic, info.force)


def _muscles(info: ExerciseInfo) -> str:
    return shares_text((m.muscle, m.share) for m in info.muscles)


TOOLS: list[AnyTool] = [SearchExercises()]
