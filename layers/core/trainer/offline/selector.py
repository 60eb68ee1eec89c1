"""Keyword rules implementing the initializer's task-to-data mapping (seed 000 §3.2, seed 002 §5.5).
Used when no OpenAI key is set or the initializer fails; append-only like the model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from trainer.domain.exercise_search import exercise_question, normalise_name
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
STATS_DAYS_DEFAULT = 30
SCHEDULE_DAYS_DEFAULT = 7


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


WORKOUT = _rx(
    r"\b(workouts?|routine|session|exercises?|train(ing)?|lift(ing)?|leg day|arm day|upper body|lower body|"
    r"full body|hiit|cardio|circuit|wod|sweat|pump)\b"
)
WORKOUT_VERB = _rx(r"\b(give|generate|create|make|build|suggest|recommend|design|want|need|let'?s|can you)\b")
GOALS = _rx(r"\b(goals?|prioriti[sz]e|focus (more )?on|emphasi[sz]e)\b|%|\bpercent\b")
STATS = _rx(
    r"\b(stats?|statistics|progress|how many|how much|history|trends?|summary|breakdown|volume|"
    r"personal (best|record)|prs?|overview|report)\b"
)
SCHEDULE = _rx(
    r"\b(schedule|calendar|book|tomorrow|next week|upcoming|planned|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)\b"
)
PLAN = _rx(r"\b(plan|program(me)?|\d+[- ]week)\b")
MILESTONE = _rx(r"\b(milestone|5k|10k|half marathon|marathon|by (january|february|march|april|may|june|july|"
                r"august|september|october|november|december|summer|spring|winter|fall))\b")  # fmt: skip
PREFERENCE = _rx(r"\b(prefer(ence)?s?|hate|don'?t like|dislike|avoid|love|never|no more|skip|rather)\b")
INJURY = _rx(r"\b(injur(y|ed|ies)|hurts?|pain(ful)?|sore(ness)?|strain(ed)?|tweak(ed)?|recover(y|ing)?|"
             r"bother(ing|s)?|sprain(ed)?)\b")  # fmt: skip
TIMER = _rx(r"\b(timers?|intervals?|countdown|tabata|emom|stopwatch)\b")
LOCATION = _rx(r"\b(locations?|gyms?|at home|equipment|park|hotel|switch to)\b")
LOGGING = _rx(
    r"\b(i did|i've done|i have done|i finished|i completed|just did|just finished|log(ged)?|done with)\b"
)
MODIFY = _rx(
    r"\b(swap|replace|instead of|substitute|remove|heavier|lighter|more reps|fewer reps|less reps)\b"
)

PERIOD_DAYS: tuple[tuple[re.Pattern[str], int], ...] = (
    (_rx(r"\b(all[- ]time|ever|lifetime)\b"), 3650),
    (_rx(r"\b(year|annual|12 months)\b"), 365),
    (_rx(r"\b(quarter|3 months|three months)\b"), 90),
    (_rx(r"\bmonth\b"), 30),
    (_rx(r"\b(week|7 days)\b"), 7),
)
LAST_N_DAYS = _rx(r"\b(?:last|past)\s+(\d{1,4})\s+days?\b")
LAST_N_WEEKS = _rx(r"\b(?:last|past)\s+(\d{1,3})\s+weeks?\b")
AHEAD_PERIODS: tuple[tuple[re.Pattern[str], int], ...] = (
    (_rx(r"\bnext month\b|\bthis month\b"), 30),
    (_rx(r"\bnext week\b|\bnext \d+ days\b"), 14),
)


@dataclass
class _Need:
    source: str
    reason_text: str
    days_back: int | None = None
    days_ahead: int | None = None
    status: str | None = None
    query: str | None = None


@dataclass
class _Plan:
    needs: list[_Need] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)

    def add(self, task: str, *needs: _Need) -> None:
        self.tasks.append(task)
        for need in needs:
            known = next((n for n in self.needs if n.source == need.source and n.query == need.query), None)
            if known is None:
                self.needs.append(need)
            else:
                known.days_back = _max_opt(known.days_back, need.days_back)
                known.days_ahead = _max_opt(known.days_ahead, need.days_ahead)


def _max_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def stats_days_back(message: str) -> int:
    """Days of history a statistics request needs: week=7, month=30, quarter=90, year=365."""
    if m := LAST_N_DAYS.search(message):
        return max(1, int(m.group(1)))
    if m := LAST_N_WEEKS.search(message):
        return max(1, int(m.group(1))) * 7
    for pattern, days in PERIOD_DAYS:
        if pattern.search(message):
            return days
    return STATS_DAYS_DEFAULT


def schedule_days_ahead(message: str) -> int:
    for pattern, days in AHEAD_PERIODS:
        if pattern.search(message):
            return days
    return SCHEDULE_DAYS_DEFAULT


def _plan_for(message: str) -> _Plan:
    plan = _Plan()
    text = message.strip()
    wants_workout = bool(WORKOUT.search(text) and WORKOUT_VERB.search(text)) and not LOGGING.search(text)
    if wants_workout and not (STATS.search(text) or SCHEDULE.search(text)):
        plan.add(
            "workout generation",
            _Need("category_goals", "goal targets and distribution debt for balance"),
            _Need("muscle_goals", "muscle targets and distribution debt"),
            _Need("active_preferences", "restrictions and likes"),
            _Need("workout_history", "recent training for progression", days_back=HISTORY_DAYS_DEFAULT),
            _Need("progression_targets", "computed next loads and reps"),
            _Need("current_location", "available equipment"),
        )
    if GOALS.search(text) and not MILESTONE.search(text):
        plan.add(
            "goal setting",
            _Need("category_goals", "current category goals and distribution"),
            _Need("muscle_goals", "current muscle goals and distribution"),
        )
    if STATS.search(text):
        plan.add(
            "statistics",
            _Need("workout_history", "history for the requested period", days_back=stats_days_back(text)),
            _Need("category_goals", "goal distribution for comparison"),
        )
    if SCHEDULE.search(text) or PLAN.search(text) or MILESTONE.search(text):
        needs = [_Need("scheduled_workouts", "upcoming workouts", days_ahead=schedule_days_ahead(text))]
        if PLAN.search(text):
            needs.append(_Need("workout_plans", "multi-week plans", status="active"))
        if MILESTONE.search(text):
            needs.append(_Need("milestone_goals", "specific achievement goals", status="active"))
        plan.add("scheduling", *needs)
    if INJURY.search(text):
        plan.add(
            "injury/recovery",
            _Need("active_preferences", "existing injury preferences"),
            _Need("workout_history", "recent load on the affected area", days_back=7),
        )
    elif PREFERENCE.search(text):
        plan.add("preferences", _Need("active_preferences", "current preferences"))
    if TIMER.search(text) or LOGGING.search(text) or MODIFY.search(text):
        plan.add("current workout", _Need("current_workout_session", "the workout in progress"))
    if LOCATION.search(text):
        plan.add("locations", _Need("all_locations", "locations and their equipment"))
    if question := exercise_question(text):
        kind, name = question
        task = "exercise alternatives" if kind == "alternatives" else "exercise question"
        plan.add(task, _Need("exercise_info", f"how to do {name} and what can replace it", query=name))
    return plan


SOURCE_DEFAULT_PARAMS: dict[str, dict[str, int]] = {
    "workout_history": {"days_back": HISTORY_DAYS_DEFAULT},
    "scheduled_workouts": {"days_ahead": SCHEDULE_DAYS_DEFAULT},
}
"""What a fetch without parameters covers (seed 000 data source registry)."""


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
