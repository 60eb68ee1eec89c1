"""What every tool is (docs/architecture.md#tools): a pydantic argument model, a pydantic result model, a
status message, an execute function, a formatter for the observation the model reads, and the words the
user reads (the result's `say`). The one tool type of every agent: the chat agent's tools and the
registry agents' (the program agents' exercise_options) run through one executor
(trainer.agents.tools.ToolSet). How to add one: docs/adding-a-tool.md.

A tool is generic in its argument and result models, so mypy checks both the arguments a caller
builds (`Tool.Args(...)`) and the fields a caller reads from a result. What the agent loop needs to
know about a tool is a property of the tool (`ends_turn`, `turn_ends_after`, `can_finish`) or of its
result (`add_to_reply`, `delivered_artifact`, `say`): the loop never names a tool.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from trainer.services.errors import UserDataError
from trainer.store.models import Event, EventType
from trainer.tools.wording import DONE

if TYPE_CHECKING:
    from trainer.domain.workout import Workout
    from trainer.domain.workout_checks import WorkoutReview
    from trainer.frames import Frame
    from trainer.services.user_data import UserData
    from trainer.store.db import Database
    from trainer.store.ports import SessionStore
    from trainer.tools.wording import ReplyContext

ResultCategory = Literal["confirmation", "summary", "full"]
EndsTurn = Literal["done", "awaiting_user"]
FINAL_ARGUMENT = "final"
"""The argument a `can_finish` tool takes besides its own: `true` ends the turn when the call succeeds."""
NOTE_ARGUMENT = "note"
"""The other argument a `can_finish` tool takes besides its own: with `final: true`, the model's own
coaching words, which the closing reply puts after what the results say (trainer.agents.closing)."""
MAX_NOTE_CHARS = 300
MAX_LISTED_ERRORS = 8
DEFAULT_PRIORITY = 100


class ToolError(Exception):
    """An expected failure (not found, bad state, bad input): becomes an error observation. A
    service's UserDataError raised by a tool's `execute` reaches its caller as a ToolError."""


class StatusMessage(BaseModel):
    start: str
    done: str


def validation_summary(error: ValidationError, *, prefix: str = "") -> str:
    """'loc: msg; loc: msg' — compact enough for the model to fix its call."""
    parts: list[str] = []
    for item in error.errors(include_url=False)[:MAX_LISTED_ERRORS]:
        loc = ".".join(str(p) for p in item.get("loc", ()))
        msg = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        where = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        parts.append(f"{where}: {msg}" if where else msg)
    extra = error.error_count() - MAX_LISTED_ERRORS
    if extra > 0:
        parts.append(f"(+{extra} more)")
    return "; ".join(parts)


class Question(BaseModel):
    text: str
    options: list[str] = []


@dataclass
class Reply:
    """What the user sees of a turn (its ClientResponse), assembled from the results of
    the turn's successful tool calls in order."""

    messages: list[str] = field(default_factory=list)
    question: Question | None = None
    workout_changed: bool = False
    timers: list[dict[str, Any]] = field(default_factory=list)
    """The timers (docs/architecture.md#tools) of every timer artifact the turn built or delivered,
    once each, in order."""
    timer_artifacts: set[str] = field(default_factory=set)

    def add_timers(self, artifact_id: str, timers: list[dict[str, Any]]) -> None:
        if artifact_id in self.timer_artifacts:
            return
        self.timer_artifacts.add(artifact_id)
        self.timers.extend(timers)


@dataclass(frozen=True)
class DeliveredArtifact:
    """The artifact a result refers to (a created or changed workout) or carries to the client (a
    delivered one, with its payload): the SSE tool-result frame shows it."""

    artifact_id: str
    artifact: dict[str, Any] | None


class ToolResult(BaseModel):
    """A tool's successful outcome. Stored (as JSON) in the `tool_result` event and sent in the SSE
    tool-result frame; unknown keys of older events are ignored when one is read back."""

    model_config = ConfigDict(extra="ignore")

    success: Literal[True] = True
    needs_user_context: ClassVar[bool] = False
    """Whether `say` reads today, the user's time zone or their current location (`ReplyContext.today`,
    `.zone`, `.window`, `.location`): the closing reply reads the user's settings only when a result
    needs them."""

    def add_to_reply(self, reply: Reply) -> None:
        """Adds what the user should see of this result (default: nothing)."""

    def say(self, ctx: ReplyContext, arguments: Mapping[str, Any]) -> str:
        """What this result tells the user when its call closes a turn (a call marked final; the offline
        coach's last message): one or a few sentences in words a user reads (no ids, field names or
        internal labels), with the result's own numbers. `ctx` is the user's message and where they are
        in time, `arguments` the call's. The shared formatting is in trainer.tools.wording."""
        return DONE

    def delivered_artifact(self) -> DeliveredArtifact | None:
        return None

    def delivery_note(self) -> str | None:
        """That the user has not seen what this result made yet (its artifact, `not_shown`), added to the
        observation unless the call was final (its closing reply delivers it). A fact, never an order:
        how a turn ends and delivers is the system prompt's <turn_end>, stated once."""
        return None

    def unfinished(self) -> str | None:
        """Why a call marked final must not end the turn yet (the model reads it and goes on), or
        None (default: a successful call can finish)."""
        return None


