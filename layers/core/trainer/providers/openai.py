"""OpenAI's chat completions (SDK 3.x) behind two model ports: the initializer's (`OpenAIKnowledgeSelector`,
structured output picking which data sources to append before the chat agent runs:
docs/architecture.md#knowledge-the-initializer-and-the-data-sources) and the registry agents'
(`OpenAIStructured`: a json output uses `response_format` json_schema, strict, the output model's schema made
strict as the SDK's own `parse` does; the agent's tools are functions, sent with `reasoning_effort: "none"` on
models that take function tools on chat completions only so (GPT-6 Luna/Sol); the output is validated by the
factory, not by the SDK, so a rejected answer can be fed back as it was written).

One client builder, one error mapping and one usage conversion serve both."""

from __future__ import annotations

import asyncio
import json
import logging
from functools import lru_cache
from typing import Any

import httpx2
import openai
from openai import AsyncOpenAI
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletion
from pydantic import BaseModel

from trainer import model_guard
from trainer.domain.text import escape_text
from trainer.providers.deadline import call_timeout, deadline_budget, timed_out
from trainer.providers.models import MODELS
from trainer.providers.ports import (
    AGENT_HEADER,
    AgentReply,
    AgentRequest,
    AssistantTurn,
    InitializerResponse,
    InitializerResult,
    ModelError,
    Provider,
    ToolCall,
    ToolResultsTurn,
    Turn,
    Usage,
)
from trainer.settings import ModelSettings
from trainer.sources.registry import SOURCE_NAMES

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_COMPLETION_TOKENS = 500
TEMPERATURE = 0.1
TEMPERATURE_MODEL_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4-", "gpt-3.5")
PROMPT_CACHE_KEY = "trainer-initializer"
"""Every initializer call shares its static prefix (the response format, then SYSTEM_PROMPT, over the
1,024 tokens OpenAI caches from): one cache key routes them to the machines that hold it."""
"""Chat models that accept a sampling temperature; reasoning models (o-series, gpt-5) reject one."""

SOURCE_GUIDE = """\
| source | contents | params |
| user_profile | name, body stats | - |
| user_settings | unit preferences (kg/lbs, km/mi) | - |
| all_locations | every location with its equipment | - |
| current_location | the current location with its equipment | - |
| category_goals | category goals with weights AND distribution (actual vs target, debt) | - |
| muscle_goals | muscle goals with weights AND distribution (actual vs target, debt) | - |
| active_preferences | temporary and permanent preferences, injuries | - |
| workout_history | past exercises | days_back (default 14) |
| progression_targets | computed next load and reps per recently trained exercise | - |
| exercise_distribution | running totals per category and muscle | - |
| current_workout_session | the workout in progress or most recently generated | - |
| scheduled_workouts | future planned workouts | days_ahead (default 7) |
| workout_plans | multi-week plans | status: active, completed or all |
| milestone_goals | specific achievement goals (e.g. run a 5K) | status: active, achieved or all |
| exercise_info | how to do one exercise, its muscles, equipment, alternatives | query: its name |"""

SYSTEM_PROMPT = f"""You are a Context Initializer for a Personal Trainer AI agent.

Your job is to analyze the user's message and determine which data sources the main agent needs.
The system uses an APPEND-ONLY architecture for KV-cache efficiency.

<your_task>
1. Read the user's message
2. Review which data sources are already in context (and their parameters)
3. Determine if any NEW data sources should be APPENDED
4. Return ONLY the JSON object described below
</your_task>

<important>
APPEND-ONLY RULES:
- Knowledge is APPENDED to the context, never replaced or removed
- If a data source is already in context, you can still add MORE of it with different parameters
- Example: workout_history with days_back:14 is in context, but user asks about this month
  -> Append workout_history with days_back:30 (the agent sees both and uses the combined info)
- Only request NEW data or EXPANDED data, not data already covered
</important>

<rules>
- You can ONLY ADD data sources, never remove existing ones
- If a source exists with SUFFICIENT scope, do NOT add it again
- If a source exists but with INSUFFICIENT scope (e.g., 14 days but need 30), ADD it with expanded params
- Select the MINIMUM data sources needed - avoid over-fetching
- Use ONLY the source names listed in <data_sources>
</rules>

<data_sources>
{SOURCE_GUIDE}
</data_sources>

<task_to_data_mapping>
WORKOUT GENERATION / EXERCISE RECOMMENDATIONS:
- category_goals, muscle_goals, active_preferences (if not in context)
- workout_history (days_back: 14, or expand if need more)
- progression_targets (the loads to prescribe)
- current_location (if not in context)

GOAL SETTING / ADJUSTMENTS:
- category_goals, muscle_goals

VIEWING STATISTICS / PROGRESS:
- workout_history (days_back by request: week=7, month=30, quarter=90, year=365)
- category_goals

SCHEDULING / PLANNING:
- scheduled_workouts (days_ahead by request)
- workout_plans (if discussing multi-week plans)
- milestone_goals (if discussing specific goals)

PREFERENCE MANAGEMENT:
- active_preferences

TIMER / INTERVAL REQUESTS, LOGGING, CHANGING THE CURRENT WORKOUT:
- current_workout_session

LOCATION QUESTIONS:
- all_locations

EXERCISE QUESTIONS (how to do an exercise, what it works, what to do instead of it):
- exercise_info with query set to the exercise's name as the user wrote it ("romanian deadlift", "dips")

INJURY / RECOVERY DISCUSSION:
- active_preferences
- workout_history (days_back: 7)

GENERAL QUESTIONS / CONVERSATION:
- Usually nothing; add only if specifically relevant
</task_to_data_mapping>

<output_format>
- reasoning: brief explanation of what data is needed and why
- append_knowledge: one entry per source to add, each with
  source, reason ("not_in_context" | "expand_range" | "refresh_state"),
  days_back (workout_history only, else null), days_ahead (scheduled_workouts only, else null),
  status (workout_plans / milestone_goals only, else null),
  query (exercise_info only: the exercise's name, else null)
- use_existing: sources already in context that the agent will use
If nothing needs adding, return an empty append_knowledge list.
</output_format>"""


