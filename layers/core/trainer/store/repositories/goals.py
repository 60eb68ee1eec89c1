"""category_goals and muscle_goals. Setting goals replaces the set; weights are normalised to sum to 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from trainer.domain.muscles import canonical_muscle
from trainer.store.repositories import Conn, RepositoryError, UserId

WEIGHT_PLACES = 5
_QUANTUM = Decimal(1).scaleb(-WEIGHT_PLACES)


def normalise_weights(percentages: Sequence[float]) -> list[Decimal]:
    """Scale non-negative numbers to fractions with 5 decimals that sum to exactly 1 (largest remainder)."""
    if not percentages:
        return []
    values = [Decimal(str(p)) for p in percentages]
    if any(not v.is_finite() or v < 0 for v in values):
        raise RepositoryError("percentages must be non-negative numbers")
    total = sum(values, Decimal(0))
    if total == 0:
        raise RepositoryError("percentages must not all be zero")
    exact = [v / total for v in values]
    floored = [e.quantize(_QUANTUM, rounding=ROUND_FLOOR) for e in exact]
    missing = int((Decimal(1) - sum(floored, Decimal(0))) / _QUANTUM)
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - floored[i]), i))
    for i in by_remainder[:missing]:
        floored[i] += _QUANTUM
    return floored


async def list_category_goals(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    cur = await conn.execute(
        "SELECT category, description, weight FROM category_goals WHERE user_id = %s"
        " ORDER BY weight DESC, lower(category)",
        (user_id,),
    )
    return await cur.fetchall()


async def list_muscle_goals(conn: Conn, user_id: UserId) -> list[dict[str, Any]]:
    cur = await conn.execute(
        "SELECT muscle, weight FROM muscle_goals WHERE user_id = %s ORDER BY weight DESC, muscle", (user_id,)
    )
    return await cur.fetchall()


async def set_category_goals(
    conn: Conn, user_id: UserId, goals: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Replace the category goals with [{category, description?, percentage}] (normalised to 100%)."""
    if not goals:
        raise RepositoryError("give at least one category goal")
    names: list[str] = []
    seen: set[str] = set()
    for goal in goals:
        name = str(goal.get("category") or "").strip()
        if not 1 <= len(name) <= 80:
            raise RepositoryError("each category goal needs a category name of 1-80 characters")
        if name.lower() in seen:
            raise RepositoryError(f"category {name!r} is listed twice")
        seen.add(name.lower())
        names.append(name)
    weights = normalise_weights([_percentage(g.get("percentage"), g.get("category")) for g in goals])
    rows = [
        (user_id, name, _description(goal.get("description")), weight)
        for name, goal, weight in zip(names, goals, weights, strict=True)
    ]
    async with conn.transaction():
        await conn.execute("DELETE FROM category_goals WHERE user_id = %s", (user_id,))
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO category_goals (user_id, category, description, weight) VALUES (%s, %s, %s, %s)",
                rows,
            )
    return await list_category_goals(conn, user_id)


async def set_muscle_goals(conn: Conn, user_id: UserId, goals: Mapping[str, float]) -> list[dict[str, Any]]:
    """Replace the muscle goals with {muscle: percentage} (16 canonical names; normalised to 100%)."""
    if not goals:
        raise RepositoryError("give at least one muscle goal")
    muscles: list[str] = []
    for raw in goals:
        muscle = canonical_muscle(str(raw))
        if muscle is None:
            raise RepositoryError(f"{str(raw)[:40]!r} is not one of the 16 muscles")
        if muscle in muscles:
            raise RepositoryError(f"muscle {muscle} is listed twice")
        muscles.append(muscle)
    weights = normalise_weights([_percentage(v, k) for k, v in goals.items()])
    async with conn.transaction():
        await conn.execute("DELETE FROM muscle_goals WHERE user_id = %s", (user_id,))
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO muscle_goals (user_id, muscle, weight) VALUES (%s, %s, %s)",
                [(user_id, m, w) for m, w in zip(muscles, weights, strict=True)],
            )
    return await list_muscle_goals(conn, user_id)


def _percentage(value: Any, name: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise RepositoryError(f"percentage of {str(name)[:40]!r} must be a number")
    try:
        number = float(value)
    except ValueError:
        raise RepositoryError(f"percentage of {str(name)[:40]!r} must be a number") from None
    if not 0 <= number <= 1000:
        raise RepositoryError(f"percentage of {str(name)[:40]!r} must be between 0 and 100")
    return number


def _description(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text[:500] or None