def not_shown(artifact_id: str) -> str:
    """The one wording of an artifact a call made that the user has not seen yet."""
    return f"artifact_id={artifact_id} is not shown to the user yet."


class ToolFailure(BaseModel):
    """A failed call: unknown tool, invalid arguments, an expected failure or a crash."""

    model_config = ConfigDict(extra="ignore")

    success: Literal[False] = False
    error: str


class WorkoutCoach(Protocol):
    """Coaching services the workout tools use, provided by the chat turn (trainer.chat.coaching)."""

    async def check_workout(self, workout: Workout, ctx: ToolContext) -> list[str]:
        """Problems with the workout for this user right now (reported, never blocking)."""
        ...

    async def review_workout(self, workout: Workout, ctx: ToolContext) -> WorkoutReview:
        """The problems, with the progression target of each exercise (in workout order)."""
        ...

    async def after_generation(self, ctx: ToolContext) -> None:
        """Runs once a workout was generated (consumes one-shot preferences)."""
        ...


async def _no_emit(_: Frame) -> None:
    return None


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class ToolContext:
    """A tool's typed dependencies for one call (pydantic-ai's `RunContext[Deps]`). The user's domain
    data goes through `user_data` (the services on `db`, scoped by `user_id`); per-session state goes
    through the session store. The chat turn calls its tools with its session; a registry agent
    (trainer.agents.run_agent) calls them with its typed input (`agent_input`) and no session."""

    user_id: str
    session_id: str = ""
    store: SessionStore | None = None
    db: Database | None = None
    emit: Callable[[Frame], Awaitable[None]] = _no_emit
    now: Callable[[], datetime] = _utcnow
    user_message: str = ""
    """The user's message that started the turn."""
    coach: WorkoutCoach | None = None
    programs: object | None = None
    """The training-plan pipeline's dependencies (trainer.programs.pipeline.ProgramDeps, which the plan
    tools of trainer.programs.tools read back); None without a database. Typed `object` here: the
    programs package sits above the tools."""
    agent_input: object = None
    """The typed input of the registry agent whose run calls the tool; None in the chat turn."""
    appended: list[Event] = field(default_factory=list)
    """Events this call appended (artifacts, knowledge): the loop keeps them in the turn's memory."""

    def session_store(self) -> SessionStore:
        """The chat session's store; a ToolError in a run without a session."""
        if self.store is None:
            raise ToolError("this tool needs a chat session")
        return self.store

    async def get_state(self, key: str) -> dict[str, Any] | None:
        return await self.session_store().get_state(self.session_id, key)

    async def put_state(self, key: str, value: dict[str, Any]) -> None:
        await self.session_store().put_state(self.session_id, key, value)

    async def delete_state(self, key: str) -> None:
        await self.session_store().delete_state(self.session_id, key)

    async def append_event(self, event_type: EventType, data: dict[str, Any]) -> Event:
        event = await self.session_store().append_event(self.session_id, event_type, data)
        self.appended.append(event)
        return event

    def require_db(self) -> Database:
        if self.db is None:
            raise ToolError("the domain database is not available")
        return self.db

    @property
    def user_data(self) -> UserData:
        """The user's data (trainer.services.user_data); ToolError without a database."""
        from trainer.services.user_data import UserDataService

        return UserDataService(self.require_db()).for_user(self.user_id)


