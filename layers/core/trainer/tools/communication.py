"""Communication and state-control tools: message_notify_user, message_ask_user, idle; displayables
(docs/architecture.md#tools)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationError

from trainer.domain.workout import STRICT_NUMBERS
from trainer.tools.artifacts import (
    ARTIFACT,
    ATTACHMENT,
    TIMER_ARTIFACT_TYPE,  # noqa: F401  (the timer tools name it from here)
    Attachment,
    TimerArtifact,
    WorkoutArtifact,
)
from trainer.tools.base import (
    AnyTool,
    DeliveredArtifact,
    EndsTurn,
    Question,
    Reply,
    StatusMessage,
    Tool,
    ToolContext,
    ToolResult,
)

ARTIFACTS_KEY = "artifacts"
DISPLAYABLES_KEY = "displayables"


class NotifyArgs(BaseModel):
    model_config = STRICT_NUMBERS
    message: str = Field(min_length=1, max_length=4000, description="What the user reads")
    artifact_id: str | None = Field(default=None, description="A workout or timers (art_...) to show with it")
    attachments: list[str] | None = Field(
        default=None, description="Workout ids (workout_1) or exercise ids (ex_...) to show"
    )
    final: bool = Field(default=False, description="Ends the turn (turn_end)")


def resolve_attachments(
    ids: list[str], displayables: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The displayables an attachment list names: (resolved items, unknown ids)."""
    workouts = displayables.get("workouts") or {}
    exercises = displayables.get("exercises") or {}
    resolved: list[dict[str, Any]] = []
    unknown: list[str] = []
    for item_id in ids:
        if item_id in workouts:
            workout = workouts[item_id]
            resolved.append(
                {
                    "type": "workout",
                    "id": item_id,
                    "data": {
                        "metadata": workout.get("metadata", {}),
                        "exercises": [
                            exercises[e] for e in workout.get("exercise_ids", []) if e in exercises
                        ],
                    },
                }
            )
        elif item_id in exercises:
            resolved.append({"type": "exercise", "id": item_id, "data": exercises[item_id]})
        else:
            unknown.append(item_id)
    return resolved, unknown


class NotifyResult(ToolResult):
    message: str
    artifact_id: str | None = None
    artifact: WorkoutArtifact | TimerArtifact | None = Field(default=None, discriminator="type")
    attachments: list[Attachment] | None = None
    warning: str | None = None
    final: bool = False

    def add_to_reply(self, reply: Reply) -> None:
        reply.messages.append(self.message)
        if self.artifact_id and isinstance(self.artifact, TimerArtifact):
            timers = [
                timer.model_dump(mode="json", exclude_none=True) for timer in self.artifact.payload.timers
            ]
            reply.add_timers(self.artifact_id, timers)

    def delivered_artifact(self) -> DeliveredArtifact | None:
        if self.artifact_id is None:
            return None
        artifact = self.artifact.model_dump(mode="json", exclude_none=True) if self.artifact else None
        return DeliveredArtifact(self.artifact_id, artifact)


class MessageNotifyUser(Tool[NotifyArgs, NotifyResult]):
    name = "message_notify_user"
    description = "Your reply to the user, in your own words (turn_end)."
    Args = NotifyArgs
    Result = NotifyResult
    status = None
    category = "confirmation"
    text_reply_argument = "message"
    artifact_argument = "artifact_id"

    async def execute(self, args: NotifyArgs, ctx: ToolContext) -> NotifyResult:
        result = NotifyResult(message=args.message, final=args.final)
        warnings: list[str] = []
        artifacts = await ctx.get_state(ARTIFACTS_KEY) or {}
        artifact_id = args.artifact_id
        if args.attachments:
            displayables = await ctx.get_state(DISPLAYABLES_KEY) or {}
            ids = [a for a in args.attachments if a not in artifacts]
            artifact_refs = [a for a in args.attachments if a in artifacts]
            resolved, unknown = resolve_attachments(ids, displayables)
            if resolved:
                result.attachments = [ATTACHMENT.validate_python(item) for item in resolved]
            if unknown:
                warnings.append(f"unknown attachment ids: {', '.join(unknown)}")
            if artifact_id is None:
                artifact_id = next(iter(artifact_refs), None) or _artifact_of_workouts(resolved, displayables)
        if artifact_id is not None:
            artifact = artifacts.get(artifact_id)
            if artifact is None:
                known = ", ".join(sorted(artifacts)) or "none"
                warnings.append(f"artifact {artifact_id} not found (known: {known}); message sent without it")
            else:
                try:
                    result.artifact = ARTIFACT.validate_python(artifact)
                    result.artifact_id = artifact_id
                except ValidationError:
                    warnings.append(
                        f"artifact {artifact_id} is not a workout or timers; message sent without it"
                    )
        if warnings:
            result.warning = "; ".join(warnings)
        return result

    def turn_ends_after(self, result: NotifyResult) -> EndsTurn | None:
        """A final message ends the turn, unless part of it went wrong (an unknown artifact or
        attachment): the model reads the warning and may put it right."""
        return "done" if result.final and result.warning is None else None

    def format(self, result: NotifyResult) -> str:
        if result.warning:
            return f"ok (warning: {result.warning})"
        return "ok"


def _artifact_of_workouts(resolved: list[dict[str, Any]], displayables: dict[str, Any]) -> str | None:
    workouts = displayables.get("workouts") or {}
    for item in resolved:
        if item["type"] == "workout":
            art = workouts.get(item["id"], {}).get("artifact_id")
            if art:
                return str(art)
    return None


class AskArgs(BaseModel):
    model_config = STRICT_NUMBERS
    question: str = Field(min_length=1, max_length=2000, description="What the user reads")
    options: list[str] | None = Field(default=None, max_length=8, description="Short answers to pick from")


class AskResult(ToolResult):
    question: str
    options: list[str]
    awaiting_response: bool = True

    def add_to_reply(self, reply: Reply) -> None:
        reply.question = Question(text=self.question, options=list(self.options))


class MessageAskUser(Tool[AskArgs, AskResult]):
    name = "message_ask_user"
    description = "Ask the user a question; the turn ends until they answer (turn_end)."
    Args = AskArgs
    Result = AskResult
    status = None
    category = "full"
    ends_turn = "awaiting_user"

    async def execute(self, args: AskArgs, ctx: ToolContext) -> AskResult:
        return AskResult(question=args.question, options=list(args.options or []))

    def format(self, result: AskResult) -> str:
        return "asked; waiting for the user's reply"


class IdleArgs(BaseModel):
    model_config = STRICT_NUMBERS
    reason: str = Field(max_length=500, description="Why, in a few words")


class IdleResult(ToolResult):
    idle: bool = True
    reason: str


class Idle(Tool[IdleArgs, IdleResult]):
    name = "idle"
    description = "End the turn after a message sent without final (turn_end)."
    Args = IdleArgs
    Result = IdleResult
    status: ClassVar[StatusMessage | None] = StatusMessage(start="Wrapping up...", done="All done")
    category = "confirmation"
    ends_turn = "done"

    async def execute(self, args: IdleArgs, ctx: ToolContext) -> IdleResult:
        return IdleResult(reason=args.reason)

    def format(self, result: IdleResult) -> str:
        return ""


def communication_tools() -> list[AnyTool]:
    return [MessageNotifyUser(), MessageAskUser(), Idle()]


TOOLS: list[AnyTool] = communication_tools()
