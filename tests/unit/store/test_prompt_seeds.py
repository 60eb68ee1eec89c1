"""The repo's prompt files are seeded into `prompts` by migrations (scripts/prompt_migration.py)."""

from __future__ import annotations

from scripts.prompt_migration import SEED, migration_sql, stale_prompts


def test_every_prompt_file_is_seeded_by_a_migration() -> None:
    stale = stale_prompts()
    assert not stale, (
        f"prompt files not seeded: {', '.join(stale)}; run .venv/bin/python scripts/prompt_migration.py"
    )


def test_the_generated_seed_reads_back_exactly() -> None:
    prompts = {"plan": "Use $prompt$ and 'quotes'.\n$$\n", "message": "Short.\n"}
    sql = migration_sql(prompts)
    assert {pid: body for pid, _, body in SEED.findall(sql)} == prompts
