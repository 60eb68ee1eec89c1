"""check_readiness: store a readiness check-in (sleep, energy, stress, soreness, last session's RPE)
and answer "should I train today?" from today's check-in, else from the phone's health data, computed in
code (trainer.domain.readiness, trainer.domain.health_readiness).
generate_workout adjusts a later workout to it; a workout of this conversation made before the check-in
(within its day) is adjusted at once, always from the workout as first made, so a second check-in never
cuts twice and a good one restores it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from trainer.domain.muscles import MUSCLES, canonical_muscle
from trainer.domain.readiness import CheckIn, assess
from trainer.domain.workout import STRICT_NUMBERS, Workout
from trainer.services.day_readiness import day_readiness
from trainer.services.readiness import READINESS_HOURS
from trainer.store.models import CURRENT_WORKOUT_KEY
from trainer.tools.base import (
    AnyTool,
    DeliveredArtifact,
    Reply,
    StatusMessage,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
)
from trainer.tools.current_workout import UNADJUSTED_KEY, new_exercise_id, save_current_workout
from trainer.tools.fitting import fit_to_check_in
from trainer.tools.wording import ReplyContext


class CheckReadinessArgs(BaseModel):
    model_config = STRICT_NUMBERS
    sleep_hours: float | None = Field(default=None, ge=0, le=24, description="Hours slept last night")
    sleep_quality: int | None = Field(default=None, ge=1, le=5, description="1 awful - 5 great")
    energy: int | None = Field(default=None, ge=1, le=5, description="1 exhausted - 5 full of energy")
    stress: int | None = Field(default=None, ge=1, le=5, description="1 calm - 5 very stressed")
    soreness: dict[str, Annotated[int, Field(ge=0, le=5)]] = Field(
        default_factory=dict,
        description="{muscle: 0 none - 5 very sore}",
    )
    last_session_rpe: float | None = Field(
        default=None, ge=1, le=10, description="How hard the last session was"
    )
    notes: str | None = Field(default=None, max_length=500, description="The user's words")


class CheckReadinessResult(ToolResult):
    recorded: bool
    """A new check-in was stored (False: the answer comes from today's earlier one)."""
    has_check_in: bool
    level: Literal["ready", "reduce", "recover", "rest"] | None = None
    reasons: list[str] = Field(default_factory=list)
    sore_muscles: list[str] = Field(default_factory=list)
    advice: str
    workout_changes: list[str] = Field(default_factory=list)
    """What changed in this conversation's current workout because of the check-in, in words."""
    artifact_id: str | None = None
    """The changed workout's artifact, to show again (set only with workout_changes)."""
    from_health_data: bool = False
    """No check-in today: the readiness comes from the phone's health data (HRV, resting heart rate,
    sleep against the person's baseline)."""

    def add_to_reply(self, reply: Reply) -> None:
        if self.workout_changes:
            reply.workout_changed = True

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return DeliveredArtifact(self.artifact_id, None) if self.artifact_id else None

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        if self.level is None:
            return self.advice
        if self.from_health_data:
            return "From your phone's health data: " + self.advice
        text = ("Thanks for checking in. " if self.recorded else "") + self.advice
        if self.workout_changes:
            text += " I've adjusted the workout we made today: " + "; ".join(self.workout_changes) + "."
        return text


class CheckReadiness(Tool[CheckReadinessArgs, CheckReadinessResult]):
    name = "check_readiness"
    description = (
        "Record how the user slept and feels today and get the readiness call (train, lighter, recover or "
        "rest) with its reasons; no fields: today's check-in."
    )
    Args = CheckReadinessArgs
    Result = CheckReadinessResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Checking your readiness...", done="Readiness checked"
    )
    category = "summary"

    async def execute(self, args: CheckReadinessArgs, ctx: ToolContext) -> CheckReadinessResult:
        fields = args.model_dump(exclude_none=True)
        soreness: dict[str, int] = {}
        for name, level in (fields.pop("soreness", None) or {}).items():
            muscle = canonical_muscle(name)
            if muscle is None:
                raise ToolError(f"unknown muscle '{name}'. Valid muscles: {', '.join(MUSCLES)}")
            soreness[muscle] = max(level, soreness.get(muscle, 0))
        readiness = ctx.user_data.readiness
        row: dict[str, Any] | None
        if fields or soreness:
            row = await readiness.check_in(**fields, soreness=soreness, recorded_at=ctx.now())
            recorded = True
        else:
            row = await readiness.today(ctx.now())
            recorded = False
        if row is None:
            sensed = await _from_health_data(ctx)
            if sensed is not None:
                return sensed
            return CheckReadinessResult(
                recorded=False,
                has_check_in=False,
                advice=(
                    "No check-in today yet: how did you sleep (hours), and how are your energy, stress "
                    "and any soreness?"
                ),
            )
        assessment = assess(CheckIn.from_row(row))
        changes, artifact_id = await _refit_current_workout(row, ctx) if recorded else ([], None)
        return CheckReadinessResult(
            recorded=recorded,
            has_check_in=True,
            level=assessment.level,
            reasons=list(assessment.reasons),
            sore_muscles=list(assessment.sore_muscles),
            advice=assessment.advice,
            workout_changes=changes,
            artifact_id=artifact_id,
        )

    def format(self, result: CheckReadinessResult) -> str:
        if result.from_health_data:
            return (
                f"no check-in today; readiness {result.level} from the phone's health data: {result.advice}"
            )
        if not result.has_check_in:
            return "no check-in today; ask how they slept and feel"
        stored = "check-in stored; " if result.recorded else ""
        text = f"{stored}readiness {result.level}: {result.advice}"
        if result.workout_changes:
            text += "\nThe current workout was adjusted to it (tell the user): " + "; ".join(
                result.workout_changes
            )
        return text


