"""One user's data behind one object: `UserDataService(db).for_user(user_id)`.

    data = UserDataService(db).for_user(user_id)
    settings = await data.settings.get()                  # its own pooled connection
    await data.locations.set_current(name="Hotel gym")    # its own transaction
    async with data.reading() as reads:                   # several reads, one connection
        profile, places = await reads.profile.get(), await reads.locations.all()
    async with data.transaction() as tx:                  # several calls, one transaction
        ...

Every call is scoped to the user; a RepositoryError leaves as UserDataError.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from trainer.services.devices import DeviceService
from trainer.services.goals import GoalService
from trainer.services.health import HealthService
from trainer.services.history import HistoryService
from trainer.services.locations import LocationService
from trainer.services.milestones import MilestoneService
from trainer.services.notifications import NotificationService
from trainer.services.preferences import PreferenceService
from trainer.services.profile import ProfileService
from trainer.services.readiness import ReadinessService
from trainer.services.schedule import ScheduleService
from trainer.services.scope import UserRef, UserScope, user_key
from trainer.services.settings import SettingsService
from trainer.services.training_plans import TrainingPlanService
from trainer.services.workout_plans import WorkoutPlanService
from trainer.store.db import Database
from trainer.store.repositories import Conn


class UserData:
    """The services of one user's data, all on the same scope."""

    def __init__(self, scope: UserScope) -> None:
        self._scope = scope
        self.user_id = scope.user
        """The users.id every call is scoped to."""
        self.profile = ProfileService(scope)
        self.settings = SettingsService(scope)
        self.locations = LocationService(scope)
        self.goals = GoalService(scope)
        self.preferences = PreferenceService(scope)
        self.history = HistoryService(scope)
        self.schedule = ScheduleService(scope)
        self.workout_plans = WorkoutPlanService(scope)
        self.milestones = MilestoneService(scope)
        self.training_plans = TrainingPlanService(scope)
        self.devices = DeviceService(scope)
        self.notifications = NotificationService(scope)
        self.readiness = ReadinessService(scope)
        self.health = HealthService(scope)

    @classmethod
    def on_connection(cls, conn: Conn, user_id: UserRef) -> UserData:
        """The user's data on a connection the caller holds (a job's own connection, outside a pool)."""
        return cls(UserScope(None, user_key(user_id), conn))

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[UserData]:
        """The same services with every call on one pooled connection (no transaction): several
        reads for one answer take one checkout."""
        if self._scope.conn is not None:
            yield self
            return
        async with self._scope.database().connection() as conn:
            yield UserData(self._scope.on(conn))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[UserData]:
        """The same services with every call in one transaction: committed when the block ends,
        rolled back if it raises."""
        if self._scope.conn is not None:
            async with self._scope.conn.transaction():
                yield self
            return
        async with self._scope.database().transaction() as conn:
            yield UserData(self._scope.on(conn))


class UserDataService:
    """Hands out one user's data on the domain database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def for_user(self, user_id: UserRef) -> UserData:
        """`user_id`: the authenticated subject (or its users.id)."""
        return UserData(UserScope(self._db, user_key(user_id)))