def format_existing(existing: list[dict[str, Any]]) -> str:
    if not existing:
        return "None"
    lines = []
    for ref in existing:
        params = ref.get("params") or {}
        suffix = f" ({json.dumps(params, sort_keys=True)})" if params else ""
        lines.append(f"- {escape_text(ref.get('source'))}{escape_text(suffix)}")
    return "\n".join(lines)


def user_prompt(message: str, existing: list[dict[str, Any]]) -> str:
    """The initializer's user turn; the message and the sources are escaped (`escape_text`, as the
    chat agent's context is), so nothing the user writes can close `<user_message>` or open a tag."""
    return (
        f"<user_message>\n{escape_text(message)}\n</user_message>\n\n"
        f"<knowledge_already_in_context>\n{format_existing(existing)}\n</knowledge_already_in_context>\n\n"
        "Analyze the user's message and determine if any additional data sources should be APPENDED.\n"
        "Remember: you can expand existing data (e.g., more days of history) by adding it with new params."
    )


def accepts_temperature(model_id: str) -> bool:
    return model_id.startswith(TEMPERATURE_MODEL_PREFIXES)


def openai_client(
    settings: ModelSettings, http_client: httpx2.AsyncClient | None, max_retries: int, *, fallback: str
) -> AsyncOpenAI:
    """The SDK client on the settings' key and base URL; without a key, a ValueError naming `fallback`.
    The one place an OpenAI client is built."""
    if settings.openai_api_key is None:
        raise ValueError(f"OPENAI_API_KEY is not set; use {fallback} instead")
    return AsyncOpenAI(
        api_key=settings.openai_api_key.get_secret_value(),
        base_url=model_guard.checked_base_url(settings.openai_base_url or DEFAULT_BASE_URL),
        http_client=http_client,
        max_retries=max_retries,
        timeout=float(settings.function_timeout_seconds),
    )


class OpenAIKnowledgeSelector:
    def __init__(
        self,
        settings: ModelSettings,
        http_client: httpx2.AsyncClient | None = None,
        *,
        max_retries: int = 1,
    ) -> None:
        self._client = openai_client(
            settings, http_client, max_retries, fallback="the deterministic selector"
        )
        self.model = settings.initializer_model
        self._deadline = deadline_budget(settings)

    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult:
        extra: dict[str, Any] = {"temperature": TEMPERATURE} if accepts_temperature(self.model) else {}
        timeout = call_timeout(*self._deadline)
        model = MODELS.get(self.model)
        if model is not None and model.reasoning_effort_default is not None:
            # a short classification on the turn's critical path: no reasoning tokens eating the
            # 500-token completion budget (GPT-6 reasons at medium unless told otherwise)
            extra["reasoning_effort"] = "none"
        try:
            completion = await self._client.chat.completions.parse(
                model=self.model,
                response_format=InitializerResponse,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": user_prompt(message, existing)},
                ],
                max_completion_tokens=MAX_COMPLETION_TOKENS,
                prompt_cache_key=PROMPT_CACHE_KEY,
                timeout=timeout,
                **extra,
            )
        except Exception as exc:
            error = model_error(exc, "the initializer call")
            if error is None:
                raise
            raise error from exc
        choice = completion.choices[0]
        parsed = choice.message.parsed
        if parsed is None:
            raise ModelError(f"the initializer returned no selection (refusal: {choice.message.refusal!r})")
        unknown = [s.source for s in parsed.append_knowledge if s.source not in SOURCE_NAMES]
        if unknown:
            log.warning("initializer selected unknown sources %s; dropped", unknown)
        selection = InitializerResponse(
            reasoning=parsed.reasoning,
            append_knowledge=[s for s in parsed.append_knowledge if s.source in SOURCE_NAMES],
            use_existing=[s for s in parsed.use_existing if s in SOURCE_NAMES],
        )
        usage = usage_from_completion(completion)
        return InitializerResult(
            selection=selection,
            usage={
                "prompt_tokens": usage.prompt_tokens,
                "cached_tokens": usage.cache_read_input_tokens,
                "completion_tokens": usage.output_tokens,
            },
            model=completion.model or self.model,
            provider="openai",
        )


