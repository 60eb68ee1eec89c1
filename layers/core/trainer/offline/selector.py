"""The initializer's deterministic rules: the data of every topic the intent table
(trainer.offline.intents) finds in a message, less what the context already holds. Used when no OpenAI
key is set or the initializer fails; append-only like the model (see
docs/architecture.md#knowledge-the-initializer-and-the-data-sources)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from trainer.domain.exercise_search import normalise_name
from trainer.offline.intents import Need, topics_of
from trainer.providers.ports import InitializerResponse, InitializerResult, KnowledgeSelection

KNOWN_SOURCES: tuple[str, ...] = (
    "user_profile",
    "user_settings",
    "all_locations",
    "current_location",
    "category_goals",
    "muscle_goals",
    "active_preferences",
    "workout_history",
    "exercise_distribution",
    "current_workout_session",
    "scheduled_workouts",
    "workout_plans",
    "milestone_goals",
    "exercise_info",
    "progression_targets",
)

Reason = Literal["not_in_context", "expand_range", "refresh_state"]

HISTORY_DAYS_DEFAULT = 14
SCHEDULE_DAYS_DEFAULT = 7


@dataclass
class _Plan:
    needs: list[Need] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)

    def add(self, task: str, *needs: Need) -> None:
        self.tasks.append(task)
        for need in needs:
            index = next(
                (i for i, n in enumerate(self.needs) if n.source == need.source and n.query == need.query),
                None,
            )
            if index is None:
                self.needs.append(need)
            else:
                known = self.needs[index]
                self.needs[index] = replace(
                    known,
                    days_back=_max_opt(known.days_back, need.days_back),
                    days_ahead=_max_opt(known.days_ahead, need.days_ahead),
                )


def _max_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _plan_for(message: str) -> _Plan:
    """The data of every topic the message touches (the intent table's topics)."""
    plan = _Plan()
    for topic in topics_of(message):
        plan.add(topic.task, *topic.needs(message.strip()))
    return plan


SOURCE_DEFAULT_PARAMS: dict[str, dict[str, int]] = {
    "workout_history": {"days_back": HISTORY_DAYS_DEFAULT},
    "scheduled_workouts": {"days_ahead": SCHEDULE_DAYS_DEFAULT},
}
"""The window a fetch of these sources covers when the message names none."""


def _existing_queries(existing: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(source, normalised query) of the knowledge already loaded for a query (exercise_info)."""
    found = set()
    for ref in existing:
        params = ref.get("params")
        query = params.get("query") if isinstance(params, dict) else None
        if isinstance(query, str):
            found.add((str(ref.get("source", "")), normalise_name(query)))
    return found


def _existing_scope(existing: list[dict[str, Any]]) -> dict[str, dict[str, int | None]]:
    scope: dict[str, dict[str, int | None]] = {}
    for ref in existing:
        source = str(ref.get("source", ""))
        params = {**SOURCE_DEFAULT_PARAMS.get(source, {}), **(ref.get("params") or {})}
        entry = scope.setdefault(source, {"days_back": None, "days_ahead": None})
        for key in ("days_back", "days_ahead"):
            value = params.get(key) if isinstance(params, dict) else None
            if isinstance(value, int):
                entry[key] = _max_opt(entry[key], value)
    return scope


def decide(message: str, existing: list[dict[str, Any]]) -> InitializerResponse:
    """Pure rules: which sources to append for `message` given what is already in context."""
    plan = _plan_for(message)
    scope = _existing_scope(existing)
    queried = _existing_queries(existing)
    append: list[KnowledgeSelection] = []
    use_existing: list[str] = []
    for need in plan.needs:
        have = scope.get(need.source)
        reason: Reason = "not_in_context"
        if need.query is not None:
            if (need.source, normalise_name(need.query)) in queried:
                use_existing.append(need.source)
                continue
        elif have is not None:
            short_back = need.days_back is not None and (have["days_back"] or 0) < need.days_back
            short_ahead = need.days_ahead is not None and (have["days_ahead"] or 0) < need.days_ahead
            if not (short_back or short_ahead):
                use_existing.append(need.source)
                continue
            reason = "expand_range"
        append.append(
            KnowledgeSelection(
                source=need.source,
                reason=reason,
                days_back=need.days_back,
                days_ahead=need.days_ahead,
                status=need.status,
                query=need.query,
            )
        )
    if not plan.tasks:
        reasoning = "General conversation: no extra data needed."
    elif append:
        reasoning = f"Task: {', '.join(plan.tasks)}. Adding " + "; ".join(
            f"{s.source} ({s.reason})" for s in append
        )
    else:
        reasoning = f"Task: {', '.join(plan.tasks)}. Everything needed is already in context."
    return InitializerResponse(reasoning=reasoning, append_knowledge=append, use_existing=use_existing)


class DeterministicKnowledgeSelector:
    """KnowledgeSelector on keyword rules; no network, no cost."""

    async def select(self, message: str, existing: list[dict[str, Any]]) -> InitializerResult:
        return InitializerResult(
            selection=decide(message, existing), usage=None, model="rules", provider="deterministic"
        )
