"""fetch_data: several data sources fetched in one call and appended to
the session as knowledge events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from trainer.domain.workout import STRICT_NUMBERS
from trainer.frames import knowledge_frame
from trainer.sources.budget import fit_turn
from trainer.sources.registry import DISPLAY_NAMES, SOURCE_NAMES, fetch_sources
from trainer.store.models import CURRENT_WORKOUT_KEY, EventType, KnowledgeRef
from trainer.tools.base import AnyTool, StatusMessage, Tool, ToolContext, ToolError, ToolResult
from trainer.tools.wording import ReplyContext, plain_text
from trainer.tools.wording import number_text as number_text  # tools/calendar.py imports it here

EXERCISE_SOURCE = "exercise_info"
FETCHABLE = tuple(name for name in SOURCE_NAMES if name != EXERCISE_SOURCE)
"""The sources fetch_data offers: every one but exercise knowledge, which search_exercises answers (one
tool for it; the initializer still loads it as knowledge when a message asks about an exercise)."""


class SourceParams(BaseModel):
    model_config = STRICT_NUMBERS
    days_back: int | None = Field(default=None, ge=1, le=3650, description="Days of the past to cover")
    days_ahead: int | None = Field(default=None, ge=1, le=365, description="Days ahead to cover")
    limit: int | None = Field(default=None, ge=1, le=500, description="At most this many items")
    status: str | None = Field(default=None, max_length=20, description="Only items with this status")


class FetchDataArgs(BaseModel):
    model_config = STRICT_NUMBERS
    sources: list[str] = Field(min_length=1, max_length=16, description="Any of: " + ", ".join(FETCHABLE))
    params: dict[str, SourceParams] | None = Field(
        default=None, description="Per source, e.g. {'workout_history': {'days_back': 30}}"
    )

    @field_validator("sources")
    @classmethod
    def _not_exercise_knowledge(cls, sources: list[str]) -> list[str]:
        if EXERCISE_SOURCE in sources:
            raise ValueError("exercise knowledge comes from search_exercises")
        return sources


class FetchDataResult(ToolResult):
    data: dict[str, str] = Field(default_factory=dict)
    """Source name -> the formatted data (also appended as a knowledge event)."""
    errors: dict[str, str] = Field(default_factory=dict)
    """Source name -> why it was not fetched."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        found = "\n\n".join(plain_text(text, 1500) for text in self.data.values())
        return f"Here's what I have on file:\n{found}" if found else "I couldn't find that data."


class FetchData(Tool[FetchDataArgs, FetchDataResult]):
    name = "fetch_data"
    description = (
        "Load more of the user's data (several sources in one call), when it is not in context or a "
        "wider range is needed; it arrives as knowledge."
    )
    Args = FetchDataArgs
    Result = FetchDataResult
    status: ClassVar[StatusMessage | None] = StatusMessage(
        start="Gathering your info...", done="Context ready"
    )
    category = "full"

    async def execute(self, args: FetchDataArgs, ctx: ToolContext) -> FetchDataResult:
        params = args.params or {}
        errors: dict[str, str] = {}
        requests: list[tuple[str, dict[str, Any]]] = []
        for source in dict.fromkeys(args.sources):
            source_params = params.get(source)
            requests.append((source, source_params.model_dump(exclude_none=True) if source_params else {}))
        for extra in sorted(set(params) - set(args.sources)):
            errors[extra] = "params given for a source that was not requested"

        async def workout_in_progress() -> dict[str, Any] | None:
            return await ctx.get_state(CURRENT_WORKOUT_KEY)

        fetched = await fetch_sources(
            ctx.require_db(), ctx.user_id, requests, now=ctx.now(), current_workout=workout_in_progress
        )
        data: dict[str, str] = {}
        refs: list[KnowledgeRef] = []
        loaded = [item for item in fetched if not item.error]
        fitted = fit_turn([(item.source, item.formatted) for item in loaded])
        budgets = {id(item): budget for item, budget in zip(loaded, fitted, strict=True)}
        for item in fetched:
            if item.error:
                errors[item.source] = item.error
                continue
            budget = budgets[id(item)]
            data[item.source] = budget.text
            await ctx.append_event(
                EventType.KNOWLEDGE,
                {
                    "source": item.source,
                    "params": item.params,
                    "data": budget.text,
                    "budget": budget.as_json(),
                },
            )
            refs.append(KnowledgeRef(source=item.source, params=item.params))
            await ctx.emit(knowledge_frame(item.source, DISPLAY_NAMES.get(item.source, item.source)))
        if refs:
            await ctx.session_store().add_knowledge(ctx.session_id, refs)
        if not data:
            raise ToolError("nothing fetched: " + _error_list(errors))
        return FetchDataResult(data=data, errors=errors)

    def format(self, result: FetchDataResult) -> str:
        fetched = list(result.data)
        text = f"Fetched: {', '.join(fetched)} (see knowledge below)" if fetched else "Fetched nothing"
        if result.errors:
            text += "\nFailed: " + _error_list(result.errors)
        return text


def _error_list(errors: dict[str, str]) -> str:
    return "; ".join(f"{source}: {message}" for source, message in errors.items())


TOOLS: list[AnyTool] = [FetchData()]
