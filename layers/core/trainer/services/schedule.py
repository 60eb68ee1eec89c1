"""The user's one calendar (docs/programs.md#one-calendar): the active training plan's days and the workouts
put on the calendar, read as one set of entries with one set of ids (the `calendar_entries` view, migration
0015).

Why a view and not a second copy: a plan day stays one `plan_workouts` row (its workout, message and
week are the program pipeline's) and a calendar workout one `scheduled_workouts` row; the view projects
both as calendar entries, so `upcoming`, `between`, the schedule tools, the plan tools and
`GET /workouts` all name the same ids. A write goes to the table the id belongs to: moving a plan day
exchanges its date with the day it lands on (a rest day of the plan), skipping it sets its status.

Missed sessions: `adapt_missed` marks the plan's past training days with nothing logged
`missed` (once: a second run finds none) and adapts the days after them in code
(trainer.domain.calendar), writing what it did in the notes of the days it changed; `recent_changes`
reads those back for the coach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from trainer.domain.calendar import (
    CalendarWeek,
    Slot,
    adapt_missed,
    back_to_back,
    is_hard,
    reshape_week,
    weekday_of,
    with_extra_sets,
)
from trainer.domain.workout_grouping import zone
from trainer.services.errors import UserDataError
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import Conn, MalformedId, UserId
from trainer.store.repositories import calendar as entries
from trainer.store.repositories import programs as plans
from trainer.store.repositories import schedule as repo
from trainer.store.repositories import settings as settings_repo

SCHEDULE_STATUSES: tuple[str, ...] = repo.SCHEDULE_STATUSES
PLAN_DAY_FIELDS = {"scheduled_date", "status", "workout_type"}
"""What a schedule change may set on a plan day (its exercises change with change_training_day)."""
CHANGES_DAYS_BACK = 14


def _label(row: Mapping[str, Any]) -> str:
    workout = row.get("workout") or {}
    return str(
        row.get("focus") or workout.get("title") or ("Rest day" if row["kind"] == "rest" else "Workout")
    )


def _hard(row: Mapping[str, Any]) -> bool:
    return is_hard(str(row["kind"]), _label(row))


def day_text(day: date) -> str:
    """'Tuesday 24 November'."""
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B')}"


def _local_day(value: datetime | date, timezone: str) -> date:
    return value.astimezone(zone(timezone)).date() if isinstance(value, datetime) else value


@dataclass
class DaysChange:
    """What a change of the available days did to the active plan."""

    days: list[str]
    moved: list[tuple[str, date, date]] = field(default_factory=list)
    """(session, from, to)."""
    dropped: list[tuple[str, date]] = field(default_factory=list)
    """Sessions that fit no available day without two hard days back to back: now rest days."""
    has_plan: bool = True

    def summary(self) -> str:
        if not self.has_plan:
            return f"Training days set to {', '.join(self.days)}; there is no active plan to reshape."
        parts = [f"Training days set to {', '.join(self.days)} from now on"]
        if self.moved:
            parts.append(
                "moved: " + "; ".join(f"{name} {day_text(a)} -> {day_text(b)}" for name, a, b in self.moved)
            )
        if self.dropped:
            parts.append(
                "dropped (no available day without two hard days in a row): "
                + "; ".join(f"{name} on {day_text(day)}" for name, day in self.dropped)
            )
        if not self.moved and not self.dropped:
            parts.append("the sessions still to come already fall on those days")
        return ". ".join(parts) + "."


class ScheduleService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def upcoming(self, *, days_ahead: int = 7, now: datetime | None = None) -> list[Row]:
        """Training sessions still scheduled from now to `days_ahead` days on (the plan's and the
        calendar's), soonest first."""
        async with self._scope.use() as conn:
            return await entries.list_upcoming(conn, self._scope.user, days_ahead=days_ahead, now=now)

    async def between(self, start: datetime, end: datetime) -> list[Row]:
        """Training sessions from `start` (inclusive) to `end`, any status, oldest first."""
        async with self._scope.use() as conn:
            return await entries.list_between(conn, self._scope.user, start, end)

    async def entry(self, workout_id: Any) -> Row | None:
        async with self._scope.use() as conn:
            try:
                return await entries.get_entry(conn, self._scope.user, workout_id)
            except MalformedId:
                return None

    async def scheduled_in_range(self, date_from: date, date_to: date, *, limit: int = 200) -> list[Row]:
        """The calendar's own workouts (not the plan's days) on the local days of the range."""
        async with self._scope.use() as conn:
            return await entries.scheduled_in_range(conn, self._scope.user, date_from, date_to, limit=limit)

    async def add(
        self,
        *,
        scheduled_date: datetime,
        workout_type: str,
        duration_minutes: int | None = None,
        notes: str | None = None,
        exercises: list[dict[str, Any]] | None = None,
    ) -> Row:
        async with self._scope.use(write=True) as conn:
            row = await repo.schedule_workout(
                conn,
                self._scope.user,
                scheduled_date=scheduled_date,
                workout_type=workout_type,
                duration_minutes=duration_minutes,
                notes=notes,
                exercises=exercises,
            )
            return await entries.get_entry(conn, self._scope.user, row["id"]) or row

    async def update(self, workout_id: Any, **changes: Any) -> Row | None:
        """Change the given fields (scheduled_date, workout_type, duration_minutes, notes, exercises,
        status) of a calendar workout, or move / skip / rename a plan day; the entry as it is now, with
        `recovery_warning` when hard sessions end up on consecutive days; None when the user has no
        entry with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                row = await repo.update_scheduled(conn, self._scope.user, workout_id, **changes)
                if row is None:
                    return await self._update_plan_day(conn, workout_id, changes)
            except MalformedId:
                return None
            entry = await entries.get_entry(conn, self._scope.user, row["id"])
            warning = await _recovery_warning(conn, self._scope.user, entry) if entry else None
            return {**row, "source": "calendar", "recovery_warning": warning}

    async def delete(self, workout_id: Any) -> Row | None:
        """The deleted calendar workout, or the plan day skipped (a plan day is never deleted: its week
        stays whole); None when the user has no entry with that id."""
        async with self._scope.use(write=True) as conn:
            try:
                row = await repo.delete_scheduled(conn, self._scope.user, workout_id)
                if row is None:
                    return await self._update_plan_day(conn, workout_id, {"status": "skipped"})
            except MalformedId:
                return None
            return {**row, "source": "calendar", "recovery_warning": None}

    async def swap(self, first_id: Any, second_id: Any) -> tuple[Row, Row]:
        """Two sessions exchange their days; UserDataError when either is not the user's."""
        async with self._scope.use(write=True) as conn:
            try:
                first = await entries.get_entry(conn, self._scope.user, first_id)
                second = await entries.get_entry(conn, self._scope.user, second_id)
            except MalformedId as exc:
                raise UserDataError(str(exc)) from None
            if first is None or second is None:
                missing = first_id if first is None else second_id
                raise UserDataError(f"scheduled workout {missing} not found")
            if first["id"] == second["id"]:
                raise UserDataError("a session cannot be swapped with itself")
            for row in (first, second):
                if row["status"] != "scheduled" or row["kind"] != "training":
                    raise UserDataError(
                        f"{row['workout_type']} on {day_text(row['date'])} is {row['status']}"
                    )
            if first["source"] == second["source"] == "plan":
                await entries.set_plan_dates(
                    conn, self._scope.user, {first["id"]: second["date"], second["id"]: first["date"]}
                )
            else:
                for row, other in ((first, second), (second, first)):
                    if row["source"] == "calendar":
                        await repo.update_scheduled(
                            conn, self._scope.user, row["id"], scheduled_date=_on_day(row, other)
                        )
                    else:
                        await self._move_plan_day(conn, row, other["date"])
            return (
                await self._entry(conn, first["id"], first),
                await self._entry(conn, second["id"], second),
            )

    async def adapt_missed(self, now: datetime) -> list[str]:
        """The missed-session adaptation for this user (what the daily run does), idempotent."""
        async with self._scope.use(write=True) as conn:
            return await adapt_missed_sessions(conn, self._scope.user, now)

    async def recent_changes(self, now: datetime, *, days_back: int = CHANGES_DAYS_BACK) -> list[Row]:
        """The plan's missed days of the last `days_back` days, each with what was changed for it."""
        async with self._scope.use() as conn:
            settings = await settings_repo.get_user_settings(conn, self._scope.user)
            today = _local_day(now, str(settings.get("timezone") or "UTC"))
            return await entries.missed_since(conn, self._scope.user, today - timedelta(days=days_back))

    # --- plan days --------------------------------------------------------------------------------

    async def _entry(self, conn: Conn, entry_id: Any, fallback: Row) -> Row:
        row = await entries.get_entry(conn, self._scope.user, entry_id)
        if row is None:
            return fallback
        warning = await _recovery_warning(conn, self._scope.user, row)
        return {**row, "recovery_warning": warning}

    async def _update_plan_day(self, conn: Conn, workout_id: Any, changes: Mapping[str, Any]) -> Row | None:
        row = await entries.plan_day(conn, self._scope.user, workout_id, lock=True)
        if row is None:
            return None
        unknown = sorted(set(changes) - PLAN_DAY_FIELDS)
        if unknown:
            raise UserDataError(
                f"{', '.join(unknown)} of a plan day change with change_training_day, not here "
                "(a plan day can be moved, skipped or renamed)"
            )
        status = changes.get("status")
        if status is not None:
            status = "skipped" if status == "cancelled" else status
            await plans.set_workout_status(conn, self._scope.user, row["id"], status)
        if changes.get("workout_type"):
            await entries.set_day_content(
                conn,
                self._scope.user,
                row["id"],
                kind=row["kind"],
                workout=row.get("workout"),
                focus=str(changes["workout_type"]),
                notes=list(row.get("notes") or []),
                recovery_notes=row.get("recovery_notes"),
            )
        when = changes.get("scheduled_date")
        if when is not None:
            await self._move_plan_day(conn, row, _local_day(when, str(row["timezone"])))
        return await self._entry(conn, row["id"], row)

    async def _move_plan_day(self, conn: Conn, row: Mapping[str, Any], to: date) -> None:
        if to == row["date"]:
            return
        if row["status"] != "scheduled":
            raise UserDataError(f"the {_label(row)} of {day_text(row['date'])} is already {row['status']}")
        target = await entries.plan_day_on(conn, self._scope.user, row["plan_id"], to)
        if target is None:
            raise UserDataError(
                f"your plan has no day on {day_text(to)} yet (that week is not built); "
                "schedule an extra session instead"
            )
        if target["kind"] == "training":
            raise UserDataError(
                f"{day_text(to)} already has {_label(target)} from your plan: swap the two sessions instead"
            )
        if target["status"] != "scheduled":
            raise UserDataError(f"{day_text(to)}'s {_label(target)} is already {target['status']}")
        await entries.set_plan_dates(conn, self._scope.user, {row["id"]: to, target["id"]: row["date"]})


def _on_day(row: Mapping[str, Any], other: Mapping[str, Any]) -> datetime:
    """`row`'s time of day on `other`'s day."""
    moment: datetime = row["scheduled_date"]
    local = moment.astimezone(other["scheduled_date"].tzinfo)
    return datetime.combine(other["date"], local.timetz())


async def _recovery_warning(conn: Conn, user_id: UserId, row: Mapping[str, Any]) -> str | None:
    """A warning when the entry's day and a day next to it both hold a hard session."""
    if row["kind"] != "training" or not is_hard("training", row["workout_type"]):
        return None
    day: date = row["date"]
    start = datetime.combine(day - timedelta(days=2), datetime.min.time(), row["scheduled_date"].tzinfo)
    around = await entries.list_between(conn, user_id, start, start + timedelta(days=5))
    hard = {
        r["date"]
        for r in around
        if r["status"] in ("scheduled", "completed") and is_hard("training", r["workout_type"])
    }
    pairs = [p for p in back_to_back(hard) if day in p]
    if not pairs:
        return None
    other = next(d for d in pairs[0] if d != day)
    return f"{day_text(day)} and {day_text(other)} are now hard sessions on consecutive days"


# --- what the daily run and a change of days do ----------------------------------------------------


async def adapt_missed_sessions(conn: Conn, user_id: UserId, now: datetime) -> list[str]:
    """Mark the active plan's past training days with nothing logged `missed` (each once) and adapt the
    days after them: the missed session carried to a free available day, or its volume given to the
    next session; never two hard sessions back to back. The sentences of what changed."""
    plan = await plans.get_active_plan(conn, user_id)
    if plan is None:
        return []
    today = _local_day(now, str(plan["timezone"]))
    async with conn.transaction():
        missed = await entries.claim_missed(conn, user_id, today)
        if not missed:
            return []
        settings = await settings_repo.get_user_settings(conn, user_id)
        available = set(settings.get("preferred_days") or []) | set(plan["training_days"])
        days = await entries.plan_days_from(conn, user_id, plan["id"], today)
        by_id = {str(d["id"]): d for d in days}
        week = CalendarWeek(
            upcoming=[
                Slot(str(d["id"]), d["date"], _hard(d), _label(d))
                for d in days
                if d["kind"] == "training" and d["status"] == "scheduled" and d["date"] >= today
            ],
            free=[
                Slot(str(d["id"]), d["date"], False, "rest")
                for d in days
                if d["kind"] == "rest" and d["status"] == "scheduled" and d["date"] >= today
            ],
            available=available,
            fixed_hard={
                d["date"]
                for d in days
                if d["date"] < today and d["kind"] == "training" and d["status"] == "completed" and _hard(d)
            },
        )
        rows = {str(m["id"]): m for m in missed}
        sentences: list[str] = []
        changes = adapt_missed(
            [Slot(k, m["date"], _hard(m), _label(m)) for k, m in rows.items()], week, today
        )
        for change in changes:
            source = rows[change.missed.key]
            what = f"{change.missed.label} of {day_text(change.missed.day)}"
            if change.action == "carried" and change.target is not None and change.day is not None:
                target = by_id[change.target]
                await entries.set_day_content(
                    conn, user_id, change.target, kind="training", workout=source["workout"],
                    focus=source.get("focus"), notes=[f"Carried over from the missed {what}."],
                )  # fmt: skip
                sentence = f"Missed {what}: moved to {day_text(target['date'])}, a free day."
            elif change.action == "redistributed" and change.target is not None:
                target = by_id[change.target]
                workout, names = with_extra_sets(target.get("workout") or {})
                note = f"One extra set on {', '.join(names)} to make up the missed {what}."
                await entries.set_day_content(
                    conn, user_id, change.target, kind="training", workout=workout,
                    focus=target.get("focus"), notes=[*(target.get("notes") or []), note],
                )  # fmt: skip
                sentence = (
                    f"Missed {what}: no free day without two hard sessions in a row, so "
                    f"{day_text(target['date'])}'s {_label(target)} gets one extra set on {', '.join(names)}."
                )
            else:
                sentence = f"Missed {what}: too late to make up; the plan goes on as it was."
            await entries.set_day_content(
                conn, user_id, source["id"], kind="training", workout=source["workout"],
                focus=source.get("focus"), notes=[*(source.get("notes") or []), sentence],
            )  # fmt: skip
            sentences.append(sentence)
    return sentences


async def reshape_plan(conn: Conn, user_id: UserId, days: Sequence[str], now: datetime) -> DaysChange:
    """The active plan's days from today on, week by week, put on `days`: each week's sessions still to
    come onto its available dates (no two hard ones on consecutive days, each moved as little as
    possible), the ones that fit nowhere made rest days. The plan's own training days are the plan
    pipeline's to set (trainer.programs.pipeline.change_training_days)."""
    chosen = list(days)
    plan = await plans.get_active_plan(conn, user_id)
    if plan is None or not chosen:
        return DaysChange(days=chosen, has_plan=plan is not None)
    today = _local_day(now, str(plan["timezone"]))
    rows = await entries.plan_days_from(conn, user_id, plan["id"], today)
    report = DaysChange(days=chosen)
    fixed = {r["date"] for r in rows if r["date"] < today and _hard(r) and r["status"] != "missed"}
    weeks: dict[int, list[Row]] = {}
    for row in rows:
        if row["date"] >= today:
            weeks.setdefault(int(row["week_number"]), []).append(row)
    for number in sorted(weeks):
        week = weeks[number]
        movable = [r for r in week if r["status"] == "scheduled"]
        fixed |= {r["date"] for r in week if r["status"] != "scheduled" and _hard(r)}
        sessions = [
            Slot(str(r["id"]), r["date"], _hard(r), _label(r)) for r in movable if r["kind"] == "training"
        ]
        slots = [r["date"] for r in movable if weekday_of(r["date"]) in chosen]
        result = reshape_week(sessions, slots, fixed_hard=fixed)
        free_dates = sorted({r["date"] for r in movable} - set(result.placed.values()))
        others = sorted((r for r in movable if str(r["id"]) not in result.placed), key=lambda r: r["date"])
        # the rest days (and dropped sessions) keep their own date when it is free, else take the next
        dates: dict[Any, date] = {}
        for row in others:
            if row["date"] in free_dates:
                free_dates.remove(row["date"])
                dates[row["id"]] = row["date"]
        for row in others:
            if row["id"] not in dates:
                dates[row["id"]] = free_dates.pop(0)
        by_key = {str(r["id"]): r for r in movable}
        for key, day in result.placed.items():
            row = by_key[key]
            dates[row["id"]] = day
            if day != row["date"]:
                report.moved.append((_label(row), row["date"], day))
        for key in result.dropped:
            row = by_key[key]
            report.dropped.append((_label(row), row["date"]))
            await entries.set_day_content(
                conn, user_id, row["id"], kind="rest", workout=None, focus=None,
                notes=[f"{_label(row)} dropped: no available day left this week without two hard days "
                       "in a row."],
                recovery_notes="Rest day: an easy walk or mobility work if you feel like moving.",
            )  # fmt: skip
        before = {r["id"]: r["date"] for r in movable}
        await entries.set_plan_dates(conn, user_id, {k: v for k, v in dates.items() if v != before[k]})
        fixed |= {day for key, day in result.placed.items() if _hard(by_key[key])}
    report.moved.sort(key=lambda m: m[1])
    return report
