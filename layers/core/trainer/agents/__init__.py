"""The one agent runtime (docs/architecture.md#one-agent-runtime): agents as definitions that point at their
code, one tool type run by one executor, one step engine, one prompt store, one context service, and the
factory.

A definition (trainer.agents.definitions) holds the objects an agent runs with:

    WORKOUT_MESSAGE = AgentDefinition(
        name="workout_message", description="...", model_role="light",  # prompt_id defaults to name
        input_schema=MessageInput,                       # a pydantic model
        output=OutputSpec(kind="text"),                  # or OutputSpec.json_of(WeekDraft)
        finalize=None,                                   # (draft, input) -> output, or Rejected
        validators=(message_length,),                    # (output, input) -> [errors]
        callbacks=(Callback(enforce_length_callback),),  # async (CallbackEvent) -> output | None
        offline=offline_workout_message,                 # async (input, OfflineContext) -> draft
        retry=RetryPolicy(max_retries=1, retry_on=("validation_error",)),
        timeout_seconds=20, cost_category="low", max_tokens=1024)
    MICROCYCLE = AgentDefinition(..., tools=(ExerciseOptions(),), context=(EXAMPLE_WORKOUT,),
        sub_agents=(SubAgent(WORKOUT_MESSAGE, transform=week_day_messages, fan_out=True),), ...)

The chat agent is one of them (trainer.chat.agent.CHAT); its turn (trainer.chat.turn) and a registry
agent's attempts (`run_agent`) run on the same step engine (trainer.agents.steps). The composition root
lists every definition in one `AgentRegistry` (trainer.container.build_agent_registry), which is where a
stored name finds its definition and where `check()` runs at start-up. Each factory-run agent needs a
prompt file `trainer/agents/prompts/<prompt_id>.md` (seeded into the `prompts` table at every migrate:
trainer/store/prompt_files.py) and an offline implementation.

Running one:

    run = await run_agent(FITNESS_PLAN, inputs, container.agents.for_user(user_id))
    plan = run.output_as(PlanResult)         # the finalized output, after callbacks
    run.sub_outputs["workout_message"]       # a list for a fan-out sub-agent
    run.invocation_id, run.attempts, run.usage, run.cost_cents
    # failure: AgentFailed(name, errors, invocation_id, kind); on-demand sub-agents: on_demand={"name"}

Offline implementations get the typed input (validated against `input_schema`) and must be
deterministic; the loopback fake server (`trainer_dev.local.fake_llm`) rebuilds the input from the request's
JSON and calls the same implementation, so inputs must round-trip through `model_dump(mode="json")`.
"""

from trainer.agents.backends import Backends, ModelChoice
from trainer.agents.context import ContextService
from trainer.agents.definitions import (
    AgentDefinition,
    Callback,
    CallbackEvent,
    ContextProvider,
    ContextRequest,
    OfflineContext,
    OutputSpec,
    Rejected,
    RetryPolicy,
    SubAgent,
    ToolExchange,
    ToolRequest,
)
from trainer.agents.factory import AgentError, AgentFailed, AgentRun, AgentRunDeps, run_agent
from trainer.agents.invocations import InvocationRecord, MemoryInvocations, PostgresInvocations
from trainer.agents.prompts import PromptStore, PromptVersion
from trainer.agents.registry import AgentRegistry, RegistryError

__all__ = [
    "AgentDefinition",
    "AgentError",
    "AgentFailed",
    "AgentRegistry",
    "AgentRun",
    "AgentRunDeps",
    "Backends",
    "Callback",
    "CallbackEvent",
    "ContextProvider",
    "ContextRequest",
    "ContextService",
    "InvocationRecord",
    "MemoryInvocations",
    "ModelChoice",
    "OfflineContext",
    "OutputSpec",
    "PostgresInvocations",
    "PromptStore",
    "PromptVersion",
    "RegistryError",
    "Rejected",
    "RetryPolicy",
    "SubAgent",
    "ToolExchange",
    "ToolRequest",
    "run_agent",
]
