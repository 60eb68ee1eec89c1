from datetime import UTC, datetime, timedelta

from trainer.domain.recovery import recovering_muscles

NOW = datetime(2025, 3, 10, 12, tzinfo=UTC)


def _row(hours_ago: float, muscles: list[tuple[str, float]]) -> dict:
    return {
        "performed_at": (NOW - timedelta(hours=hours_ago)).isoformat(),
        "muscles": [{"muscle": m, "share": s} for m, s in muscles],
    }


def test_large_muscles_need_48h_small_24h() -> None:
    history = [_row(30, [("Chest", 0.7), ("Triceps", 0.3)])]
    ready = recovering_muscles(history, NOW)
    assert ready == {"Chest": NOW + timedelta(hours=18)}


def test_small_share_does_not_count_as_worked() -> None:
    history = [_row(2, [("Chest", 0.85), ("Shoulders", 0.15)])]
    assert set(recovering_muscles(history, NOW)) == {"Chest"}


def test_latest_session_wins_and_naive_times_are_utc() -> None:
    history = [
        _row(40, [("Back", 1.0)]),
        {"performed_at": datetime(2025, 3, 10, 6), "muscles_utilized": [{"muscle": "Back", "share": 1.0}]},
    ]
    assert recovering_muscles(history, NOW) == {"Back": datetime(2025, 3, 12, 6, tzinfo=UTC)}


def test_fully_recovered_muscles_are_not_listed() -> None:
    assert recovering_muscles([_row(49, [("Quadriceps", 1.0)]), _row(25, [("Biceps", 1.0)])], NOW) == {}