class Tool[ArgsT: BaseModel, ResultT: ToolResult](ABC):
    """A tool the model can call. Subclasses set the class attributes and implement `execute` and
    `format`; `Args` and `Result` are the models the type parameters name."""

    name: ClassVar[str]
    description: ClassVar[str]
    """What the tool does, in a sentence or two. Every call of every user reads it
    (tests/unit/chat/test_static_prompt_budget.py holds the total), so: no list of the arguments (the
    schema carries them), no examples unless a format is not obvious, no rule the system prompt
    already states: when to use it rather than another tool is the prompt's <routing>, how a turn
    ends its <turn_end> (tests/unit/agents/test_turn_end_protocol.py). Every argument has a
    `Field(description=...)` of a few words, and its limits in Field constraints (validated; sent to
    the model when they shape the answer); an optional argument is `X | None = None` (sent as X:
    trainer.agents.tools.model_facing_schema)."""
    Args: type[ArgsT]
    Result: type[ResultT]
    status: ClassVar[StatusMessage | None] = None
    category: ClassVar[ResultCategory] = "summary"
    ends_turn: ClassVar[EndsTurn | None] = None
    """Set on tools after which the turn stops (idle; a question for the user)."""
    priority: ClassVar[int] = DEFAULT_PRIORITY
    """Lower runs first when one answer asks for several calls (registry agents' parallel calls)."""
    can_finish: ClassVar[bool] = False
    """Set on tools whose result says in full what the user asked for (an action done, numbers looked
    up): the model may pass `final: true` with the call, and a `note` (FINAL_ARGUMENT, NOTE_ARGUMENT,
    which trainer.agents.tools adds to the schema the model sees), and when the call succeeds the turn
    ends with a reply the code writes from the turn's results (trainer.agents.closing.ClosingReplies),
    the model's note after it, delivering the workout or timers it made, instead of another model call
    to say so. Left unset on tools whose result needs the model's judgement in words (a readiness call,
    a planned day, a plan's overview, progress toward a milestone, missed sessions, a profile update,
    an injury): the model reads the result and writes the reply."""
    text_reply_argument: ClassVar[str | None] = None
    """Set on the tool that delivers a reply: a text-only answer runs as its call, the text as this
    argument (models that may not be forced to call a tool answer in text)."""
    artifact_argument: ClassVar[str | None] = None
    """The reply tool's argument naming an artifact to deliver (a closing reply's workout or timers)."""
    shared_arguments: ClassVar[Mapping[str, str]] = {}
    """Arguments whose schema another tool of the agent sends in full (argument -> that tool's name):
    the model is sent this argument's type and description, naming the tool, and the validator checks
    it as in full (trainer.agents.tools.shared_definitions). The exercise schema is sent once."""
    fields_as_in: ClassVar[str | None] = None
    """Another tool of the agent whose arguments this one also takes (a correction takes the fields of
    the log it corrects): the model is sent only this tool's own arguments, the tool's description
    names the other for the rest, and the validator checks every field (shared_definitions)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("execute")
        if own is not None:
            cls.execute = _user_data_errors_as_tool_errors(own)  # type: ignore[method-assign,assignment]

    @abstractmethod
    async def execute(self, args: ArgsT, ctx: ToolContext) -> ResultT:
        """Raise ToolError for expected failures."""

    @abstractmethod
    def format(self, result: ResultT) -> str:
        """The observation body the model sees (without the outer result tag)."""

    def turn_ends_after(self, result: ResultT) -> EndsTurn | None:
        """Whether this successful call ends the turn: the tool's `ends_turn`, unless the call itself
        says so (a message the model marked final)."""
        return self.ends_turn

    def input_schema(self) -> dict[str, Any]:
        return self.Args.model_json_schema()

    def call(self, args: ArgsT) -> ToolInvocation:
        """A typed request to call this tool (what a deterministic policy returns)."""
        return ToolInvocation(self.name, args)

    def parse_result(self, data: Any) -> ResultT | ToolFailure:
        """A stored result (an event's `result`) read back as this tool's models."""
        if isinstance(data, dict) and data.get("success") is False:
            return ToolFailure.model_validate(data)
        return self.Result.model_validate(data)


def _user_data_errors_as_tool_errors[ToolT: Tool[Any, Any], ArgsT: BaseModel, ResultT: ToolResult](
    execute: Callable[[ToolT, ArgsT, ToolContext], Awaitable[ResultT]],
) -> Callable[[ToolT, ArgsT, ToolContext], Coroutine[Any, Any, ResultT]]:
    """A tool's `execute` whose UserDataError (bad input, a state the call cannot apply to, with a
    message fit for the model) is raised as ToolError, the expected failure of a tool."""

    @functools.wraps(execute)
    async def run(tool: ToolT, args: ArgsT, ctx: ToolContext) -> ResultT:
        try:
            return await execute(tool, args, ctx)
        except UserDataError as exc:
            raise ToolError(str(exc)) from None

    return run


@dataclass(frozen=True)
class ToolInvocation:
    """A tool name with its typed arguments."""

    name: str
    args: BaseModel
    final: bool = False
    """The call completes the request: `final: true` goes with its arguments (`Tool.can_finish`)."""
    note: str | None = None
    """With `final`: the coaching note that goes with it (NOTE_ARGUMENT)."""

    def arguments(self) -> dict[str, Any]:
        """The arguments as the model would send them: JSON, with the fields left unset or None out."""
        arguments = self.args.model_dump(mode="json", exclude_unset=True, exclude_none=True)
        if not self.final:
            return arguments
        return {**arguments, FINAL_ARGUMENT: True, **({NOTE_ARGUMENT: self.note} if self.note else {})}


AnyTool = Tool[Any, Any]
