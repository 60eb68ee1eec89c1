"""Workout locations with their equipment; at most one is current."""

from __future__ import annotations

from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import locations as repo


class LocationService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def all(self) -> list[Row]:
        """Every location with its equipment, the current one first, then by name."""
        async with self._scope.use() as conn:
            return await repo.list_locations(conn, self._scope.user)

    async def current(self) -> Row | None:
        async with self._scope.use() as conn:
            return await repo.get_current(conn, self._scope.user)

    async def create(
        self,
        name: str,
        *,
        description: str | None = None,
        equipment: list[Any] | None = None,
        make_current: bool = False,
    ) -> Row:
        async with self._scope.use(write=True) as conn:
            return await repo.create_location(
                conn,
                self._scope.user,
                name,
                description=description,
                equipment=equipment,
                make_current=make_current,
            )

    async def set_current(self, *, location_id: Any = None, name: str | None = None) -> Row:
        """Make one location current, by id, else by case-insensitive name (a unique partial match
        will do); UserDataError naming the user's locations when none or several match."""
        async with self._scope.use(write=True) as conn:
            return await repo.set_current(conn, self._scope.user, location_id=location_id, name=name)

    async def update(
        self,
        *,
        location_id: Any = None,
        name: str | None = None,
        new_name: str | None = None,
        description: str | None = None,
        equipment: list[Any] | None = None,
    ) -> Row:
        """Rename a location or replace its description or equipment (None leaves a field as it is)."""
        async with self._scope.use(write=True) as conn:
            return await repo.update_location(
                conn,
                self._scope.user,
                location_id,
                name,
                new_name=new_name,
                description=description,
                equipment=equipment,
            )
