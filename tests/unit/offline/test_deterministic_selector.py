"""The keyword task-to-data mapping of the initializer's deterministic rules, append-only."""

from __future__ import annotations

from trainer.offline.selector import KNOWN_SOURCES, DeterministicKnowledgeSelector, decide


def _picked(message: str, existing: list[dict] | None = None) -> dict[str, dict]:
    selection = decide(message, existing or [])
    return {s.source: s.model_dump() for s in selection.append_knowledge}


def test_workout_request_fetches_goals_preferences_history_and_location() -> None:
    picked = _picked("Give me a quick upper body workout")
    assert set(picked) == {
        "category_goals",
        "muscle_goals",
        "active_preferences",
        "workout_history",
        "progression_targets",
        "current_location",
    }
    assert picked["workout_history"]["days_back"] == 14
    assert all(p["reason"] == "not_in_context" for p in picked.values())


def test_stats_periods_map_to_days_back() -> None:
    assert _picked("show my stats for this week")["workout_history"]["days_back"] == 7
    assert _picked("How many workouts this month?")["workout_history"]["days_back"] == 30
    assert _picked("progress over the last quarter")["workout_history"]["days_back"] == 90
    assert _picked("my statistics for the year")["workout_history"]["days_back"] == 365
    assert _picked("progress in the last 45 days")["workout_history"]["days_back"] == 45
    assert "category_goals" in _picked("show my progress")


def test_existing_sources_with_enough_scope_are_not_fetched_again() -> None:
    existing = [
        {"source": "category_goals", "params": {}},
        {"source": "muscle_goals", "params": {}},
        {"source": "active_preferences", "params": {}},
        {"source": "workout_history", "params": {"days_back": 14}},
        {"source": "progression_targets", "params": {}},
        {"source": "current_location", "params": {}},
    ]
    selection = decide("Give me a leg workout", existing)
    assert selection.append_knowledge == []
    assert "workout_history" in selection.use_existing


def test_smaller_history_range_is_expanded() -> None:
    existing = [{"source": "workout_history", "params": {"days_back": 14}}, {"source": "category_goals"}]
    picked = _picked("How many workouts did I do this month?", existing)
    assert picked == {
        "workout_history": {
            "source": "workout_history",
            "reason": "expand_range",
            "days_back": 30,
            "days_ahead": None,
            "status": None,
            "query": None,
        }
    }


def test_history_without_params_counts_as_the_default_fourteen_days() -> None:
    existing = [{"source": "workout_history", "params": {}}]
    assert "workout_history" not in _picked("how am I doing this week", existing)
    assert _picked("stats this month", existing)["workout_history"]["reason"] == "expand_range"


def test_scheduling_preferences_timers_injury_locations() -> None:
    assert _picked("schedule a run next week")["scheduled_workouts"]["days_ahead"] == 14
    assert "workout_plans" in _picked("make me a 4-week plan")
    assert "milestone_goals" in _picked("I want to run a 5k by June")
    assert set(_picked("I hate burpees")) == {"active_preferences"}
    assert set(_picked("start a tabata timer")) == {"current_workout_session"}
    injury = _picked("my knee hurts")
    assert set(injury) == {"active_preferences", "workout_history"}
    assert injury["workout_history"]["days_back"] == 7
    assert set(_picked("what equipment is at my gyms?")) == {"all_locations"}


def test_general_conversation_needs_nothing() -> None:
    selection = decide("thanks, that's great", [])
    assert selection.append_knowledge == []
    assert "General" in selection.reasoning


def test_every_selected_source_is_known() -> None:
    for message in (
        "Give me a workout",
        "stats this year",
        "schedule tomorrow",
        "swap the squat",
        "I'm at the gym",
    ):
        assert set(_picked(message)) <= set(KNOWN_SOURCES)


async def test_selector_reports_deterministic_provider() -> None:
    result = await DeterministicKnowledgeSelector().select("Give me a workout", [])
    assert result.provider == "deterministic"
    assert result.usage is None
    assert result.selection.append_knowledge
