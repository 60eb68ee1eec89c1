"""The registry of agent definitions by name: where a stored name (an `agent_invocations`
row, the `x-trainer-agent` header the loopback fake dispatches on) finds its definition, and where the
whole system's agents are checked together at start-up (`check`) and listed (`dependency_graph`).
Definitions refer to their code directly (trainer.agents.definitions); `replace()` and `clear()` let a
test swap one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence

from trainer.agents.definitions import AgentDefinition


class RegistryError(ValueError):
    """Definitions that do not fit together, or a name registered twice. `problems` lists each one."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


class AgentRegistry:
    def __init__(self, definitions: Iterable[AgentDefinition] = ()) -> None:
        self._agents: dict[str, AgentDefinition] = {}
        for definition in definitions:
            self.register(definition)

    def register(self, definition: AgentDefinition) -> None:
        if definition.name in self._agents:
            raise RegistryError([f"agent {definition.name!r} is registered twice"])
        self._agents[definition.name] = definition

    def replace(self, definition: AgentDefinition) -> None:
        if definition.name not in self._agents:
            raise RegistryError([f"cannot replace unknown agent {definition.name!r}"])
        self._agents[definition.name] = definition

    def get(self, name: str) -> AgentDefinition:
        try:
            return self._agents[name]
        except KeyError:
            raise RegistryError([f"unknown agent {name!r}"]) from None

    def __contains__(self, name: object) -> bool:
        return name in self._agents

    def __iter__(self) -> Iterator[AgentDefinition]:
        return iter(list(self._agents.values()))

    def __len__(self) -> int:
        return len(self._agents)

    @property
    def names(self) -> list[str]:
        return list(self._agents)

    def clear(self) -> None:
        self._agents.clear()

    def copy(self) -> AgentRegistry:
        """A copy whose entries can be replaced without touching this one."""
        return AgentRegistry(self)

    def check(self, *, prompt_ids: Collection[str] | None = None) -> None:
        """Raises RegistryError listing every problem at once: a sub-agent that is not registered (or
        not the registered definition of its name) or not run by the factory, two sub-agents writing
        one output key, two tools of one name, a factory-run agent without an offline implementation
        (or, given `prompt_ids`, a prompt), and every sub-agent cycle."""
        problems: list[str] = []
        for definition in self:
            problems.extend(self._problems(definition, prompt_ids))
        problems.extend(self._cycles())
        if problems:
            raise RegistryError(problems)

    def _problems(self, d: AgentDefinition, prompt_ids: Collection[str] | None) -> Iterator[str]:
        where = f"agent {d.name!r}"
        names = [tool.name for tool in d.tools]
        for name in sorted({n for n in names if names.count(n) > 1}):
            yield f"{where}: two tools named {name!r}"
        keys: set[str] = set()
        for sub in d.sub_agents:
            if sub.output_key in keys:
                yield f"{where}: two sub-agents write {sub.output_key!r}"
            keys.add(sub.output_key)
            if self._agents.get(sub.agent.name) is not sub.agent:
                yield f"{where}: sub-agent {sub.agent.name!r} is not the registered agent of that name"
            if not sub.agent.runs_in_factory:
                yield f"{where}: sub-agent {sub.agent.name!r} is not run by the factory"
        if d.runs_in_factory:
            if d.offline is None:
                yield f"{where}: no offline implementation"
            if prompt_ids is not None and d.prompt_id not in prompt_ids:
                yield f"{where}: no prompt {d.prompt_id!r}"

    def _cycles(self) -> list[str]:
        edges = {d.name: [s.agent.name for s in d.sub_agents] for d in self}
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
                "tools": [t.name for t in d.tools],
                "sub_agents": [s.agent.name for s in d.sub_agents],
                "callbacks": [c.name for c in d.callbacks],
                "validators": [getattr(v, "__name__", repr(v)) for v in d.validators],
                "context_types": [c.name for c in d.context],
            }
            for d in self
        }
