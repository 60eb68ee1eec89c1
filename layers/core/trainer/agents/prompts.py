"""Versioned prompts in Postgres: the latest row of `prompts` for a prompt id wins; the repo's file
`agents/prompts/<prompt_id>.md` is the default when the table has none (version 0). Every migrate seeds
the files' texts (trainer/store/prompt_files.py: a changed file becomes the next version), so a database
normally serves the file's text as version 1, 2... and an edited row (`publish`) supersedes it until the
file changes again."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from trainer.store.db import Database
from trainer.store.ports import DatabaseUnavailable
from trainer.store.prompt_files import read_prompt_files

log = logging.getLogger(__name__)

DEFAULT_TTL_S = 60.0


class PromptMissing(LookupError):
    """Neither the table nor the repo has the prompt."""


@dataclass(frozen=True)
class PromptVersion:
    prompt_id: str
    version: int
    body: str
    source: Literal["file", "edit", "default"]
    """`default`: the repo file, no row in the table; else the row's source (seeded from a file, edited)."""


class PromptStore:
    """Reads the latest version of a prompt; versions are cached `ttl_s` per process (0: never)."""

    def __init__(
        self,
        db: Database | None,
        *,
        defaults: Traversable | Path | None = None,
        ttl_s: float = DEFAULT_TTL_S,
    ) -> None:
        self._db = db
        self._defaults = read_prompt_files(defaults)
        self._ttl_s = ttl_s
        self._cache: dict[str, tuple[float, PromptVersion]] = {}

    @property
    def default_ids(self) -> list[str]:
        return sorted(self._defaults)

    def default(self, prompt_id: str) -> str | None:
        return self._defaults.get(prompt_id)

    async def get(self, prompt_id: str) -> PromptVersion:
        cached = self._cache.get(prompt_id)
        now = time.monotonic()
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        found = await self._latest(prompt_id)
        if found is None:
            body = self._defaults.get(prompt_id)
            if body is None:
                raise PromptMissing(f"no prompt {prompt_id!r} in the prompts table or the repo")
            found = PromptVersion(prompt_id, 0, body, "default")
        if self._ttl_s > 0:
            self._cache[prompt_id] = (now, found)
        return found

    async def _latest(self, prompt_id: str) -> PromptVersion | None:
        if self._db is None:
            return None
        try:
            async with self._db.connection() as conn:
                cursor = await conn.execute(
                    "SELECT version, body, source FROM prompts WHERE prompt_id = %s"
                    " ORDER BY version DESC LIMIT 1",
                    (prompt_id,),
                )
                row = await cursor.fetchone()
        except DatabaseUnavailable:
            log.warning("prompts table unreachable; using the repo's prompt %s", prompt_id)
            return None
        if row is None:
            return None
        return PromptVersion(prompt_id, int(row["version"]), str(row["body"]), row["source"])

    async def publish(self, prompt_id: str, body: str, *, note: str | None = None) -> int:
        """Stores `body` as the next version of the prompt (it wins from now on); returns the version."""
        if self._db is None:
            raise RuntimeError("publishing a prompt needs the database")
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "INSERT INTO prompts (prompt_id, version, body, source, note)"
                " SELECT %s, coalesce(max(version), 0) + 1, %s, 'edit', %s FROM prompts WHERE prompt_id = %s"
                " RETURNING version",
                (prompt_id, body, note, prompt_id),
            )
            row = await cursor.fetchone()
        self._cache.pop(prompt_id, None)
        assert row is not None
        return int(row["version"])
