"""Workout locations with their equipment; at most one is current. The loads a user can set up come
from the current one: the weights it lists (plates, bars, dumbbells, kettlebells) refine the steps of
the user's weight unit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainer.domain.loading import LoadSteps
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import MalformedId
from trainer.store.repositories import locations as repo


def weighed_items(location: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The equipment items a location lists ({name, weights, unit}...; plain names left out); []
    without a location."""
    return [dict(item) for item in (location or {}).get("equipment") or [] if isinstance(item, Mapping)]


def load_steps_at(weight_unit: str, location: Mapping[str, Any] | None) -> LoadSteps:
    """The loads a user can set up at `location` (their current one), in their weight unit."""
    return LoadSteps.for_unit(weight_unit, weighed_items(location))


class LocationService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def load_steps(self, weight_unit: str) -> LoadSteps:
        """The loads the user can set up at their current location, in `weight_unit`."""
        return load_steps_at(weight_unit, await self.current())

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

    async def get(self, location_id: Any) -> Row | None:
        """One location; None when the user has none with that id."""
        async with self._scope.use() as conn:
            try:
                return await repo.get_location(conn, self._scope.user, location_id)
            except MalformedId:
                return None

    async def update(self, location_id: Any, **changes: Any) -> Row | None:
        """Change the given fields (name, description, equipment); None when the user has no location
        with that id; UserDataConflict when the new name is another location's."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.update_location(conn, self._scope.user, location_id, **changes)
            except MalformedId:
                return None

    async def delete(self, location_id: Any) -> bool:
        """False when the user has no location with that id (deleting the current one leaves none
        current)."""
        async with self._scope.use(write=True) as conn:
            try:
                return await repo.delete_location(conn, self._scope.user, location_id)
            except MalformedId:
                return False

    async def set_current(self, *, location_id: Any = None, name: str | None = None) -> Row:
        """Make one location current, by id, else by case-insensitive name (a unique partial match
        will do); UserDataError naming the user's locations when none or several match."""
        async with self._scope.use(write=True) as conn:
            return await repo.set_current(conn, self._scope.user, location_id=location_id, name=name)
