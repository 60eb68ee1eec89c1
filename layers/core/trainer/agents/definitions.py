"""Agent definitions as pure data (seed 004 AgentConfig): frozen pydantic models holding names only.

Everything a definition refers to (tools, sub-agents, callbacks, validators, transforms, conditions,
schemas, context types) is a name resolved against `trainer.agents.registry.Registries`, so a definition
serialises to JSON and back unchanged and holds no code.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

NAME_PATTERN = r"^[a-z][a-z0-9_]{0,57}$"
"""Agent and schema names: usable in a tool name (`emit_<schema>`) and an HTTP header."""

ModelRole = Literal["main", "light"]
OutputKind = Literal["text", "markdown", "json"]
Trigger = Literal["always", "on_demand"]
CallbackTiming = Literal["on_success", "on_failure", "always"]
RetryReason = Literal["validation_error", "timeout", "model_error"]
CostCategory = Literal["low", "medium", "high"]


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OutputSpec(_Data):
    """`text` and `markdown` answers are strings; `json` answers are validated against the pydantic
    model registered under `schema_name`. `OutputSpec.json_of("fitness_plan")` builds one."""

    kind: OutputKind = "text"
    schema_name: str | None = Field(default=None, pattern=NAME_PATTERN)

    @classmethod
    def json_of(cls, schema_name: str) -> OutputSpec:
        return cls(kind="json", schema_name=schema_name)

    @model_validator(mode="after")
    def _schema_matches_kind(self) -> OutputSpec:
        if (self.kind == "json") != (self.schema_name is not None):
            raise ValueError("a json output names its schema; text and markdown outputs name none")
        return self


class SubAgentSpec(_Data):
    """A sub-agent run on the parent's validated output. Batches run in ascending order, one after
    another; the sub-agents of one batch run concurrently."""

    agent: str
    transform: str | None = None
    """Turns (parent output, parent input) into the sub-agent's input; none: the parent's output."""
    condition: str | None = None
    """(parent output, parent input) -> bool; the sub-agent is skipped when it is false."""
    trigger: Trigger = "always"
    """`on_demand`: runs only when the caller names it (`run_agent(..., on_demand={...})`)."""
    cache_output: bool = False
    """Reuse the output of an earlier run with the same input and prompt version (per `AgentRunDeps`)."""
    batch: int = Field(default=0, ge=0)
    fan_out: bool = False
    """The transform returns a list: the sub-agent runs once per item (concurrently); its output is a list."""
    optional: bool = False
    """A failure of this sub-agent is recorded but does not fail the parent."""
    key: str | None = None
    """Where the output goes in `AgentRun.sub_outputs`; default: the agent's name."""

    @property
    def output_key(self) -> str:
        return self.key or self.agent


class CallbackSpec(_Data):
    name: str
    when: CallbackTiming = "on_success"


class RetryPolicy(_Data):
    """Retries after the first attempt; `backoff_ms` doubles with each retry."""

    max_retries: int = Field(default=1, ge=0, le=5)
    retry_on: tuple[RetryReason, ...] = ("validation_error",)
    backoff_ms: int = Field(default=0, ge=0, le=60_000)


class AgentDefinition(_Data):
    """One agent the system runs. `implemented_by` marks an agent run by its own code (the chat loop,
    the initializer, the checkpoint job): listed for the registry's completeness, refused by `run_agent`."""

    name: str = Field(pattern=NAME_PATTERN)
    description: str
    model_role: ModelRole = "main"
    prompt_id: str = Field(default="", pattern=r"^$|" + NAME_PATTERN)
    """The prompt's name (file `agents/prompts/<prompt_id>.md`, rows in `prompts`); default: `name`."""
    input_schema: str | None = Field(default=None, pattern=NAME_PATTERN)
    """The registered model the input is validated against; none: the input is text."""
    tools: tuple[str, ...] = ()
    context_types: tuple[str, ...] = ()
    """Data sources (`trainer.sources`) or registered context providers, in prompt order."""
    output: OutputSpec = OutputSpec()
    validators: tuple[str, ...] = ()
    sub_agents: tuple[SubAgentSpec, ...] = ()
    callbacks: tuple[CallbackSpec, ...] = ()
    retry: RetryPolicy = RetryPolicy()
    timeout_seconds: float = Field(default=30.0, gt=0, le=900)
    """Per attempt (one model exchange with its tool loop)."""
    cost_category: CostCategory = "medium"
    max_tokens: int = Field(default=4096, ge=1, le=64_000)
    max_tool_rounds: int = Field(default=6, ge=1, le=50)
    implemented_by: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_prompt_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("prompt_id") and isinstance(data.get("name"), str):
            return {**data, "prompt_id": data["name"]}
        return data
