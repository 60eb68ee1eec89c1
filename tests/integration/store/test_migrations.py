"""Versioned migrations: applied once, idempotent, concurrency-safe, tamper-evident (a text replaced on
purpose names the checksum it replaced); constraints hold."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from trainer.store.db import POOLER_SAFE
from trainer.store.migrate import MigrationError, apply_migrations, load_migrations


def fresh_database(pg_url: str) -> str:
    name = f"mig_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(pg_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def test_apply_twice_applies_each_file_once(pg_url: str) -> None:
    url = fresh_database(pg_url)
    first = apply_migrations(url)
    second = apply_migrations(url)
    assert first == [m.name for m in load_migrations()]
    assert first[0] == "0001_domain.sql"
    assert second == []
    with psycopg.connect(url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert versions == [m.version for m in load_migrations()]
    assert {
        "users", "user_settings", "user_locations", "category_goals", "muscle_goals", "preferences",
        "workout_history", "exercise_distribution_tracking", "exercise_distribution_totals",
        "scheduled_workouts", "workout_plans", "milestone_goals",
    } <= tables  # fmt: skip


def test_concurrent_runners_apply_once(pg_url: str) -> None:
    url = fresh_database(pg_url)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(apply_migrations, [url] * 4))
    applied = [name for result in results for name in result]
    assert sorted(applied) == sorted(m.name for m in load_migrations())


def test_changed_applied_migration_is_refused(pg_url: str) -> None:
    url = fresh_database(pg_url)
    apply_migrations(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = '0001'")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        apply_migrations(url)


def test_a_replaced_text_is_accepted_where_the_text_it_replaced_was_applied(pg_url: str) -> None:
    """The migrations that once held prompt copies were emptied; the databases that ran the copies
    recorded those texts' checksums, which the emptied files name."""
    url = fresh_database(pg_url)
    apply_migrations(url)
    replaced = {m.version: m.accepted_checksums - {m.checksum} for m in load_migrations()}
    replaced = {version: checksums for version, checksums in replaced.items() if checksums}
    assert {"0004", "0010", "0014", "0018", "0019", "0020"} <= set(replaced)
    with psycopg.connect(url, **POOLER_SAFE) as conn:
        for version, checksums in replaced.items():
            conn.execute(
                "UPDATE schema_migrations SET checksum = %s WHERE version = %s", (min(checksums), version)
            )
    assert apply_migrations(url) == []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = '0010'")
    with pytest.raises(MigrationError, match=r"0010_chat_prompt\.sql was changed after it was applied"):
        apply_migrations(url)


