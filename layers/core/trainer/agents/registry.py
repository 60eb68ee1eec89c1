"""The registries (seed 004): tools, agents with their validators, transforms, conditions and schemas,
callbacks, offline implementations and context providers, bundled as `Registries`.

Definitions name what they use; `Registries.check()` resolves every name at start-up and lists all that
are missing at once. Each registry has `replace()` (swap an entry in a test) and `clear()`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from trainer.agents.definitions import AgentDefinition
from trainer.providers.ports import ToolCall
from trainer.sources.registry import SOURCE_NAMES

if TYPE_CHECKING:
    from trainer.agents.factory import AgentRunDeps

ToolKind = Literal["action", "query"]
DEFAULT_TOOL_PRIORITY = 100


class RegistryError(ValueError):
    """Names that do not resolve, or an entry registered twice. `problems` lists each one."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class ToolCallContext:
    """What a tool of a factory-run agent gets besides its arguments."""

    agent: str
    input: Any
    deps: AgentRunDeps


@dataclass(frozen=True)
class CallbackEvent:
    """What a callback sees. On success it may return a replacement output (None keeps it)."""

    agent: str
    input: Any
    output: Any
    success: bool
    errors: tuple[str, ...]
    invocation_id: str
    sub_outputs: Mapping[str, Any]
    deps: AgentRunDeps


@dataclass(frozen=True)
class ContextRequest:
    user_id: str | None
    input: Any
    now: datetime
    deps: AgentRunDeps


@dataclass(frozen=True)
class ToolExchange:
    """One earlier tool call of this attempt and what it returned."""

    name: str
    arguments: dict[str, Any]
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class OfflineContext:
    """What an offline implementation gets besides its typed input: the rendered context blocks, the
    tool calls it asked for earlier with their results, and the attempt number."""

    agent: str
    context: tuple[str, ...] = ()
    tool_results: tuple[ToolExchange, ...] = ()
    attempt: int = 1


@dataclass(frozen=True)
class ToolRequest:
    """Returned by an offline implementation that wants tools called first: (name, arguments) pairs."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


ValidatorFn = Callable[[Any, Any], Sequence[str]]
"""(output, input) -> error messages; none means valid."""
TransformFn = Callable[[Any, Any], Any]
"""(parent output, parent input) -> the sub-agent's input (a list for a fan-out)."""
ConditionFn = Callable[[Any, Any], bool]
CallbackFn = Callable[[CallbackEvent], Awaitable[Any]]
OfflineImpl = Callable[[Any, OfflineContext], Awaitable[Any]]
ContextProvider = Callable[[ContextRequest], Awaitable[str]]
ToolExecute = Callable[[Any, ToolCallContext], Awaitable[str | BaseModel]]


