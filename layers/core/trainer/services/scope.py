"""Where one user's service calls run, and the two things every call shares: the users.id of the
authenticated subject, and RepositoryError becoming UserDataError."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

from trainer.services.errors import UserDataConflict, UserDataError
from trainer.store.db import Database
from trainer.store.repositories import Conn, Duplicate, RepositoryError, user_uuid

UserRef = str | uuid.UUID
"""An identity-provider subject (the JWT `sub`), or a users.id already mapped from one."""


def user_key(user_id: UserRef) -> uuid.UUID:
    """The users.id of a subject: a UUID subject as is, any other via uuid5 (a users.id stays itself)."""
    return user_id if isinstance(user_id, uuid.UUID) else user_uuid(user_id)


@dataclass(frozen=True)
class UserScope:
    """One user's calls: each on a pooled connection of its own (a transaction when it writes), or all
    on the one connection `conn` a `reading()` / `transaction()` block holds."""

    db: Database | None
    user: uuid.UUID
    conn: Conn | None = None

    def on(self, conn: Conn) -> UserScope:
        return replace(self, conn=conn)

    @asynccontextmanager
    async def use(self, *, write: bool = False) -> AsyncIterator[Conn]:
        """The connection a call runs on; a RepositoryError raised on it leaves as UserDataError."""
        try:
            if self.conn is not None:
                yield self.conn
            else:
                db = self.database()
                async with db.transaction() if write else db.connection() as conn:
                    yield conn
        except Duplicate as exc:
            raise UserDataConflict(str(exc)) from None
        except RepositoryError as exc:
            raise UserDataError(str(exc)) from None

    def database(self) -> Database:
        if self.db is None:
            raise UserDataError("the domain database is not available")
        return self.db