def model_error(exc: Exception, what: str) -> ModelError | None:
    """The SDK's failure as a ModelError; None for anything that is not the SDK's."""
    if isinstance(exc, openai.APIStatusError):
        return ModelError(f"{what} failed: HTTP {exc.status_code}: {exc.message}")
    if isinstance(exc, openai.OpenAIError | httpx2.HTTPError | ValueError):
        return ModelError(f"{what} failed: {type(exc).__name__}: {exc}")
    return None


def usage_from_completion(completion: ChatCompletion) -> Usage:
    """OpenAI's usage in Anthropic's convention: `input_tokens` without the cached prompt tokens."""
    usage = completion.usage
    details = usage.prompt_tokens_details if usage else None
    cached = (details.cached_tokens or 0) if details else 0
    prompt = usage.prompt_tokens if usage else 0
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=usage.completion_tokens if usage else 0,
        cache_read_input_tokens=cached,
    )


# --- registry agents ------------------------------------------------------------------------------


class OpenAIStructured:
    """The registry agents' model (`StructuredModel`)."""

    provider: Provider = "openai"

    def __init__(
        self, settings: ModelSettings, http_client: httpx2.AsyncClient | None = None, *, max_retries: int = 2
    ) -> None:
        self._client = openai_client(
            settings, http_client, max_retries, fallback="the offline implementations"
        )
        self._deadline = deadline_budget(settings)

    async def generate(self, request: AgentRequest) -> AgentReply:
        timeout = call_timeout(*self._deadline)
        try:
            async with asyncio.timeout(timeout):
                completion = await self._client.chat.completions.create(
                    **request_params(request), extra_headers={AGENT_HEADER: request.agent}, timeout=timeout
                )
        except TimeoutError as exc:
            raise timed_out(timeout) from exc
        except Exception as exc:
            error = model_error(exc, "the model call")
            if error is None:
                raise
            raise error from exc
        return reply_from_completion(completion, request)


def request_params(request: AgentRequest) -> dict[str, Any]:
    first = "\n\n".join([*request.context, request.input_text])
    params: dict[str, Any] = {
        "model": request.model_id,
        "max_completion_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": first},
            *_messages(request.messages),
        ],
    }
    if request.output.schema is not None and request.output.name:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.output.name,
                "schema": strict_schema(request.output.schema),
                "strict": True,
            },
        }
    model = MODELS.get(request.model_id)
    if request.tools and model is not None and model.tools_need_effort_none:
        params["reasoning_effort"] = "none"
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    return params


@lru_cache(maxsize=64)
def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in OpenAI's strict form (shared: callers must not mutate it)."""
    return to_strict_json_schema(model)


def _messages(turns: list[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if isinstance(turn, AssistantTurn):
            message: dict[str, Any] = {"role": "assistant", "content": turn.text}
            if turn.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": json.dumps(c.arguments, ensure_ascii=False),
                        },
                    }
                    for c in turn.tool_calls
                ]
            out.append(message)
        elif isinstance(turn, ToolResultsTurn):
            out.extend(
                {"role": "tool", "tool_call_id": call.id, "content": text} for call, text, _ in turn.results
            )
        else:
            out.append({"role": "user", "content": turn.text})
    return out


def reply_from_completion(completion: ChatCompletion, request: AgentRequest) -> AgentReply:
    if not completion.choices:
        raise ModelError("the model returned no choice")
    message = completion.choices[0].message
    calls: list[ToolCall] = []
    for call in message.tool_calls or []:
        if call.type != "function":
            continue
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except ValueError:
            arguments = {}
        calls.append(ToolCall(call.id, call.function.name, arguments if isinstance(arguments, dict) else {}))
    text = message.content
    if text is None and message.refusal:
        raise ModelError(f"the model refused: {message.refusal}")
    data: dict[str, Any] | None = None
    if request.output.kind == "json" and text and not calls:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        data = parsed if isinstance(parsed, dict) else None
    return AgentReply(
        text=text,
        data=data,
        tool_calls=calls,
        usage=usage_from_completion(completion),
        model=completion.model or request.model_id,
        raw_output=text or "",
    )
