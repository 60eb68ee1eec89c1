"""The phone's health data of one user (docs/health-data.md): consent per type, batches of samples stored
once each, and the series readiness and the coach read. The retention purge (`purge_expired`) runs for
every user from the hourly schedule.

Consent is checked in the transaction that writes, with the consent rows held (FOR SHARE), so a
withdrawal either comes first (the batch is refused) or waits for the batch and then deletes it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from trainer.domain.health_data import (
    CARDIO_ACTIVITIES,
    DATA_TYPE_OF,
    DATA_TYPES,
    KINDS_OF,
    RETENTION_DAYS,
    DataType,
    Platform,
)
from trainer.domain.health_readiness import (
    READINESS_WINDOW_DAYS,
    HealthReadiness,
    HealthSeries,
    assess_health,
)
from trainer.domain.health_summaries import Night, nights_from_sessions
from trainer.domain.outside_workouts import OutsideWorkout
from trainer.domain.workout_grouping import local_midnight, zone
from trainer.services.errors import UserDataError
from trainer.services.scope import UserScope
from trainer.store.repositories import health as repo
from trainer.store.repositories import settings as settings_repo
from trainer.store.repositories.health import SampleRow

if TYPE_CHECKING:
    from trainer.store.db import Database

__all__ = [
    "ConsentRequired",
    "ConsentState",
    "HealthService",
    "SampleRow",
    "StoreOutcome",
    "purge_expired",
]

PURGE_BATCH = 5000
PURGE_BATCHES = 20
"""One hourly run deletes at most PURGE_BATCH x PURGE_BATCHES expired samples (each statement well within
the role's 5 s statement timeout); a backlog takes the next runs."""


class ConsentRequired(UserDataError):
    """A batch holds samples of types the user has not consented to (nothing was stored)."""

    def __init__(self, data_types: Sequence[str]) -> None:
        self.data_types = tuple(data_types)
        super().__init__(
            "No consent to store "
            + ", ".join(t.replace("_", " ") for t in self.data_types)
            + " data: grant it with PUT /health/consent first."
        )


@dataclass(frozen=True)
class ConsentState:
    data_type: DataType
    granted: bool
    changed_at: datetime | None
    """When the answer was last changed; None: never asked."""


@dataclass(frozen=True)
class StoreOutcome:
    received: int
    stored: int
    """New samples."""
    duplicates: int
    """Samples already stored (the same platform sample id, sent again, or twice in the batch)."""


@dataclass(frozen=True)
class ConsentChange:
    consents: list[ConsentState]
    deleted: dict[str, int] = field(default_factory=dict)
    """Samples deleted per type whose consent was withdrawn."""


class HealthService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    # -- consent ------------------------------------------------------------------------------------

    async def consents(self) -> list[ConsentState]:
        """Every type, in DATA_TYPES order (not granted until the user says so)."""
        async with self._scope.use() as conn:
            rows = await repo.consents(conn, self._scope.user)
        return _states(rows)

    async def set_consents(self, grants: Mapping[DataType, bool]) -> ConsentChange:
        """Grants or withdraws each type given; a withdrawal deletes that type's samples in the same
        transaction."""
        deleted: dict[str, int] = {}
        async with self._scope.use(write=True) as conn:
            for data_type in DATA_TYPES:
                if data_type not in grants:
                    continue
                granted = grants[data_type]
                await repo.set_consent(conn, self._scope.user, data_type, granted)
                if not granted:
                    deleted[data_type] = await repo.delete_kinds(conn, self._scope.user, KINDS_OF[data_type])
            rows = await repo.consents(conn, self._scope.user)
        return ConsentChange(_states(rows), deleted)

    # -- samples ------------------------------------------------------------------------------------

    async def store(self, platform: Platform, samples: Sequence[SampleRow]) -> StoreOutcome:
        """Stores a batch (already validated) in one transaction: ConsentRequired, storing nothing, when
        a sample's type has no consent. A sample id already stored (or repeated) changes nothing."""
        needed = sorted({DATA_TYPE_OF[s.kind] for s in samples})  # type: ignore[index]
        unique: dict[str, SampleRow] = {}
        for sample in samples:
            unique.setdefault(sample.sample_id, sample)
        async with self._scope.use(write=True) as conn:
            held = await repo.consents(conn, self._scope.user, lock=needed)
            missing = [t for t in needed if not held.get(t, {}).get("granted")]
            if missing:
                raise ConsentRequired(missing)
            stored = await repo.insert_samples(conn, self._scope.user, platform, list(unique.values()))
        return StoreOutcome(received=len(samples), stored=stored, duplicates=len(samples) - stored)

    async def stored_kinds(self) -> list[dict[str, Any]]:
        """Per kind stored: {kind, samples, newest_end} (where a phone's next sync can start)."""
        async with self._scope.use() as conn:
            return await repo.kind_totals(conn, self._scope.user)

    # -- what readiness and the coach read ----------------------------------------------------------

    async def timezone(self) -> tzinfo:
        async with self._scope.use() as conn:
            settings = await settings_repo.get_user_settings(conn, self._scope.user)
        return zone(str(settings.get("timezone") or "UTC"))

    async def series(self, today: date, tz: tzinfo, days: int = READINESS_WINDOW_DAYS) -> HealthSeries:
        """The daily values of the `days` local days ending `today`."""
        since = local_midnight(today - timedelta(days=days - 1), tz)
        until = local_midnight(today + timedelta(days=1), tz)
        async with self._scope.use() as conn:
            rows = await repo.daily(
                conn,
                self._scope.user,
                ("hrv_rmssd", "hrv_sdnn", "resting_heart_rate", "sleep_session"),
                since=since,
                until=until,
                timezone=_zone_name(tz),
            )
        by_kind: dict[str, dict[date, float]] = {}
        for row in rows:
            value = (
                row["mean_ln"]
                if row["kind"].startswith("hrv_")
                else (row["total"] if row["kind"] == "sleep_session" else row["mean"])
            )
            by_kind.setdefault(row["kind"], {})[row["day"]] = float(value)
        return HealthSeries(
            hrv_rmssd=by_kind.get("hrv_rmssd", {}),
            hrv_sdnn=by_kind.get("hrv_sdnn", {}),
            resting_hr=by_kind.get("resting_heart_rate", {}),
            sleep=by_kind.get("sleep_session", {}),
        )

    async def readiness(self, today: date, tz: tzinfo) -> HealthReadiness:
        return assess_health(await self.series(today, tz), today)

    async def workouts(self, since: datetime, until: datetime, limit: int = 200) -> list[OutsideWorkout]:
        """Other apps' workouts that ended in [since, until), oldest first."""
        async with self._scope.use() as conn:
            rows = await repo.samples(
                conn, self._scope.user, "workout", since=since, until=until, limit=limit
            )
        return [OutsideWorkout.from_row(row) for row in rows]

    async def nights(self, first: date, last: date, tz: tzinfo) -> list[Night]:
        """The sleep of each local day from `first` to `last` (the sessions that ended that day)."""
        async with self._scope.use() as conn:
            rows = await repo.samples(
                conn,
                self._scope.user,
                "sleep_session",
                since=local_midnight(first, tz),
                until=local_midnight(last + timedelta(days=1), tz),
            )
        return nights_from_sessions(rows, tz)

    async def cardio_minutes(self) -> float:
        """Minutes of other apps' cardio workouts still kept (toward a cardio goal)."""
        async with self._scope.use() as conn:
            return await repo.workout_minutes(conn, self._scope.user, sorted(CARDIO_ACTIVITIES))


def _states(rows: Mapping[str, Mapping[str, Any]]) -> list[ConsentState]:
    return [
        ConsentState(t, bool(rows[t]["granted"]), rows[t]["changed_at"])
        if t in rows
        else ConsentState(t, False, None)
        for t in DATA_TYPES
    ]


def _zone_name(tz: tzinfo) -> str:
    return str(getattr(tz, "key", None) or "UTC")


async def purge_expired(
    db: Database, now: datetime, *, batch: int = PURGE_BATCH, batches: int = PURGE_BATCHES
) -> int:
    """Deletes the samples (every user's) that ended more than RETENTION_DAYS before `now`: how many."""
    cutoff = now - timedelta(days=RETENTION_DAYS)
    purged = 0
    for _ in range(batches):
        async with db.transaction() as conn:
            deleted = await repo.purge_ended_before(conn, cutoff, limit=batch)
        purged += deleted
        if deleted < batch:
            break
    return purged