def _user(conn: psycopg.Connection) -> str:
    user_id = str(uuid.uuid4())
    conn.execute("INSERT INTO users (id) VALUES (%s)", (user_id,))
    return user_id


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO user_settings (user_id, weight_unit) VALUES (%(u)s, 'stone')",
        "INSERT INTO user_settings (user_id, distance_unit) VALUES (%(u)s, 'yards')",
        "INSERT INTO muscle_goals (user_id, muscle, weight) VALUES (%(u)s, 'Pecs', 0.5)",
        "INSERT INTO muscle_goals (user_id, muscle, weight) VALUES (%(u)s, 'Chest', 1.5)",
        "INSERT INTO category_goals (user_id, category, weight) VALUES (%(u)s, 'Strength', -0.1)",
        "INSERT INTO preferences (user_id, type, description) VALUES (%(u)s, 'mood', 'x')",
        "INSERT INTO workout_history (user_id, exercise_name, exercise_type) VALUES (%(u)s, 'Run', 'cardio')",
        "INSERT INTO workout_history (user_id, exercise_name, exercise_type, rpe)"
        " VALUES (%(u)s, 'Run', 'duration', 11)",
        "INSERT INTO workout_history (user_id, exercise_name, exercise_type, load_each)"
        " VALUES (%(u)s, 'Curl', 'reps', '{10}')",
        "INSERT INTO scheduled_workouts (user_id, scheduled_date, workout_type, status)"
        " VALUES (%(u)s, now(), 'Run', 'maybe')",
        "INSERT INTO milestone_goals (user_id, goal_name, status) VALUES (%(u)s, '5K', 'achieved')",
        "INSERT INTO user_locations (user_id, name) VALUES (%(u)s, '   ')",
    ],
)
def test_constraints_reject_bad_rows(pg_url: str, statement: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        user_id = _user(conn)
        with pytest.raises(psycopg.errors.IntegrityError):
            conn.execute(statement.encode(), {"u": user_id})


def test_one_current_location_and_unique_names(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        user_id = _user(conn)
        conn.execute(
            "INSERT INTO user_locations (user_id, name, is_current) VALUES (%s, 'Home', true)", (user_id,)
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO user_locations (user_id, name, is_current) VALUES (%s, 'Gym', true)", (user_id,)
            )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO user_locations (user_id, name) VALUES (%s, 'HOME')", (user_id,))


def test_plan_reference_cannot_cross_users(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        owner, other = _user(conn), _user(conn)
        plan = conn.execute(
            "INSERT INTO workout_plans (user_id, plan_name, start_date, end_date, duration_weeks)"
            " VALUES (%s, 'P', '2026-01-01', '2026-01-28', 4) RETURNING id",
            (owner,),
        ).fetchone()
        assert plan is not None
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO scheduled_workouts (user_id, scheduled_date, workout_type, plan_id)"
                " VALUES (%s, now(), 'Run', %s)",
                (other, plan[0]),
            )
        row = conn.execute(
            "INSERT INTO scheduled_workouts (user_id, scheduled_date, workout_type, plan_id)"
            " VALUES (%s, now(), 'Run', %s) RETURNING id",
            (owner, plan[0]),
        ).fetchone()
        assert row is not None
        conn.execute("DELETE FROM workout_plans WHERE id = %s", (plan[0],))
        kept = conn.execute(
            "SELECT user_id, plan_id FROM scheduled_workouts WHERE id = %s", (row[0],)
        ).fetchone()
        assert kept == (uuid.UUID(owner), None)


def test_deleting_a_user_cascades(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        user_id = _user(conn)
        conn.execute("INSERT INTO user_settings (user_id) VALUES (%s)", (user_id,))
        conn.execute(
            "INSERT INTO workout_history (user_id, exercise_name, exercise_type)"
            " VALUES (%s, 'Run', 'duration')",
            (user_id,),
        )
        conn.execute("DELETE FROM users WHERE id = %s", (user_id,))
        left = conn.execute(
            "SELECT (SELECT count(*) FROM user_settings WHERE user_id = %s)"
            " + (SELECT count(*) FROM workout_history WHERE user_id = %s)",
            (user_id, user_id),
        ).fetchone()
    assert left == (0,)


def test_device_rows_that_spell_one_token_two_ways_become_the_latest_owners_one_row(pg_url: str) -> None:
    """0022: an APNs token in uppercase, or as `apns_sandbox`, is the phone its latest registration
    names; the rows before are dropped, the token is lowercased, and no second spelling can come back."""
    url = fresh_database(pg_url)
    token, alone, fcm = "ab" * 32, "cd" * 32, "instance:APA91b" + "Xy" * 40
    with psycopg.connect(url, autocommit=True) as conn:
        for migration in load_migrations():
            if migration.version < "0022":
                conn.execute(migration.sql.encode())
        first, second, third = _user(conn), _user(conn), _user(conn)
        for user_id, platform, value, days_ago in (
            (first, "apns", token.upper(), 3),
            (second, "apns_sandbox", token, 1),
            (first, "apns", token, 2),
            (third, "apns", alone.upper(), 5),
            (third, "fcm", fcm, 5),
        ):
            conn.execute(
                "INSERT INTO devices (user_id, platform, token, registered_at)"
                " VALUES (%s, %s, %s, now() - make_interval(days => %s))",
                (user_id, platform, value, days_ago),
            )
        (identity,) = [m for m in load_migrations() if m.version == "0022"]
        conn.execute(identity.sql.encode())

        rows = conn.execute("SELECT user_id::text, platform, token FROM devices ORDER BY token").fetchall()
        assert rows == [(second, "apns_sandbox", token), (third, "apns", alone), (third, "fcm", fcm)]
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "INSERT INTO devices (user_id, platform, token) VALUES (%s, 'apns', %s)", (first, alone)
            )
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO devices (user_id, platform, token) VALUES (%s, 'apns', %s)", (first, "EF" * 32)
            )
