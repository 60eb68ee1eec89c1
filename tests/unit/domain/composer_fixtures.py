"""Logged sessions the composer tests share."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any


def heavy_bench(now: datetime, *, hours_ago: float = 20) -> list[dict[str, Any]]:
    """Two heavy sets of barbell bench press `hours_ago` before `now`: the chest still recovering."""
    return [
        {
            "exercise_name": "Barbell Bench Press - Medium Grip",
            "performed_at": now - timedelta(hours=hours_ago),
            "muscles": [{"muscle": "Chest", "share": 1.0}],
            "load_each": [80, 80],
            "load_unit": "kg",
            "reps": [5, 5],
            "rpe": 8,
        }
    ]
