"""The program pipeline: plan -> weeks -> days, and what triggers each step (docs/programs.md).

plans.py builds a requested plan and its first week, weeks.py each later week once, days.py a day's
message and a pasted workout, plan_changes.py what the user changes, schedules.py the hourly and
morning runs; deps.py is what every step is given. With no publisher (tests, `trainer schedule`'s
in-process runs) the steps run inline. No database connection is held while a model runs."""

from trainer.programs.pipeline.days import import_workout, workout_for
from trainer.programs.pipeline.deps import PLAN_REQUESTED, WEEK_DUE, WORKOUT_READY, ProgramDeps, ProgramError
from trainer.programs.pipeline.plan_changes import adapt_missed, change_day, change_training_days, change_week
from trainer.programs.pipeline.plans import build_plan, request_plan, requeue_stale_plans
from trainer.programs.pipeline.schedules import republish_deliveries, run_daily, run_hourly
from trainer.programs.pipeline.weeks import WeekBuild, build_week

__all__ = [
    "PLAN_REQUESTED", "WEEK_DUE", "WORKOUT_READY", "ProgramDeps", "ProgramError", "WeekBuild", "adapt_missed",
    "build_plan", "build_week", "change_day", "change_training_days", "change_week", "import_workout",
    "republish_deliveries", "request_plan", "requeue_stale_plans", "run_daily", "run_hourly", "workout_for",
]  # fmt: skip
