"""workout_history plus exercise distribution tracking.

Loads and distances are stored as logged, with their unit; statistics convert in code. Every insert and
delete updates the running totals (per muscle / per goal category, and the per-user grand totals) in the
same transaction, so distribution debt never scans history.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb

from trainer.domain.muscles import canonical_muscle
from trainer.store.repositories import Conn, RepositoryError, UserId, as_uuid, decimal_number
from trainer.store.repositories.goals import normalise_weights
from trainer.store.repositories.preferences import parse_timestamp

EXERCISE_TYPES = ("reps", "hold", "duration", "intervals")
HISTORY_COLUMNS = (
    "performed_at", "exercise_name", "exercise_type", "sets", "reps", "load_each", "load_unit", "hold_sec",
    "duration_min", "distance", "distance_unit", "rounds", "work_sec", "rest_sec", "rpe", "muscles", "goals",
    "session_id", "workout_id", "notes", "rpe_each",
)  # fmt: skip
_SELECT = "id, " + ", ".join(HISTORY_COLUMNS) + ", created_at"

Increments = dict[tuple[str, str], tuple[str, Decimal]]


async def log_exercises(
    conn: Conn,
    user_id: UserId,
    entries: Sequence[dict[str, Any]],
    *,
    default_weight_unit: str = "kg",
    default_distance_unit: str = "km",
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Insert history rows and add their shares to the distribution totals, atomically."""
    if not entries:
        return []
    at = now or datetime.now(UTC)
    rows = []
    for index, entry in enumerate(entries):
        try:
            rows.append(normalise_entry(entry, default_weight_unit, default_distance_unit, at))
        except RepositoryError as exc:
            raise RepositoryError(f"exercise {index + 1}: {exc}") from None
    async with conn.transaction():
        inserted = await _insert_rows(conn, user_id, rows)
        await _apply_increments(conn, user_id, share_increments(inserted), len(inserted), sign=1)
    return inserted


async def delete_logged(
    conn: Conn, user_id: UserId, history_id: Any, *, session_id: str | None = None
) -> dict[str, Any] | None:
    """Delete one logged exercise and subtract its shares from the totals; None if it is not the user's
    (or, with `session_id`, was not logged in that chat session: an undo never reaches older rows)."""
    only_session = " AND session_id = %s" if session_id is not None else ""
    params: tuple[Any, ...] = (user_id, as_uuid(history_id, "exercise id"))
    if session_id is not None:
        params += (session_id,)
    async with conn.transaction():
        cur = await conn.execute(
            f"DELETE FROM workout_history WHERE user_id = %s AND id = %s{only_session} RETURNING {_SELECT}",
            params,
        )
        row = await cur.fetchone()
        if row is None:
            return None
        await _apply_increments(conn, user_id, share_increments([row]), 1, sign=-1)
    return row