@dataclass(frozen=True)
class AgentTool:
    """A tool a factory-run agent may call. Lower `priority` runs first when one answer asks for
    several calls; `kind` says whether it changes anything (`action`) or only reads (`query`)."""

    name: str
    description: str
    args: type[BaseModel]
    execute: ToolExecute
    priority: int = DEFAULT_TOOL_PRIORITY
    kind: ToolKind = "query"

    def input_schema(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        schema.setdefault("type", "object")
        return schema


@dataclass(frozen=True)
class CallbackEntry:
    name: str
    execute: CallbackFn
    description: str = ""


class NamedRegistry[T]:
    """Entries by name: `register` refuses a taken name, `replace` one that is not registered."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> None:
        if name in self._entries:
            raise RegistryError([f"{self.kind} {name!r} is registered twice"])
        self._entries[name] = entry

    def swap(self, name: str, entry: T) -> None:
        if name not in self._entries:
            raise RegistryError([f"cannot replace unknown {self.kind} {name!r}"])
        self._entries[name] = entry

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise RegistryError([f"unknown {self.kind} {name!r}"]) from None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def names(self) -> list[str]:
        return list(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    def copy_into(self, other: NamedRegistry[T]) -> None:
        other._entries = dict(self._entries)


class ToolRegistry(NamedRegistry[AgentTool]):
    """Tools of factory-run agents, and the names of tools another registry executes (the chat
    agent's, `trainer.agents.tools`), declared so definitions listing them resolve."""

    def __init__(self) -> None:
        super().__init__("tool")
        self._external: dict[str, str] = {}

    def register(self, tool: AgentTool) -> None:
        self.add(tool.name, tool)

    def replace(self, tool: AgentTool) -> None:
        self.swap(tool.name, tool)

    def declare_external(self, names: Iterable[str], owner: str) -> None:
        for name in names:
            self._external[name] = owner

    @property
    def external(self) -> dict[str, str]:
        return dict(self._external)

    def knows(self, name: str) -> bool:
        return name in self or name in self._external

    def priority(self, name: str) -> int:
        return self._entries[name].priority if name in self._entries else DEFAULT_TOOL_PRIORITY

    def order(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The calls in execution order: by priority, then in the order the model wrote them."""
        return sorted(calls, key=lambda call: self.priority(call.name))

    def clear(self) -> None:
        super().clear()
        self._external.clear()

    def copy_into(self, other: NamedRegistry[AgentTool]) -> None:
        super().copy_into(other)
        if isinstance(other, ToolRegistry):
            other._external = dict(self._external)


class AgentRegistry:
    """Agent definitions and the named functions and schemas they refer to."""

    def __init__(self) -> None:
        self._agents: NamedRegistry[AgentDefinition] = NamedRegistry("agent")
        self.validators: NamedRegistry[ValidatorFn] = NamedRegistry("validator")
        self.transforms: NamedRegistry[TransformFn] = NamedRegistry("transform")
        self.conditions: NamedRegistry[ConditionFn] = NamedRegistry("condition")
        self.schemas: NamedRegistry[type[BaseModel]] = NamedRegistry("schema")

    def register(self, definition: AgentDefinition) -> None:
        self._agents.add(definition.name, definition)

    def replace(self, definition: AgentDefinition) -> None:
        self._agents.swap(definition.name, definition)

    def get(self, name: str) -> AgentDefinition:
        return self._agents.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    @property
    def names(self) -> list[str]:
        return self._agents.names

    def definitions(self) -> list[AgentDefinition]:
        return [self._agents.get(name) for name in self._agents]

    def register_validator(self, name: str, fn: ValidatorFn) -> None:
        self.validators.add(name, fn)

    def register_transform(self, name: str, fn: TransformFn) -> None:
        self.transforms.add(name, fn)

    def register_condition(self, name: str, fn: ConditionFn) -> None:
        self.conditions.add(name, fn)

    def register_schema(self, name: str, model: type[BaseModel]) -> None:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise RegistryError([f"schema {name!r} is not a pydantic model"])
        self.schemas.add(name, model)

    def schema(self, name: str) -> type[BaseModel]:
        return self.schemas.get(name)

    def clear(self) -> None:
        for registry in self._parts():
            registry.clear()

    def copy_into(self, other: AgentRegistry) -> None:
        for mine, theirs in zip(self._parts(), other._parts(), strict=True):
            mine.copy_into(theirs)

    def _parts(self) -> tuple[NamedRegistry[Any], ...]:
        return (self._agents, self.validators, self.transforms, self.conditions, self.schemas)


class CallbackRegistry(NamedRegistry[CallbackEntry]):
    """Deterministic side effects run after an agent, by timing, in the definition's order."""

    def __init__(self) -> None:
        super().__init__("callback")

    def register(self, name: str, fn: CallbackFn, description: str = "") -> None:
        self.add(name, CallbackEntry(name, fn, description))

    def replace(self, name: str, fn: CallbackFn, description: str = "") -> None:
        self.swap(name, CallbackEntry(name, fn, description))


class OfflineRegistry(NamedRegistry[OfflineImpl]):
    """The deterministic implementation of each factory-run agent, by agent name."""

    def __init__(self) -> None:
        super().__init__("offline implementation")

    def register(self, agent: str, fn: OfflineImpl) -> None:
        self.add(agent, fn)

    def replace(self, agent: str, fn: OfflineImpl) -> None:
        self.swap(agent, fn)


class ContextRegistry(NamedRegistry[ContextProvider]):
    """Context types beyond the data sources of `trainer.sources`. A provider returns its text escaped
    (`trainer.domain.text.escape_text`), as the sources' formatters do."""

    def __init__(self) -> None:
        super().__init__("context provider")

    def register(self, name: str, fn: ContextProvider) -> None:
        if name in SOURCE_NAMES:
            raise RegistryError([f"context provider {name!r} would hide the data source of that name"])
        self.add(name, fn)

    def replace(self, name: str, fn: ContextProvider) -> None:
        self.swap(name, fn)


@dataclass
class Registries:
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    agents: AgentRegistry = field(default_factory=AgentRegistry)
    callbacks: CallbackRegistry = field(default_factory=CallbackRegistry)
    offline: OfflineRegistry = field(default_factory=OfflineRegistry)
    contexts: ContextRegistry = field(default_factory=ContextRegistry)

    def clear(self) -> None:
        for registry in (self.tools, self.agents, self.callbacks, self.offline, self.contexts):
            registry.clear()

    def copy(self) -> Registries:
        """A copy whose entries can be replaced without touching this one."""
        other = Registries()
        self.tools.copy_into(other.tools)
        self.agents.copy_into(other.agents)
        self.callbacks.copy_into(other.callbacks)
        self.offline.copy_into(other.offline)
        self.contexts.copy_into(other.contexts)
        return other

    def check(self, *, prompt_ids: Collection[str] | None = None) -> None:
        """Raises RegistryError listing every name a definition uses that does not resolve, every
        factory-run agent without an offline implementation (or, given `prompt_ids`, a prompt), and
        every sub-agent cycle."""
        problems: list[str] = []
        for definition in self.agents.definitions():
            problems.extend(self._problems(definition, prompt_ids))
        problems.extend(self._cycles())
        if problems:
            raise RegistryError(problems)

    def _problems(self, d: AgentDefinition, prompt_ids: Collection[str] | None) -> Iterator[str]:
        where = f"agent {d.name!r}"
        runs_here = d.implemented_by is None
        for tool in d.tools:
            if tool in self.tools:
                continue
            if not self.tools.knows(tool):
                yield f"{where}: unknown tool {tool!r}"
            elif runs_here:
                yield f"{where}: tool {tool!r} belongs to {self.tools.external[tool]} and cannot run here"
        for name in d.context_types:
            if name not in SOURCE_NAMES and name not in self.contexts:
                yield f"{where}: unknown context type {name!r}"
        for schema in (d.input_schema, d.output.schema_name):
            if schema is not None and schema not in self.agents.schemas:
                yield f"{where}: unknown schema {schema!r}"
        for validator in d.validators:
            if validator not in self.agents.validators:
                yield f"{where}: unknown validator {validator!r}"
        for callback in d.callbacks:
            if callback.name not in self.callbacks:
                yield f"{where}: unknown callback {callback.name!r}"
        keys: set[str] = set()
        for sub in d.sub_agents:
            if sub.output_key in keys:
                yield f"{where}: two sub-agents write {sub.output_key!r}"
            keys.add(sub.output_key)
            if sub.agent not in self.agents:
                yield f"{where}: unknown sub-agent {sub.agent!r}"
            elif self.agents.get(sub.agent).implemented_by is not None:
                yield f"{where}: sub-agent {sub.agent!r} is not run by the factory"
            if sub.transform is not None and sub.transform not in self.agents.transforms:
                yield f"{where}: unknown transform {sub.transform!r}"
            if sub.condition is not None and sub.condition not in self.agents.conditions:
                yield f"{where}: unknown condition {sub.condition!r}"
        if runs_here:
            if d.name not in self.offline:
                yield f"{where}: no offline implementation"
            if prompt_ids is not None and d.prompt_id not in prompt_ids:
                yield f"{where}: no prompt {d.prompt_id!r}"

    def _cycles(self) -> list[str]:
        edges = {
            d.name: [s.agent for s in d.sub_agents if s.agent in self.agents]
            for d in self.agents.definitions()
        }
        found: list[str] = []
        state: dict[str, int] = {}

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for child in edges.get(name, []):
                if state.get(child) == 1:
                    cycle = [*path[path.index(child) :], child] if child in path else [name, child]
                    found.append("sub-agent cycle: " + " -> ".join(cycle))
                elif child not in state:
                    visit(child, [*path, child])
            state[name] = 2

        for name in edges:
            if name not in state:
                visit(name, [name])
        return found

    def dependency_graph(self) -> dict[str, dict[str, list[str]]]:
        """Per agent: the tools, sub-agents, callbacks, validators and context types it uses."""
        return {
            d.name: {
                "tools": list(d.tools),
                "sub_agents": [s.agent for s in d.sub_agents],
                "callbacks": [c.name for c in d.callbacks],
                "validators": list(d.validators),
                "context_types": list(d.context_types),
            }
            for d in self.agents.definitions()
        }
