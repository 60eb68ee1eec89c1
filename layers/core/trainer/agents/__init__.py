"""The agent registry and factory (seed 004): agents as data, named registries, `run_agent`.

Registering a package's agents (`trainer.programs.agents.register_program_agents`, called by
`trainer.container.build_registries`, which then runs `check()`):

    def register_program_agents(registries: Registries) -> None:
        r = registries
        r.agents.register_schema("fitness_plan", FitnessPlan)      # pydantic models by name (input/output)
        r.agents.register_validator("min_microcycles", fn)         # fn(output, input) -> list[str] errors
        r.agents.register_transform("day_messages", fn)            # fn(parent_output, parent_input) -> input
        r.agents.register_condition("has_training_days", fn)       # fn(parent_output, parent_input) -> bool
        r.callbacks.register("enforce_length", fn)                 # async fn(CallbackEvent) -> output | None
        r.offline.register("fitness_plan", fn)                     # async fn(input, OfflineContext) -> output
        r.contexts.register("training_plan", fn)                   # async fn(ContextRequest) -> escaped str
        r.tools.register(AgentTool(name, description, args=Model, execute=fn, priority=1, kind="query"))
        r.agents.register(AgentDefinition(
            name="fitness_plan", description="...", model_role="main",   # prompt_id defaults to name
            input_schema="plan_inputs", context_types=("user_profile",),
            output=OutputSpec.json_of("fitness_plan"),                   # or OutputSpec(kind="markdown")
            validators=("min_microcycles",),
            sub_agents=(SubAgentSpec(agent="workout_message", transform="day_messages", fan_out=True),),
            callbacks=(CallbackSpec(name="enforce_length", when="on_success"),),
            retry=RetryPolicy(max_retries=2, retry_on=("validation_error",), backoff_ms=0),
            timeout_seconds=60, cost_category="high"))

Each factory-run agent needs a prompt file `trainer/agents/prompts/<prompt_id>.md` (seeded into the
`prompts` table by a migration `scripts/prompt_migration.py` writes) and an offline implementation.

Running one:

    run = await run_agent("fitness_plan", inputs, container.agents.for_user(user_id))
    plan = run.output_as(FitnessPlan)        # json agents: the schema's model; text/markdown: str
    run.sub_outputs["workout_message"]       # a list for a fan-out sub-agent
    run.invocation_id, run.attempts, run.usage, run.cost_cents
    # failure: AgentFailed(name, errors, invocation_id, kind); on-demand sub-agents: on_demand={"name"}

Offline implementations get the typed input (validated against `input_schema`) and must be
deterministic; the loopback fake server (`trainer.local.fake_llm`) rebuilds the input from the request's
JSON and calls the same implementation, so inputs must round-trip through `model_dump(mode="json")`.
"""

from trainer.agents.backends import Backends, ModelChoice
from trainer.agents.context import ContextService
from trainer.agents.definitions import (
    AgentDefinition,
    CallbackSpec,
    OutputSpec,
    RetryPolicy,
    SubAgentSpec,
)
from trainer.agents.factory import AgentError, AgentFailed, AgentRun, AgentRunDeps, run_agent
from trainer.agents.invocations import InvocationRecord, MemoryInvocations, PostgresInvocations
from trainer.agents.prompts import PromptStore, PromptVersion
from trainer.agents.registry import (
    AgentTool,
    CallbackEvent,
    ContextRequest,
    OfflineContext,
    Registries,
    RegistryError,
    ToolCallContext,
    ToolExchange,
    ToolRequest,
)

__all__ = [
    "AgentDefinition",
    "AgentError",
    "AgentFailed",
    "AgentRun",
    "AgentRunDeps",
    "AgentTool",
    "Backends",
    "CallbackEvent",
    "CallbackSpec",
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
    "Registries",
    "RegistryError",
    "RetryPolicy",
    "SubAgentSpec",
    "ToolCallContext",
    "ToolExchange",
    "ToolRequest",
    "run_agent",
]
