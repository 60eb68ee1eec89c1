"""The days of the week as plans and the calendar name them, and the days a plan trains on when the user
names none."""

from __future__ import annotations

from typing import Literal

Weekday = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEKDAYS: tuple[Weekday, ...] = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip
DEFAULT_DAYS_BY_COUNT: dict[int, tuple[Weekday, ...]] = {
    1: ("Monday",),
    2: ("Monday", "Thursday"),
    3: ("Monday", "Wednesday", "Friday"),
    4: ("Monday", "Tuesday", "Thursday", "Friday"),
    5: ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    6: ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"),
    7: WEEKDAYS,
}
"""How many days a week -> which days, when the user names none."""
