"""Distinct users as the real sources render them, without a database: the `<user_data>` block
through `render_user_data` and knowledge through the source formatters. For tests and benches whose
requests should differ per user in content and size as production ones do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from trainer.domain.distribution import DistributionRow
from trainer.sources import formatters as fmt
from trainer.sources.user_data import render_user_data

from trainer_dev.testing.agent_harness import FakeSourceResult
from trainer_dev.testing.memory_store import InMemorySessionStore

if TYPE_CHECKING:
    from trainer.chat.turn import ChatRunner
    from trainer.providers.ports import AgentModel
    from trainer.settings import Settings


@dataclass
class Trainee:
    user_id: str
    profile: dict[str, Any]
    settings: dict[str, Any]
    locations: list[dict[str, Any]]
    category_goals: list[dict[str, Any]]
    muscle_goals: list[dict[str, Any]]
    preferences: list[dict[str, Any]]
    history: list[dict[str, Any]]
    today: date = date(2025, 1, 11)
    current_workout: dict[str, Any] | None = None
    fetched: list[str] = field(default_factory=list)

    async def user_data(self, _user_id: str = "") -> str:
        """The `<user_data>` block (a ChatDeps.user_data loader)."""
        return render_user_data(self.profile, self.settings, self.locations, self.today)

    async def __call__(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> list[FakeSourceResult]:
        """A source fetcher for this user (the ChatDeps.sources of their user id)."""
        self.fetched.extend(source for source, _ in requests)
        return [FakeSourceResult(s, dict(p), {"ok": True}, self.knowledge(s, p)) for s, p in requests]

    def knowledge(self, source: str, params: Mapping[str, Any]) -> str:
        """The formatted text the real source would give for this user."""
        current = next((loc for loc in self.locations if loc.get("is_current")), None)
        match source:
            case "category_goals":
                return fmt.format_category_goals(self._goals(self.category_goals, "category"))
            case "muscle_goals":
                return fmt.format_muscle_goals(self._goals(self.muscle_goals, "muscle"))
            case "active_preferences":
                return fmt.format_preferences(self.preferences, self.settings["timezone"])
            case "workout_history":
                days_back = params.get("days_back") or 14
                data = {"rows": self.history, "settings": self.settings, "params": {"days_back": days_back}}
                return fmt.format_workout_history(data)
            case "current_location":
                return fmt.format_current_location(current)
            case "all_locations":
                return fmt.format_all_locations(self.locations)
            case "user_settings":
                return fmt.format_user_settings(self.settings)
            case "current_workout_session":
                return fmt.format_current_workout(self.current_workout)
        return f"<{source}>Nothing recorded</{source}>"

    def _goals(self, goals: list[dict[str, Any]], key: str) -> dict[str, Any]:
        total = sum(g["weight"] for g in goals) or 1.0
        rows = [
            DistributionRow(g[key], g["weight"] / total, g["actual"], g["weight"] / total - g["actual"])
            for g in goals
        ]
        return {"goals": goals, "distribution": rows, "logged_count": len(self.history)}


def _history(
    names: Sequence[tuple[str, list[int], float]], unit: str, start: datetime
) -> list[dict[str, Any]]:
    rows = []
    for day in range(6):
        for number, (name, reps, load) in enumerate(names):
            rows.append(
                {
                    "id": f"log_{day}_{number}",
                    "exercise_name": name,
                    "exercise_type": "reps",
                    "performed_at": start - timedelta(days=2 * day, minutes=5 * number),
                    "sets": len(reps),
                    "reps": reps,
                    "load_each": [load + 2.5 * (5 - day)] * len(reps),
                    "load_unit": unit,
                    "rpe": 7 + number % 3,
                }
            )
    return rows


def ana() -> Trainee:
    """A metric strength trainee with a home gym and a knee preference."""
    settings = {"weight_unit": "kg", "distance_unit": "km", "timezone": "Europe/Berlin", "preferred_days": []}
    return Trainee(
        user_id="11111111-1111-4111-8111-111111111111",
        profile={
            "display_name": "Ana",
            "sex": "female",
            "birth_date": date(1991, 4, 2),
            "height_cm": 168,
            "weight_kg": 61.5,
            "body_fat_pct": 22,
        },
        settings=settings,
        locations=[
            {
                "id": "loc_home_ana",
                "name": "Home gym",
                "description": "Garage",
                "is_current": True,
                "equipment": [
                    {"name": "Dumbbells", "type": "free_weights", "weights": [5, 10, 15], "unit": "kg"},
                    {"name": "Bench", "type": "bench"},
                    {"name": "Pull-up Bar"},
                ],
            },
            {"id": "loc_gym_ana", "name": "City gym", "equipment": [{"name": "Barbell"}, {"name": "Rack"}]},
        ],
        category_goals=[
            {"category": "Strength", "weight": 0.6, "description": "Heavy compounds", "actual": 0.5},
            {"category": "Hypertrophy", "weight": 0.4, "description": "8-12 reps", "actual": 0.5},
        ],
        muscle_goals=[
            {"muscle": "Chest", "weight": 0.3, "actual": 0.2},
            {"muscle": "Back", "weight": 0.4, "actual": 0.5},
            {"muscle": "Quadriceps", "weight": 0.3, "actual": 0.3},
        ],
        preferences=[
            {
                "id": "pref_knee",
                "type": "injury",
                "description": "Left knee is sore",
                "guidance": "No jumping or deep knee flexion",
                "expires_at": None,
                "delete_after_use": False,
            },
        ],
        history=_history(
            [
                ("Bench Press", [8, 8, 6], 40.0),
                ("Bent-over Row", [10, 10, 10], 35.0),
                ("Goblet Squat", [12, 12], 16.0),
            ],
            "kg",
            datetime(2025, 1, 10, 18, 0, tzinfo=UTC),
        ),
    )


def ben() -> Trainee:
    """An imperial endurance trainee on the road, with other goals, preferences and history."""
    settings = {
        "weight_unit": "lb",
        "distance_unit": "mi",
        "timezone": "America/Chicago",
        "preferred_days": ["Tuesday", "Saturday"],
    }
    return Trainee(
        user_id="22222222-2222-4222-8222-222222222222",
        today=date(2025, 3, 2),
        profile={
            "display_name": "Ben",
            "sex": "male",
            "birth_date": date(1979, 11, 23),
            "height_cm": 183,
            "weight_kg": 88.0,
        },
        settings=settings,
        locations=[
            {"id": "loc_hotel_ben", "name": "Hotel room", "is_current": True, "equipment": []},
        ],
        category_goals=[
            {"category": "Cardio", "weight": 0.5, "description": "Half marathon in May", "actual": 0.7},
            {"category": "Mobility", "weight": 0.2, "actual": 0.1},
            {"category": "Strength", "weight": 0.3, "actual": 0.2},
        ],
        muscle_goals=[
            {"muscle": "Hamstrings", "weight": 0.5, "actual": 0.4},
            {"muscle": "Glutes", "weight": 0.5, "actual": 0.6},
        ],
        preferences=[
            {
                "id": "pref_quiet",
                "type": "environment",
                "description": "Quiet exercises only (hotel)",
                "guidance": "No jumping",
                "expires_at": datetime(2025, 3, 9, tzinfo=UTC),
                "delete_after_use": False,
            },
            {
                "id": "pref_short",
                "type": "time",
                "description": "20 minutes at most",
                "guidance": "Keep it short",
                "expires_at": None,
                "delete_after_use": True,
            },
        ],
        history=_history(
            [("Walking Lunge", [12, 12], 0.0), ("Glute Bridge", [15, 15, 15], 0.0)],
            "lb",
            datetime(2025, 3, 1, 7, 30, tzinfo=UTC),
        ),
    )


def another(trainee: Trainee, number: int) -> Trainee:
    """A further user: `trainee`'s data under another id and name."""
    profile = {**trainee.profile, "display_name": f"{trainee.profile['display_name']} {number}"}
    return replace(trainee, user_id=f"{number:08d}-0000-4000-8000-{number:012d}", profile=profile, fetched=[])


def trainee_loop(
    model: AgentModel,
    trainees: Sequence[Trainee],
    settings: Settings,
    *,
    store: InMemorySessionStore | None = None,
    **deps: Any,
) -> ChatRunner:
    """The real chat turn with the chat agent's production tools and prompt, the trainees' user data
    and knowledge, `model` for every call; `deps` adds or replaces ChatDeps fields (hooks, clock...)."""
    from trainer.agents.closing import ResultReplies
    from trainer.agents.prompts import PromptStore
    from trainer.chat.agent import CHAT
    from trainer.chat.turn import ChatDeps, ChatRunner
    from trainer.container import FixedModel
    from trainer.offline.selector import DeterministicKnowledgeSelector

    by_id = {t.user_id: t for t in trainees}
    fields: dict[str, Any] = {
        "agent": CHAT,
        "prompts": PromptStore(None),
        "store": store if store is not None else InMemorySessionStore(),
        "models": FixedModel(model),
        "selector": DeterministicKnowledgeSelector(),
        "user_data": lambda user_id: by_id[user_id].user_data(),
        "sources": lambda user_id: by_id[user_id],
        "settings": settings,
        "closing_replies": ResultReplies(None),
    }
    return ChatRunner(ChatDeps(**{**fields, **deps}))
