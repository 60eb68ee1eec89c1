"""EventBridge TurnCompleted -> session and daily cost totals, once per turn (trainer.jobs.costs)."""

from typing import Any

from trainer.jobs.costs import CostDeps, handle_turn_completed
from trainer.settings import get_settings

deps = CostDeps.from_settings(get_settings())


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle_turn_completed(event, context, deps)
