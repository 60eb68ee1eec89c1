"""Display units, time zone and preferred training days."""

from __future__ import annotations

from typing import Any

from trainer.services.errors import UserDataError
from trainer.services.models import UserSettings
from trainer.services.scope import UserScope
from trainer.store.repositories import RepositoryError, profiles
from trainer.store.repositories import settings as repo


def normalise_weekdays(days: Any) -> list[str]:
    """Weekday names or their first three letters (any case) as canonical names, Monday first, once
    each; UserDataError for anything else."""
    try:
        return repo.normalise_weekdays(days)
    except RepositoryError as exc:
        raise UserDataError(str(exc)) from None


class SettingsService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def get(self) -> UserSettings:
        """The user's settings, or the defaults when none are stored yet."""
        async with self._scope.use() as conn:
            return UserSettings.model_validate(await repo.get_user_settings(conn, self._scope.user))

    async def update(self, **changes: Any) -> UserSettings:
        """Change the given settings (None leaves one as it is) and answer with all of them; a
        first-time user's row is created in the same transaction."""
        async with self._scope.use(write=True) as conn:
            await profiles.ensure_user(conn, self._scope.user)
            values = await repo.update_user_settings(conn, self._scope.user, **changes)
        return UserSettings.model_validate(values)
