"""check_readiness: store a readiness check-in (sleep, energy, stress, soreness, last session's RPE)
and answer "should I train today?" from today's check-in, computed in code (trainer.domain.readiness).
generate_workout then adjusts the day's workout to it."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from trainer.domain.muscles import MUSCLES, canonical_muscle
from trainer.domain.readiness import CheckIn, assess
from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult


class CheckReadinessArgs(BaseModel):
    model_config = STRICT_NUMBERS
    sleep_hours: float | None = Field(default=None, ge=0, le=24)
    sleep_quality: int | None = Field(default=None, ge=1, le=5, description="1 awful - 5 great")
    energy: int | None = Field(default=None, ge=1, le=5, description="1 exhausted - 5 full of energy")
    stress: int | None = Field(default=None, ge=1, le=5, description="1 calm - 5 very stressed")
    soreness: dict[str, Annotated[int, Field(ge=0, le=5)]] = Field(
        default_factory=dict, description="{muscle: 0 none - 5 very sore} over " + ", ".join(MUSCLES)
    )
    last_session_rpe: float | None = Field(default=None, ge=1, le=10)
    notes: str | None = Field(default=None, max_length=500)


class CheckReadinessResult(ToolResult):
    recorded: bool
    """A new check-in was stored (False: the answer comes from today's earlier one)."""
    has_check_in: bool
    level: Literal["ready", "reduce", "recover", "rest"] | None = None
    reasons: list[str] = Field(default_factory=list)
    sore_muscles: list[str] = Field(default_factory=list)
    advice: str


class CheckReadiness(Tool[CheckReadinessArgs, CheckReadinessResult]):
    name = "check_readiness"
    description = (
        "Record how the user slept and feels today (any of sleep hours or quality, energy, stress, "
        "soreness per muscle, last session's RPE) and get the computed readiness: train as planned, "
        "train lighter, a recovery session, or rest, with the reasons. Call with no fields to answer "
        "'should I train?' from today's check-in. generate_workout adjusts today's workout to it."
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
            return CheckReadinessResult(
                recorded=False,
                has_check_in=False,
                advice=(
                    "No check-in today yet: how did you sleep (hours), and how are your energy, stress "
                    "and any soreness?"
                ),
            )
        assessment = assess(CheckIn.from_row(row))
        return CheckReadinessResult(
            recorded=recorded,
            has_check_in=True,
            level=assessment.level,
            reasons=list(assessment.reasons),
            sore_muscles=list(assessment.sore_muscles),
            advice=assessment.advice,
        )

    def format(self, result: CheckReadinessResult) -> str:
        if not result.has_check_in:
            return "no check-in today; ask how they slept and feel"
        stored = "check-in stored; " if result.recorded else ""
        return f"{stored}readiness {result.level}: {result.advice}"


TOOLS: list[AnyTool] = [CheckReadiness()]
