"""health_summary: the phone's health data in words computed in code (docs/health-data.md#the-coach): why
today is what it is (the readiness, its source, what it changes), how the user slept, HRV and resting heart
rate against their own baseline, and other apps' workouts. The model relays the numbers; it never makes
them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from trainer.domain.health_readiness import READINESS_WINDOW_DAYS
from trainer.domain.health_summaries import sleep_summary, trends, workouts_words
from trainer.domain.workout import STRICT_NUMBERS
from trainer.domain.workout_grouping import local_midnight
from trainer.services.day_readiness import day_readiness, day_words
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolResult
from trainer.tools.wording import ReplyContext

Topic = Literal["today", "sleep", "trends", "workouts"]


class HealthSummaryArgs(BaseModel):
    model_config = STRICT_NUMBERS
    topic: Topic = Field(default="today", description="today: why today is as it is")
    days: int = Field(default=7, ge=1, le=90, description="Days back")


class HealthSummaryResult(ToolResult):
    topic: Topic
    days: int
    text: str
    """The answer in words, its numbers computed in code."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        return self.text


class HealthSummary(Tool[HealthSummaryArgs, HealthSummaryResult]):
    name = "health_summary"
    can_finish = True
    description = (
        "Phone health data vs the user's baseline: sleep, HRV and resting HR trends, other apps' workouts."
    )
    Args = HealthSummaryArgs
    Result = HealthSummaryResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Reading your health data...", done="Health data read"
    )
    category = "summary"

    async def execute(self, args: HealthSummaryArgs, ctx: ToolContext) -> HealthSummaryResult:
        now = ctx.now()
        async with ctx.user_data.reading() as reads:
            if args.topic == "today":
                text = day_words(await day_readiness(reads, now))
            else:
                health = reads.health
                tz = await health.timezone()
                today = now.astimezone(tz).date()
                if args.topic == "sleep":
                    series = await health.series(today, tz)
                    nights = await health.nights(today - timedelta(days=args.days - 1), today, tz)
                    text = sleep_summary(nights, series.sleep, today, args.days).words()
                elif args.topic == "trends":
                    series = await health.series(today, tz, days=max(READINESS_WINDOW_DAYS, args.days))
                    found = trends(series, today, args.days)
                    text = (
                        "\n".join(t.words() for t in found)
                        if found
                        else "No HRV or resting heart rate from your phone yet."
                    )
                else:
                    since = local_midnight(today - timedelta(days=args.days - 1), tz)
                    workouts = await health.workouts(since, now + timedelta(seconds=1))
                    text = workouts_words(workouts, today, tz, args.days)
        return HealthSummaryResult(topic=args.topic, days=args.days, text=text)

    def format(self, result: HealthSummaryResult) -> str:
        return result.text


TOOLS: list[AnyTool] = [HealthSummary()]