async def _from_health_data(ctx: ToolContext) -> CheckReadinessResult | None:
    """Today's readiness from the phone's health data, when it has enough for a signal."""
    async with ctx.user_data.reading() as reads:
        day = await day_readiness(reads, ctx.now())
    if day.source != "health_data" or day.assessment is None:
        return None
    return CheckReadinessResult(
        recorded=False,
        has_check_in=False,
        level=day.assessment.level,
        reasons=list(day.assessment.reasons),
        advice=day.assessment.advice,
        from_health_data=True,
    )


async def _refit_current_workout(check_in: dict[str, Any], ctx: ToolContext) -> tuple[list[str], str | None]:
    """Fit the conversation's current workout, made earlier the same day, to the new check-in, always
    from the workout as it was before any check-in; what changed, in words."""
    current = await ctx.get_state(CURRENT_WORKOUT_KEY)
    if not current or not current.get("exercises") or not _made_today(current, ctx.now()):
        return [], None
    artifact_id = current.get("artifact_id")
    original = current.get(UNADJUSTED_KEY) or {
        "title": current.get("title"),
        "exercises": current["exercises"],
    }
    workout = Workout.model_validate(original)
    fitted, changes = await fit_to_check_in(workout, check_in, ctx)
    if not changes:
        if UNADJUSTED_KEY not in current:
            return [], None
        await save_current_workout(ctx, {**current, "title": original.get("title")}, original["exercises"])
        return ["back to the workout as first planned, since you're feeling better"], artifact_id
    taken = {str(ex.get("id")) for ex in (*original["exercises"], *current["exercises"])}
    exercises = []
    for ex in fitted.exercises:
        item = ex.model_dump(mode="json", exclude_none=True)
        if not item.get("id"):
            item["id"] = new_exercise_id(taken)
            taken.add(item["id"])
        exercises.append(item)
    await save_current_workout(
        ctx, {**current, "title": fitted.title or original.get("title")}, exercises, unadjusted=original
    )
    return changes, artifact_id


def _made_today(current: dict[str, Any], now: datetime) -> bool:
    made = current.get("created_at")
    try:
        created = datetime.fromisoformat(str(made))
    except ValueError:
        return False
    if created.tzinfo is None or now.tzinfo is None:
        return False
    return timedelta(0) <= now - created <= timedelta(hours=READINESS_HOURS)


TOOLS: list[AnyTool] = [CheckReadiness()]
