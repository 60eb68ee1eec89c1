"""A user's notification settings (push opt-out, morning hour, quiet hours, SMS opt-in) and the record
of what was delivered to them, newest day first.

SMS goes only to a phone number the identity provider verified: the number comes from the caller's
token (the OIDC claims `phone_number` and `phone_number_verified`), never from a request body, so
nobody can make this service text a number they do not own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from trainer.domain.delivery_window import QuietHours
from trainer.services.errors import UserDataError
from trainer.services.rows import Row
from trainer.services.scope import UserScope
from trainer.store.repositories import notifications as repo
from trainer.store.repositories import profiles


@dataclass(frozen=True)
class NotificationSettings:
    push_enabled: bool
    morning_hour: int | None
    """None: the deployment's morning hour."""
    quiet_hours: QuietHours | None
    sms_enabled: bool
    phone_number: str | None
    phone_verified_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> NotificationSettings:
        start, end = row.get("quiet_start"), row.get("quiet_end")
        return cls(
            push_enabled=bool(row["push_enabled"]),
            morning_hour=row.get("morning_hour"),
            quiet_hours=QuietHours(start, end) if start is not None and end is not None else None,
            sms_enabled=bool(row["sms_enabled"]),
            phone_number=row.get("phone_number"),
            phone_verified_at=row.get("phone_verified_at"),
        )

    def morning(self, default: int) -> int:
        return self.morning_hour if self.morning_hour is not None else default


@dataclass(frozen=True)
class VerifiedPhone:
    """A phone number the identity provider verified (from the caller's token)."""

    number: str


def verified_phone(claims: dict[str, Any]) -> VerifiedPhone | None:
    """The token's phone number when its `phone_number_verified` claim is true (E.164 only)."""
    number, verified = claims.get("phone_number"), claims.get("phone_number_verified")
    if verified is not True and str(verified).lower() != "true":
        return None
    if not isinstance(number, str) or not re.fullmatch(repo.PHONE_NUMBER, number):
        return None
    return VerifiedPhone(number)


class NotificationService:
    def __init__(self, scope: UserScope) -> None:
        self._scope = scope

    async def settings(self) -> NotificationSettings:
        """The user's settings, or the defaults (push on, the deployment's morning, no quiet hours, no
        SMS)."""
        async with self._scope.use() as conn:
            return NotificationSettings.from_row(await repo.get_settings(conn, self._scope.user))

    async def replace_settings(
        self,
        *,
        push_enabled: bool,
        morning_hour: int | None,
        quiet_hours: tuple[time, time] | None,
        sms_enabled: bool,
        phone: VerifiedPhone | None,
        earliest_morning_hour: int = 0,
        now: datetime | None = None,
    ) -> NotificationSettings:
        """Store the whole settings document. UserDataError: a morning before `earliest_morning_hour`
        (the hour the day's workout is published), quiet hours that start when they end, SMS without
        a verified phone number. Turning SMS off forgets the number."""
        if morning_hour is not None and not earliest_morning_hour <= morning_hour <= 23:
            raise UserDataError(
                f"morning_hour must be between {earliest_morning_hour} and 23: the day's workout is"
                f" ready at {earliest_morning_hour:02d}:00"
            )
        if quiet_hours is not None and quiet_hours[0] == quiet_hours[1]:
            raise UserDataError("quiet hours must start and end at different times")
        if sms_enabled and phone is None:
            raise UserDataError(
                "SMS needs a verified phone number: verify one with your sign-in provider, then sign in again"
            )
        values: dict[str, Any] = {
            "push_enabled": push_enabled,
            "morning_hour": morning_hour,
            "quiet_start": quiet_hours[0] if quiet_hours else None,
            "quiet_end": quiet_hours[1] if quiet_hours else None,
            "sms_enabled": sms_enabled,
            "phone_number": phone.number if sms_enabled and phone else None,
            "phone_verified_at": (now or datetime.now(UTC)) if sms_enabled and phone else None,
        }
        async with self._scope.use(write=True) as conn:
            await profiles.ensure_user(conn, self._scope.user)
            return NotificationSettings.from_row(await repo.replace_settings(conn, self._scope.user, values))

    async def history(self, *, before: date | None = None, limit: int = 20) -> list[Row]:
        """The user's delivery records (one per day), newest day first, those before `before` if given."""
        async with self._scope.use() as conn:
            return await repo.list_deliveries(conn, self._scope.user, before=before, limit=limit)
