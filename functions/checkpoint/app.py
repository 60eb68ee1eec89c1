"""EventBridge TurnCompleted -> checkpoint a long session (trainer.jobs.checkpoint)."""

from typing import Any

from trainer.jobs.checkpoint import CheckpointDeps, handle_turn_completed
from trainer.settings import get_settings

deps = CheckpointDeps.from_settings(get_settings())


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_turn_completed(event, context, deps)
