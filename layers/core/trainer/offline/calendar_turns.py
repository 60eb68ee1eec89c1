"""The offline coach's one calendar: the sessions it holds (the plan's days and the
workouts put on the calendar, one set of ids) skipped, swapped, the available days changed, and missed
sessions explained.

  "Skip tomorrow's session"                          -> update_scheduled_workout (status skipped)
  "Swap Thursday's and Saturday's sessions"          -> swap_scheduled_workouts
  "From now on only Monday, Wednesday and Friday"    -> change_training_days (the plan reshaped)
  "I missed last week's workouts"                    -> missed_sessions (noticed and adapted, then said)

Moving ('move tomorrow's session to Saturday') and adding ('add a run on Saturday') are the schedule
handlers' (trainer.offline.handlers): they read the same entries.
"""

from __future__ import annotations

import re

from trainer.offline.dates import available_days
from trainer.offline.patterns import (
    AVAILABLE_DAYS,
    MISSED,
    NEXT_SESSIONS,
    SESSION_REF,
    SKIP_SESSION,
    SWAP_SESSIONS,
    WEEK_REF,
)
from trainer.offline.references import pick_scheduled, sessions_named
from trainer.offline.turn import Step, Turn, ask, notify
from trainer.programs.tools import ChangeTrainingDays, ChangeTrainingDaysArgs
from trainer.tools.base import ToolInvocation
from trainer.tools.calendar import (
    MissedSessions,
    MissedSessionsArgs,
    SwapScheduledWorkouts,
    SwapScheduledWorkoutsArgs,
    UpdateScheduledWorkout,
    UpdateScheduledWorkoutArgs,
)

DAY_OPTIONS = ["Monday, Wednesday and Friday", "Tuesday and Thursday", "Monday to Friday"]
EXERCISE_WORDS = re.compile(r"\b(exercise|set|rep|press|curl|squat|row|lunge|plank|push-?ups?)\b", re.I)


def says_available_days(text: str) -> bool:
    """'From now on only Monday, Wednesday and Friday', 'I can only train Tuesdays and Thursdays':
    days from now on (one week's change is change_training_week's)."""
    if not AVAILABLE_DAYS.search(text) or not available_days(text):
        return False
    return not WEEK_REF.search(text) or bool(re.search(r"\bfrom now on\b", text, re.I))


def says_missed(text: str) -> bool:
    return bool(MISSED.search(text))


def says_skip(text: str) -> bool:
    return bool(SKIP_SESSION.search(text)) and not EXERCISE_WORDS.search(text)


def says_swap_sessions(text: str) -> bool:
    """'Swap Thursday's and Saturday's sessions', 'swap my next two sessions': sessions, no exercise."""
    named = len(SESSION_REF.findall(text)) + (2 if NEXT_SESSIONS.search(text) else 0)
    return bool(SWAP_SESSIONS.search(text)) and named >= 2 and not EXERCISE_WORDS.search(text)


def _options(turn_upcoming: list[str]) -> list[str] | None:
    return turn_upcoming[:6] or None


async def skip_session(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    scheduled = pick_scheduled(turn.text, records.upcoming, records.today(turn.now))
    if scheduled is None:
        if not records.upcoming:
            return notify("You have nothing scheduled to skip.")
        options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming]
        return ask("Which session should I skip?", _options(options))
    return UpdateScheduledWorkout().call(
        UpdateScheduledWorkoutArgs(workout_id=scheduled.id, status="skipped")
    )


async def swap_sessions(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    named = sessions_named(turn.text, records.upcoming, records.today(turn.now))
    if len(named) < 2 and NEXT_SESSIONS.search(turn.text):
        after = [w for w in records.upcoming if not named or w.date > named[0].date]
        named = [*named, *after][:2]
    if len(named) < 2:
        options = [f"{w.workout_type} on {w.date:%A %d %b}" for w in records.upcoming]
        if len(named) == 1:
            return ask(
                f"Only {named[0].workout_type} on {named[0].date:%A} is a session; which one should it swap "
                "with? (Or tell me the day to move it to.)",
                _options([o for o in options if not o.endswith(f"{named[0].date:%A %d %b}")]),
            )
        return ask("Which two sessions should I swap?", _options(options))
    first, second = named[0], named[1]
    return SwapScheduledWorkouts().call(SwapScheduledWorkoutsArgs(first_id=first.id, second_id=second.id))


async def training_days(turn: Turn, step: Step) -> ToolInvocation:
    days = available_days(turn.text)
    if not days:
        return ask("Which days can you train on from now on?", DAY_OPTIONS)
    return ChangeTrainingDays().call(
        ChangeTrainingDaysArgs(training_days=days, reason=turn.text.strip()[:300])
    )


async def missed(turn: Turn, step: Step) -> ToolInvocation:
    return MissedSessions().call(MissedSessionsArgs())
