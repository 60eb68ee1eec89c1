"""The chat agent and the two agents around its turn, as registry definitions.

`CHAT` is what a chat turn (trainer.chat.turn) runs: its prompt (`agents/prompts/chat.md`, served by the
prompt store like every agent's), its tools in the order the model sees them, its model role, its
iteration cap and its retry policy. The initializer (which picks the data a turn needs) and the
checkpoint summariser (deterministic) run in their own code; they are listed so the registry holds
every agent the system runs.
"""

from __future__ import annotations

from trainer.agents.definitions import AgentDefinition, OutputSpec, RetryPolicy
from trainer.chat.checkpoint import create_checkpoint
from trainer.chat.initializer import initialize_context
from trainer.chat.turn import ChatRunner
from trainer.programs import tools as program_tools
from trainer.providers.ports import InitializerResponse
from trainer.tools import (
    analytics,
    calendar,
    communication,
    data,
    exercises,
    goals,
    health,
    injuries,
    location,
    preferences,
    profile,
    readiness,
    settings,
    timers,
    workout,
)
from trainer.tools import (
    logging as logging_tools,
)
from trainer.tools.base import AnyTool

CHAT_TOOLS: tuple[AnyTool, ...] = (
    *communication.TOOLS,
    *workout.TOOLS,
    *goals.TOOLS,
    *preferences.TOOLS,
    *injuries.TOOLS,
    *logging_tools.TOOLS,
    *timers.TOOLS,
    *calendar.TOOLS,
    *analytics.TOOLS,
    *data.TOOLS,
    *location.TOOLS,
    *exercises.TOOLS,
    *program_tools.TOOLS,
    *readiness.TOOLS,
    *profile.TOOLS,
    *settings.TOOLS,
    *health.TOOLS,
)
"""The chat agent's tools, in the order its requests list them (the cached prefix depends on it)."""
CHAT = AgentDefinition(
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
    max_steps=10,
    implemented_by=ChatRunner.run_turn,
)
INITIALIZER = AgentDefinition(
    name="initializer",
    description="Picks the data sources to append to the chat agent's context before a turn",
    model_role="light",
    prompt_id="initializer",
    output=OutputSpec.json_of(InitializerResponse),
    retry=RetryPolicy(max_retries=0, retry_on=()),
    timeout_seconds=15,
    cost_category="low",
    max_tokens=500,
    implemented_by=initialize_context,
)
CHECKPOINT_SUMMARISER = AgentDefinition(
    name="checkpoint_summariser",
    description="Compresses a long session into one checkpoint event (deterministic, no model)",
    model_role="light",
    prompt_id="checkpoint_summariser",
    output=OutputSpec(kind="text"),
    retry=RetryPolicy(max_retries=0, retry_on=()),
    timeout_seconds=45,
    cost_category="low",
    implemented_by=create_checkpoint,
)
CHAT_AGENTS: tuple[AgentDefinition, ...] = (CHAT, INITIALIZER, CHECKPOINT_SUMMARISER)
