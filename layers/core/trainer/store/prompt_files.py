"""The prompt files, and how they seed the versioned `prompts` table.

Each agent's prompt is a file in the package, `trainer/agents/prompts/<prompt_id>.md`: a prompt change is
a diff of that file, and its history is the file's history in git. The `prompts` table (migration 0002)
holds every version a database has served, each with its `content_hash` (the sha256 of its UTF-8 text,
hex; a column Postgres computes, migration 0021). Its rows come from two places (`source`): `file`, the
prompt files as `seed_prompts` writes them, and `edit`, an operator's text (`PromptStore.publish`).

`seed_prompts` runs at the end of every migrate (`trainer.store.migrate.apply_migrations`: the deployed
MigrateFunction, `make run`, the test fixtures). For each file it compares the file's hash with the
latest version seeded from a file: the same hash adds nothing, so an operator's edit stands until the
file changes; a different one (a changed file, or one changed back to an earlier text) becomes the
next version, which supersedes any edit. A prompt with no row at all is served from its file as
version 0 (`PromptStore`).

The files sit beside the agents that use them; they are read here as package data, through the
`trainer` package, so migrating imports none of the agents' code.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import tuple_row

log = logging.getLogger(__name__)

PROMPT_SUFFIX = ".md"


def packaged_prompts() -> Traversable:
    """trainer/agents/prompts, where the prompt files ship."""
    return resources.files("trainer") / "agents" / "prompts"


def read_prompt_files(directory: Traversable | Path | None = None) -> dict[str, str]:
    """The prompt files by prompt id (their text as stored, trailing whitespace trimmed)."""
    folder = directory if directory is not None else packaged_prompts()
    if not folder.is_dir():
        return {}
    found: dict[str, str] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(PROMPT_SUFFIX) and entry.is_file():
            found[entry.name.removesuffix(PROMPT_SUFFIX)] = entry.read_text(encoding="utf-8").rstrip() + "\n"
    return found


def content_hash(body: str) -> str:
    """The sha256 of the text's UTF-8 bytes, hex: what the table's `content_hash` column holds."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SeededPrompt:
    """A version `seed_prompts` added."""

    prompt_id: str
    version: int
    content_hash: str


def seed_prompts(conn: psycopg.Connection[Any], prompts: Mapping[str, str]) -> list[SeededPrompt]:
    """Adds each prompt whose hash differs from its latest file-seeded version as its next version;
    returns what it added. Run it inside the migration lock's transaction (one writer at a time)."""
    seeded: list[SeededPrompt] = []
    cursor = conn.cursor(row_factory=tuple_row)
    for prompt_id, body in sorted(prompts.items()):
        digest = content_hash(body)
        latest = cursor.execute(
            "SELECT content_hash FROM prompts WHERE prompt_id = %s AND source = 'file'"
            " ORDER BY version DESC LIMIT 1",
            (prompt_id,),
        ).fetchone()
        if latest is not None and latest[0] == digest:
            continue
        row = cursor.execute(
            "INSERT INTO prompts (prompt_id, version, body, source)"
            " SELECT %s, coalesce(max(version), 0) + 1, %s, 'file' FROM prompts WHERE prompt_id = %s"
            " RETURNING version, content_hash",
            (prompt_id, body, prompt_id),
        ).fetchone()
        assert row is not None
        if row[1] != digest:
            raise RuntimeError(f"the database hashed prompt {prompt_id!r} differently: {row[1]} != {digest}")
        seeded.append(SeededPrompt(prompt_id, int(row[0]), digest))
        log.info("prompt %s: version %d seeded from its file (%s)", prompt_id, row[0], digest[:12])
    return seeded
