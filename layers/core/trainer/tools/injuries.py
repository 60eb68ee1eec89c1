"""record_injury: the one place an injury or physical limitation is saved, whatever the conversation is
about (onboarding, a workout, a swap). It is stored as a preference of type `injury` (the workout checks
and every program agent leave out what loads that body part, until it expires or is deleted with
delete_preference), and the profile stops saying the user has no limitations.

Never final: an injury needs the coach's own words, and when the user's words raise a red flag (sharp,
shooting or worsening pain, a recent operation: trainer.domain.safety) the result carries the advice to
stop and see a professional, which the reply must give."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from trainer.domain.safety import RedFlag, flag_labels, red_flags, safety_advice
from trainer.domain.workout import STRICT_NUMBERS
from trainer.domain.workout_checks import muscles_in_text
from trainer.services.models import Preference
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, day_text

INJURY_AREAS = "knee, hip, ankle, wrist, elbow, shoulder, lower back, neck or a muscle"


class RecordInjuryArgs(BaseModel):
    model_config = STRICT_NUMBERS
    injury: str = Field(
        min_length=2,
        max_length=300,
        description="In the user's words, naming the body part ('left knee, sharp pain when squatting')",
    )
    until: datetime | None = Field(default=None, description="ISO date-time it ends; omit while it lasts")


def injury_guidance(injury: str) -> str:
    return f"Injury: leave out exercises that load the injured area ({injury})."


class RecordInjuryResult(ToolResult):
    preference: Preference
    red_flags: list[RedFlag] = Field(default_factory=list)
    """What in the user's words means stop and see a professional (trainer.domain.safety)."""

    needs_user_context = True

    @property
    def advice(self) -> str:
        return safety_advice(self.red_flags)

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        pref = self.preference
        until = f" until {day_text(pref.expires_at.date(), ctx.today)}" if pref.expires_at else ""
        said = pref.description.rstrip(".")
        noted = f"Noted: {said[:1].lower()}{said[1:]}{until}. Your workouts will leave it alone."
        return f"{self.advice} {noted}" if self.advice else noted


class RecordInjury(Tool[RecordInjuryArgs, RecordInjuryResult]):
    name = "record_injury"
    description = (
        "Save an injury, pain or limitation the user mentions, whenever they do: workouts leave that body "
        "part alone until `until` or delete_preference. The result flags red flags (safety)."
    )
    Args = RecordInjuryArgs
    Result = RecordInjuryResult
    status: ClassVar[StatusMessage | None] = StatusMessage(start="Noting your injury...", done="Injury noted")
    category = "summary"

    async def execute(self, args: RecordInjuryArgs, ctx: ToolContext) -> RecordInjuryResult:
        injury = " ".join(args.injury.split())
        if not muscles_in_text(injury, include_joints=True):
            raise ToolError(
                f"'{injury}' names no body part I can work around ({INJURY_AREAS}): say which part, or save "
                "another limitation with set_preference"
            )
        if args.until is not None and args.until <= ctx.now():
            raise ToolError("until is in the past: omit it for an injury that lasts")
        async with ctx.user_data.transaction() as tx:
            preference = await tx.preferences.create(
                type="injury",
                description=injury,
                guidance=injury_guidance(injury),
                expires_at=args.until,
                now=ctx.now(),
            )
            await tx.profile.update(no_limitations=False)
        return RecordInjuryResult(preference=preference, red_flags=red_flags(f"{injury}. {ctx.user_message}"))

    def format(self, result: RecordInjuryResult) -> str:
        pref = result.preference
        until = f" (until {pref.expires_at.date().isoformat()})" if pref.expires_at else ""
        text = f"recorded injury: {pref.description}{until} id={pref.id}"
        if result.red_flags:
            text += (
                f"\nred flags: {', '.join(flag_labels(result.red_flags))}. Safety advice the user must get: "
                f"{result.advice}"
            )
        return text


TOOLS: list[AnyTool] = [RecordInjury()]
