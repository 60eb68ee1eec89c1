"""The prompt files seed the versioned `prompts` table at every migrate (trainer/store/prompt_files.py),
on embedded Postgres: a file's text becomes a version when its hash differs from the latest version
seeded from a file, so the same file twice adds nothing, a changed file adds the next version (which
supersedes an operator's edit), and every version keeps its content hash."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import Any

import psycopg
from trainer.agents import PromptStore
from trainer.store.db import POOLER_SAFE, Database
from trainer.store.migrate import apply_migrations, load_migrations
from trainer.store.prompt_files import content_hash, read_prompt_files

from tests.integration.store.test_migrations import fresh_database


def prompt_id() -> str:
    return f"seed_{uuid.uuid4().hex[:12]}"


def versions(url: str, prompt: str) -> list[tuple[int, str, str, str]]:
    """(version, source, body, content_hash) of every version of the prompt, oldest first."""
    with psycopg.connect(url, **POOLER_SAFE) as conn:
        rows = conn.execute(
            "SELECT version, source, body, content_hash FROM prompts WHERE prompt_id = %s ORDER BY version",
            (prompt,),
        ).fetchall()
    return [(int(v), str(s), str(b), str(h)) for v, s, b, h in rows]


async def migrate(url: str, prompts: Mapping[str, str]) -> list[str]:
    return await asyncio.to_thread(apply_migrations, url, prompts)


def test_a_fresh_database_holds_each_prompt_file_once_as_version_1(pg_url: str) -> None:
    url = fresh_database(pg_url)
    apply_migrations(url)
    files = read_prompt_files()
    assert files
    for prompt, text in files.items():
        assert versions(url, prompt) == [(1, "file", text, content_hash(text))], prompt


async def test_the_same_file_twice_adds_no_version(pg_url: str) -> None:
    prompt = prompt_id()
    await migrate(pg_url, {prompt: "Plan the week.\n"})
    await migrate(pg_url, {prompt: "Plan the week.\n"})
    assert versions(pg_url, prompt) == [(1, "file", "Plan the week.\n", content_hash("Plan the week.\n"))]


async def test_a_changed_file_becomes_the_next_version(db: Database, pg_url: str) -> None:
    prompt = prompt_id()
    await migrate(pg_url, {prompt: "Plan the week.\n"})
    await migrate(pg_url, {prompt: "Plan the week, in the user's words.\n"})
    assert [(v, s, b) for v, s, b, _ in versions(pg_url, prompt)] == [
        (1, "file", "Plan the week.\n"),
        (2, "file", "Plan the week, in the user's words.\n"),
    ]
    latest = await PromptStore(db, ttl_s=0).get(prompt)
    assert (latest.version, latest.body) == (2, "Plan the week, in the user's words.\n")


async def test_an_edit_stands_until_its_file_changes(db: Database, pg_url: str) -> None:
    prompt = prompt_id()
    store = PromptStore(db, ttl_s=0)
    await migrate(pg_url, {prompt: "From the file.\n"})
    assert await store.publish(prompt, "An operator's wording.") == 2
    await migrate(pg_url, {prompt: "From the file.\n"})
    assert ((await store.get(prompt)).version, (await store.get(prompt)).source) == (2, "edit")
    await migrate(pg_url, {prompt: "From the changed file.\n"})
    latest = await store.get(prompt)
    assert (latest.version, latest.source, latest.body) == (3, "file", "From the changed file.\n")


async def test_a_file_changed_back_is_seeded_again(pg_url: str) -> None:
    prompt = prompt_id()
    for text in ("First.\n", "Second.\n", "First.\n"):
        await migrate(pg_url, {prompt: text})
    assert [(v, b) for v, _, b, _ in versions(pg_url, prompt)] == [
        (1, "First.\n"),
        (2, "Second.\n"),
        (3, "First.\n"),
    ]


async def test_every_version_keeps_its_content_hash_as_python_computes_it(db: Database, pg_url: str) -> None:
    prompt = prompt_id()
    text = "Écris court, sans chiffres inventés — 💪\n"
    await migrate(pg_url, {prompt: text})
    await PromptStore(db, ttl_s=0).publish(prompt, "Édité.")
    assert [h for _, _, _, h in versions(pg_url, prompt)] == [content_hash(text), content_hash("Édité.")]


def test_a_database_migrated_before_the_prompt_files_seeded_themselves_keeps_its_versions(
    pg_url: str,
) -> None:
    """A database whose migrations seeded whole copies (the earlier texts of the migrations that now say
    which text they replace) and had no content hashes yet: migrating adds the hashes and seeds nothing
    while the files match the versions it already has."""
    url = fresh_database(pg_url)
    apply_migrations(url)
    replaced = {m.version: sorted(m.accepted_checksums - {m.checksum}) for m in load_migrations()}
    hashing = next(m for m in load_migrations() if m.name == "0021_prompt_content_hash.sql")
    with psycopg.connect(url, **POOLER_SAFE) as conn:
        for version, checksums in replaced.items():
            if checksums:
                conn.execute(
                    "UPDATE schema_migrations SET checksum = %s WHERE version = %s", (checksums[0], version)
                )
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (hashing.version,))
        conn.execute("ALTER TABLE prompts DROP COLUMN content_hash")
        conn.execute("DROP FUNCTION trainer_content_hash(text)")
        before: list[Any] = conn.execute(
            "SELECT prompt_id, version, body FROM prompts ORDER BY 1, 2"
        ).fetchall()
    assert any(replaced.values()), "the migrations that held prompt copies name the texts they replace"

    assert apply_migrations(url) == [hashing.name]
    with psycopg.connect(url, **POOLER_SAFE) as conn:
        after = conn.execute(
            "SELECT prompt_id, version, body, content_hash FROM prompts ORDER BY 1, 2"
        ).fetchall()
    assert [row[:3] for row in after] == before
    assert all(row[3] == content_hash(row[2]) for row in after)
