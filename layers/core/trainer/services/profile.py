"""The user's row: name, body stats and training profile (experience, usual session length, goals in
their words, whether they have no injuries); created on first contact, never again for a deleted account
(AccountDeleted)."""

from __future__ import annotations

from datetime import date
from typing import Any

from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import profiles as repo

PROFILE_FIELDS: tuple[str, ...] = (*repo.PROFILE_FIELDS, "age")
"""What `update` may set: `age` is stored as the age said today (stated_age, stated_age_on)."""
EXPERIENCE_LEVELS: tuple[str, ...] = repo.EXPERIENCE_LEVELS


class ProfileService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def get(self) -> Row | None:
        """Name, sex, birth date, height, weight, body fat, experience, session minutes; None before the
        user's first contact."""
        async with self._scope.use() as conn:
            return await repo.get_profile(conn, self._scope.user)

    async def update(self, **fields: Any) -> Row:
        """Set the given fields (None clears one); a first-time user's row is created in the same
        transaction. `age` (whole years, said today) is kept with the day it was said, so the profile's
        age grows with time."""
        if "age" in fields:
            age = fields.pop("age")
            fields["stated_age"], fields["stated_age_on"] = age, (date.today() if age is not None else None)
        async with self._scope.use(write=True) as conn:
            await repo.ensure_user(conn, self._scope.user)
            return await repo.update_profile(conn, self._scope.user, **fields)

    async def ensure(self, *, display_name: str | None = None) -> None:
        """Create the user (and their default settings) if missing; idempotent."""
        async with self._scope.use(write=True) as conn:
            await repo.ensure_user(conn, self._scope.user, display_name=display_name)