async def update_logged(
    conn: Conn,
    user_id: UserId,
    history_id: Any,
    entry: dict[str, Any],
    *,
    default_weight_unit: str = "kg",
    default_distance_unit: str = "km",
    now: datetime | None = None,
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Replace one logged exercise with `entry` (a whole entry, validated like a new one), atomically:
    the distribution totals lose the stored row's shares and gain the new row's, so a correction
    never counts twice. (old row, new row), or None if it is not the user's."""
    row = normalise_entry(entry, default_weight_unit, default_distance_unit, now or datetime.now(UTC))
    key = as_uuid(history_id, "exercise id")
    async with conn.transaction():
        cur = await conn.execute(
            f"SELECT {_SELECT} FROM workout_history WHERE user_id = %s AND id = %s FOR UPDATE", (user_id, key)
        )
        old = await cur.fetchone()
        if old is None:
            return None
        cur = await conn.execute(_UPDATE, [*_column_values(row), user_id, key])
        new = await cur.fetchone()
        assert new is not None
        await _apply_increments(conn, user_id, share_increments([old]), 1, sign=-1)
        await _apply_increments(conn, user_id, share_increments([new]), 1, sign=1)
    return old, new


async def get_logged(conn: Conn, user_id: UserId, history_id: Any) -> dict[str, Any] | None:
    cur = await conn.execute(
        f"SELECT {_SELECT} FROM workout_history WHERE user_id = %s AND id = %s",
        (user_id, as_uuid(history_id, "exercise id")),
    )
    return await cur.fetchone()


async def logged_in_session(conn: Conn, user_id: UserId, session_id: str) -> list[dict[str, Any]]:
    """The rows logged in one chat session, newest first (what an undo may remove)."""
    cur = await conn.execute(
        f"SELECT {_SELECT} FROM workout_history WHERE user_id = %s AND session_id = %s"
        " ORDER BY created_at DESC, performed_at DESC, id",
        (user_id, session_id),
    )
    return await cur.fetchall()


async def has_session(conn: Conn, user_id: UserId, session_id: str) -> bool:
    cur = await conn.execute(
        "SELECT 1 FROM workout_history WHERE user_id = %s AND session_id = %s LIMIT 1", (user_id, session_id)
    )
    return await cur.fetchone() is not None


def days_back_start(days_back: int, now: datetime | None = None) -> datetime:
    """Where 'the last `days_back` days' start: that many 24-hour days before now (what
    GET /exercises/history?days_back=N and the statistics for N days both read)."""
    return (now or datetime.now(UTC)) - timedelta(days=days_back)


async def list_recent(
    conn: Conn,
    user_id: UserId,
    *,
    days_back: int = 14,
    limit: int = 15,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Newest first, at most `limit` rows within `days_back` days (index range scan, O(limit))."""
    since = days_back_start(days_back, now)
    cur = await conn.execute(
        f"SELECT {_SELECT} FROM workout_history WHERE user_id = %s AND performed_at >= %s"
        " ORDER BY performed_at DESC, id LIMIT %s",
        (user_id, since, limit),
    )
    return await cur.fetchall()


async def list_between(
    conn: Conn, user_id: UserId, start: datetime | None, end: datetime | None
) -> list[dict[str, Any]]:
    """Every row with start <= performed_at < end, oldest first (statistics read this)."""
    cur = await conn.execute(
        f"SELECT {_SELECT} FROM workout_history WHERE user_id = %s"
        " AND performed_at >= coalesce(%s, '-infinity'::timestamptz)"
        " AND performed_at < coalesce(%s, 'infinity'::timestamptz)"
        " ORDER BY performed_at, id",
        (user_id, start, end),
    )
    return await cur.fetchall()


async def recent_loaded_by_exercise(
    conn: Conn,
    user_id: UserId,
    *,
    days_back: int = 90,
    per_exercise: int = 8,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """The newest `per_exercise` loaded reps entries of every exercise done in the last `days_back`
    days, oldest first (progression reads these). One window query over the recent range: its cost
    follows the window, not the length of the history."""
    since = (now or datetime.now(UTC)) - timedelta(days=days_back)
    cur = await conn.execute(
        f"SELECT {_SELECT} FROM (SELECT *, row_number() OVER ("
        " PARTITION BY lower(btrim(exercise_name)) ORDER BY performed_at DESC, id) AS newest"
        " FROM workout_history WHERE user_id = %s AND performed_at >= %s"
        " AND exercise_type = 'reps' AND load_each IS NOT NULL) recent"
        " WHERE newest <= %s ORDER BY performed_at, id",
        (user_id, since, per_exercise),
    )
    return await cur.fetchall()


async def distribution_totals(conn: Conn, user_id: UserId) -> dict[str, Any]:
    """Running totals: logged_count, category_total, muscle_total, and category/muscle {name: total}."""
    cur = await conn.execute(
        "SELECT s.logged_count, s.category_total, s.muscle_total, t.dimension, t.name, t.total"
        " FROM exercise_distribution_totals s"
        " LEFT JOIN exercise_distribution_tracking t ON t.user_id = s.user_id"
        " WHERE s.user_id = %s ORDER BY t.dimension, t.total DESC, lower(t.name)",
        (user_id,),
    )
    rows = await cur.fetchall()
    result: dict[str, Any] = {
        "logged_count": 0,
        "category_total": Decimal(0),
        "muscle_total": Decimal(0),
        "category": {},
        "muscle": {},
    }
    for row in rows:
        result["logged_count"] = int(row["logged_count"])
        result["category_total"] = row["category_total"]
        result["muscle_total"] = row["muscle_total"]
        if row["dimension"] is not None:
            result[row["dimension"]][row["name"]] = row["total"]
    return result


async def rebuild_distribution(conn: Conn, user_id: UserId) -> None:
    """Recompute the running totals from history (repair path; O(history))."""
    async with conn.transaction():
        await conn.execute("DELETE FROM exercise_distribution_tracking WHERE user_id = %s", (user_id,))
        await conn.execute("DELETE FROM exercise_distribution_totals WHERE user_id = %s", (user_id,))
        cur = await conn.execute("SELECT muscles, goals FROM workout_history WHERE user_id = %s", (user_id,))
        rows = await cur.fetchall()
        await _apply_increments(conn, user_id, share_increments(rows), len(rows), sign=1)


def share_increments(rows: Iterable[dict[str, Any]]) -> Increments:
    """Sum of shares per (dimension, lower(name)), keeping the first spelling seen."""
    totals: Increments = {}
    for row in rows:
        for dimension, key, items in (
            ("muscle", "muscle", row["muscles"]),
            ("category", "goal", row["goals"]),
        ):
            for item in items:
                name = item[key]
                slot = (dimension, name.lower())
                shown, amount = totals.get(slot, (name, Decimal(0)))
                totals[slot] = (shown, amount + Decimal(str(item["share"])))
    return totals


_INSERT = (
    "INSERT INTO workout_history (user_id, " + ", ".join(HISTORY_COLUMNS) + ") VALUES ("
    + ", ".join(["%s"] * (len(HISTORY_COLUMNS) + 1)) + ") RETURNING " + _SELECT
)  # fmt: skip


_UPDATE = (
    "UPDATE workout_history SET " + ", ".join(f"{c} = %s" for c in HISTORY_COLUMNS)
    + " WHERE user_id = %s AND id = %s RETURNING " + _SELECT
)  # fmt: skip


def _column_values(row: dict[str, Any]) -> list[Any]:
    return [Jsonb(row[c]) if c in ("muscles", "goals") else row[c] for c in HISTORY_COLUMNS]


async def _insert_rows(conn: Conn, user_id: UserId, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One prepared INSERT, pipelined for every row (a single network flush)."""
    params = [
        [user_id, *(Jsonb(row[c]) if c in ("muscles", "goals") else row[c] for c in HISTORY_COLUMNS)]
        for row in rows
    ]
    inserted: list[dict[str, Any]] = []
    async with conn.cursor() as cur:
        await cur.executemany(_INSERT.encode(), params, returning=True)
        while True:
            inserted.extend(await cur.fetchall())
            if not cur.nextset():
                break
    return inserted


async def _apply_increments(
    conn: Conn, user_id: UserId, increments: Increments, count: int, *, sign: int
) -> None:
    dimensions = [d for d, _ in increments]
    names = [shown for shown, _ in increments.values()]
    amounts = [amount for _, amount in increments.values()]
    category_sum = sum((a for (d, _), (_, a) in increments.items() if d == "category"), Decimal(0))
    muscle_sum = sum((a for (d, _), (_, a) in increments.items() if d == "muscle"), Decimal(0))
    params = {
        "user_id": user_id, "dims": dimensions, "names": names, "amounts": amounts,
        "count": count, "category_sum": category_sum, "muscle_sum": muscle_sum,
    }  # fmt: skip
    if sign > 0:
        await conn.execute(
            "WITH x AS (SELECT * FROM unnest(%(dims)s::text[], %(names)s::text[], %(amounts)s::numeric[])"
            " AS x(dimension, name, amount)),"
            " tracked AS (INSERT INTO exercise_distribution_tracking AS t (user_id, dimension, name, total)"
            " SELECT %(user_id)s, dimension, name, amount FROM x"
            " ON CONFLICT (user_id, dimension, lower(name))"
            " DO UPDATE SET total = t.total + EXCLUDED.total, updated_at = now())"
            " INSERT INTO exercise_distribution_totals AS s"
            " (user_id, logged_count, category_total, muscle_total)"
            " VALUES (%(user_id)s, %(count)s, %(category_sum)s, %(muscle_sum)s)"
            " ON CONFLICT (user_id) DO UPDATE SET logged_count = s.logged_count + EXCLUDED.logged_count,"
            " category_total = s.category_total + EXCLUDED.category_total,"
            " muscle_total = s.muscle_total + EXCLUDED.muscle_total, updated_at = now()",
            params,
        )
        return
    await conn.execute(
        "WITH x AS (SELECT * FROM unnest(%(dims)s::text[], %(names)s::text[], %(amounts)s::numeric[])"
        " AS x(dimension, name, amount)),"
        " gone AS (DELETE FROM exercise_distribution_tracking t USING x"
        " WHERE t.user_id = %(user_id)s AND t.dimension = x.dimension AND lower(t.name) = lower(x.name)"
        " AND t.total <= x.amount),"
        " kept AS (UPDATE exercise_distribution_tracking t SET total = t.total - x.amount, updated_at = now()"
        " FROM x WHERE t.user_id = %(user_id)s AND t.dimension = x.dimension"
        " AND lower(t.name) = lower(x.name) AND t.total > x.amount)"
        " UPDATE exercise_distribution_totals SET logged_count = greatest(logged_count - %(count)s, 0),"
        " category_total = greatest(category_total - %(category_sum)s, 0),"
        " muscle_total = greatest(muscle_total - %(muscle_sum)s, 0), updated_at = now()"
        " WHERE user_id = %(user_id)s",
        params,
    )


def normalise_entry(
    entry: dict[str, Any], default_weight_unit: str, default_distance_unit: str, now: datetime
) -> dict[str, Any]:
    """Validate one logged exercise (tool arguments or a completed workout exercise) into a row."""
    name = str(entry.get("exercise_name") or entry.get("name") or "").strip()
    if not 1 <= len(name) <= 120:
        raise RepositoryError("exercise_name is required (1-120 characters)")
    kind = entry.get("exercise_type") or entry.get("type")
    if kind not in EXERCISE_TYPES:
        raise RepositoryError(f"exercise_type must be one of {', '.join(EXERCISE_TYPES)}")
    sets = _int(entry.get("sets"), "sets", 1, 100)
    reps = _per_set(entry.get("reps"), sets, "reps", integer=True)
    hold_sec = _per_set(entry.get("hold_sec"), sets, "hold_sec", integer=True)
    load_each = _per_set(entry.get("load_each", entry.get("load")), sets, "load", integer=False)
    load_unit = entry.get("load_unit") or (default_weight_unit if load_each is not None else None)
    if load_unit is not None and load_unit not in ("kg", "lbs"):
        raise RepositoryError("load_unit must be kg or lbs")
    distance = decimal_number(entry.get("distance"), "distance", minimum=0, strict=True)
    distance_unit = entry.get("distance_unit") or (default_distance_unit if distance is not None else None)
    if distance_unit is not None and distance_unit not in ("km", "mi"):
        raise RepositoryError("distance_unit must be km or mi")
    performed_at = (
        parse_timestamp(entry["performed_at"], "performed_at") if entry.get("performed_at") else now
    )
    if performed_at > now + timedelta(days=1):
        raise RepositoryError("performed_at is in the future")
    notes = entry.get("notes")
    rpe_each = _per_set(entry.get("rpe_each"), sets, "rpe_each", integer=False)
    if rpe_each is not None and not all(1 <= v <= 10 for v in rpe_each):
        raise RepositoryError("rpe_each values must be between 1 and 10")
    rpe = decimal_number(entry.get("rpe"), "rpe", minimum=1, maximum=10)
    if rpe is None and rpe_each is not None:
        rpe = max(rpe_each)
    return {
        "performed_at": performed_at,
        "exercise_name": name,
        "exercise_type": kind,
        "sets": sets if sets is not None else (len(reps or hold_sec or []) or None),
        "reps": reps,
        "load_each": load_each,
        "load_unit": load_unit if load_each is not None else None,
        "hold_sec": hold_sec,
        "duration_min": decimal_number(
            entry.get("duration_min"), "duration_min", minimum=0, maximum=1440, strict=True
        ),
        "distance": distance,
        "distance_unit": distance_unit if distance is not None else None,
        "rounds": _int(entry.get("rounds"), "rounds", 1, 1000),
        "work_sec": _int(entry.get("work_sec"), "work_sec", 1, 86400),
        "rest_sec": _int(entry.get("rest_sec"), "rest_sec", 0, 86400),
        "rpe": rpe,
        "rpe_each": rpe_each,
        "muscles": _shares(entry.get("muscles", entry.get("muscles_utilized")), "muscle"),
        "goals": _shares(entry.get("goals", entry.get("goals_addressed")), "goal"),
        "session_id": _text(entry.get("session_id"), 200),
        "workout_id": _text(entry.get("workout_id"), 200),
        "notes": _text(notes, 2000),
    }


def _shares(raw: Any, key: str) -> list[dict[str, Any]]:
    """[{muscle|goal, share}] (or bare names, shared equally), merged by name, normalised to sum 1."""
    if not raw:
        return []
    if not isinstance(raw, list):
        raise RepositoryError(f"{key}s must be a list")
    merged: dict[str, tuple[str, float]] = {}
    for item in raw:
        if isinstance(item, str):
            item = {key: item, "share": 1.0}
        if not isinstance(item, dict):
            raise RepositoryError(f"each {key} share needs {key} and share")
        label = str(item.get(key) or "").strip()
        if key == "muscle":
            canonical = canonical_muscle(label)
            if canonical is None:
                raise RepositoryError(f"{label[:40]!r} is not one of the 16 muscles")
            label = canonical
        elif not 1 <= len(label) <= 80:
            raise RepositoryError("goal names must be 1-80 characters")
        share = decimal_number(item.get("share", 1.0), f"{key} share", minimum=0)
        assert share is not None
        shown, total = merged.get(label.lower(), (label, 0.0))
        merged[label.lower()] = (shown, total + float(share))
    labels = [shown for shown, _ in merged.values()]
    amounts = [total for _, total in merged.values()]
    if sum(amounts) <= 0:
        return []
    weights = normalise_weights(amounts)
    return [{key: label, "share": float(w)} for label, w in zip(labels, weights, strict=True) if w > 0]


def _per_set(value: Any, sets: int | None, name: str, *, integer: bool) -> list[Any] | None:
    if value is None or value == []:
        return None
    values = value if isinstance(value, list) else [value] * (sets or 1)
    if sets is not None and len(values) not in (1, sets):
        raise RepositoryError(f"{name} needs one value per set ({sets}), got {len(values)}")
    if sets is not None and len(values) == 1:
        values = values * sets
    if integer:
        return [_int(v, name, 1, 100000) for v in values]
    return [decimal_number(v, name, minimum=0, maximum=10000) for v in values]


def _int(value: Any, name: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise RepositoryError(f"{name} must be a whole number")
    try:
        number = float(value)
    except ValueError:
        raise RepositoryError(f"{name} must be a whole number") from None
    if number != int(number) or not low <= number <= high:
        raise RepositoryError(f"{name} must be a whole number between {low} and {high}")
    return int(number)


def _text(value: Any, limit: int) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text[:limit] or None
