"""Writes the migration that seeds the repo's prompt files into the `prompts` table.

`layers/core/trainer/agents/prompts/<prompt_id>.md` are the prompts' defaults; migrations seed them with
`SELECT trainer_seed_prompt('<id>', $tag$<text>$tag$);` (a new version when the text changed). This
script compares each file with the last text the migrations seed for it and writes one migration
seeding every file that differs; `--check` only reports them (exit 1), as the unit test does.

    .venv/bin/python scripts/prompt_migration.py [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "core"))

from trainer.agents.prompts import read_prompt_files  # noqa: E402
from trainer.store.migrate import load_migrations  # noqa: E402

MIGRATIONS = ROOT / "layers" / "core" / "trainer" / "store" / "migrations"
SEED = re.compile(r"trainer_seed_prompt\('([a-z][a-z0-9_]*)',\s*\$([a-z_]*)\$(.*?)\$\2\$\)", re.DOTALL)


def seeded_prompts() -> dict[str, str]:
    """The last text the migrations seed for each prompt id."""
    seeded: dict[str, str] = {}
    for migration in load_migrations():
        for prompt_id, _, body in SEED.findall(migration.sql):
            seeded[prompt_id] = body
    return seeded


def stale_prompts() -> dict[str, str]:
    """Prompt files whose text no migration seeds yet, by prompt id."""
    seeded = seeded_prompts()
    return {pid: text for pid, text in sorted(read_prompt_files().items()) if seeded.get(pid) != text}


def _tag(body: str) -> str:
    tag = "prompt"
    while f"${tag}$" in body:
        tag += "_"
    return tag


def migration_sql(prompts: dict[str, str]) -> str:
    lines = ["-- Seeds the prompt files' current texts (scripts/prompt_migration.py; do not edit).", ""]
    for prompt_id, body in prompts.items():
        tag = _tag(body)
        lines.append(f"SELECT trainer_seed_prompt('{prompt_id}', ${tag}${body}${tag}$);")
    return "\n".join(lines) + "\n"


def write_migration(prompts: dict[str, str]) -> Path:
    version = max((int(m.version) for m in load_migrations()), default=0) + 1
    path = MIGRATIONS / f"{version:04d}_prompts.sql"
    path.write_text(migration_sql(prompts), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only list the prompts a migration must seed")
    args = parser.parse_args(argv)
    stale = stale_prompts()
    if not stale:
        print("every prompt file is seeded by the migrations")
        return 0
    if args.check:
        print("prompts not seeded: " + ", ".join(stale), file=sys.stderr)
        return 1
    print(f"wrote {write_migration(stale).relative_to(ROOT)} seeding {', '.join(stale)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
