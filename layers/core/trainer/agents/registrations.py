"""The agents the system ran before the registry, as definitions, so the registry lists every agent:
the chat agent (`trainer.chat.turn`, its tools executed by `trainer.agents.tools`), the
initializer (`trainer.providers.openai`, deterministic rules without a key) and the checkpoint
summariser (`trainer.chat.checkpoint`, deterministic). They run in their own code; `run_agent`
refuses them."""

from __future__ import annotations

from collections.abc import Iterable

from trainer.agents.definitions import AgentDefinition, OutputSpec, RetryPolicy
from trainer.agents.registry import Registries
from trainer.providers.ports import InitializerResponse

CHAT_TOOLS_OWNER = "trainer.agents.tools"

CHAT_TOOLS: tuple[str, ...] = (
    "message_notify_user", "message_ask_user", "idle",
    "generate_workout", "swap_exercise", "adjust_exercise", "remove_exercise", "add_exercise_to_workout",
    "set_goals", "set_preference", "delete_preference",
    "log_workout", "log_completed_exercise", "undo_logged_exercise", "mark_exercise_complete",
    "adjust_logged_exercise",
    "generate_exercise_timer", "generate_workout_timers",
    "schedule_workout", "update_scheduled_workout", "delete_scheduled_workout", "create_workout_plan",
    "manage_milestone",
    "get_workout_statistics", "get_exercise_breakdown", "get_progress_trends", "generate_stats_summary",
    "fetch_data", "set_current_location", "search_exercises",
    "request_training_plan", "show_training_plan", "get_planned_workout", "change_training_week",
    "change_training_day",
)  # fmt: skip
"""The chat agent's tools, as `trainer.container.collect_tools` registers them (a test keeps them equal)."""

SYSTEM_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name="chat",
        description="The personal trainer in conversation: one tool call per iteration until it replies",
        model_role="main",
        prompt_id="chat",
        tools=CHAT_TOOLS,
        output=OutputSpec(kind="text"),
        retry=RetryPolicy(max_retries=1, retry_on=("model_error",)),
        timeout_seconds=300,
        cost_category="medium",
        max_tokens=8192,
        implemented_by="trainer.chat.turn",
    ),
    AgentDefinition(
        name="initializer",
        description="Picks the data sources to append to the chat agent's context before a turn",
        model_role="light",
        prompt_id="initializer",
        output=OutputSpec.json_of("initializer_response"),
        retry=RetryPolicy(max_retries=0, retry_on=()),
        timeout_seconds=15,
        cost_category="low",
        max_tokens=500,
        implemented_by="trainer.providers.openai",
    ),
    AgentDefinition(
        name="checkpoint_summariser",
        description="Compresses a long session into one checkpoint event (deterministic, no model)",
        model_role="light",
        prompt_id="checkpoint_summariser",
        output=OutputSpec(kind="text"),
        retry=RetryPolicy(max_retries=0, retry_on=()),
        timeout_seconds=45,
        cost_category="low",
        implemented_by="trainer.chat.checkpoint",
    ),
)


def register_system_agents(registries: Registries, chat_tools: Iterable[str]) -> None:
    """Registers the three system agents; `chat_tools` are the names the chat tool registry executes."""
    registries.tools.declare_external(chat_tools, CHAT_TOOLS_OWNER)
    registries.agents.register_schema("initializer_response", InitializerResponse)
    for definition in SYSTEM_AGENTS:
        registries.agents.register(definition)
