"""The texts GET /today answers with when nothing stored one (trainer.services.today.DayMessages): the
program pipeline's offline day message (at most 1,600 characters), so a day reads the
same whether the push announced it or the app asked. No model runs: the app is waiting at launch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainer.domain.workout import Workout
from trainer.programs.messages import enforce_length, render_text, workout_message
from trainer.programs.models import SMS_LIMIT, MessageInput
from trainer.programs.records import day_of


class OfflineDayMessages:
    def plan_day_text(self, day: Mapping[str, Any]) -> str:
        given = MessageInput(
            day=day_of(day), week_number=day.get("week_number"), plan_title=day.get("plan_title")
        )
        return workout_message(given)

    def workout_text(self, workout: Workout) -> str:
        text = render_text(workout)
        if len(text) > SMS_LIMIT:
            text = render_text(workout, compact=True)
        return enforce_length(text)

    def scheduled_text(self, scheduled: Mapping[str, Any], workout: Workout | None) -> str:
        if workout is not None:
            return self.workout_text(workout)
        minutes = scheduled.get("duration_minutes")
        lines = [f"📅 Today: {scheduled['workout_type']}" + (f" ({minutes} min)" if minutes else "")]
        if scheduled.get("notes"):
            lines += ["", str(scheduled["notes"])]
        lines += ["", "💪 Let's crush it! Reply when done."]
        return enforce_length("\n".join(lines))
