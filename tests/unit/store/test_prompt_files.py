"""The prompt files are the prompts' source (trainer/store/prompt_files.py): read as stored, and never
copied into a migration (every migrate seeds them; tests/integration/store/test_prompt_seeds.py)."""

from __future__ import annotations

from pathlib import Path

from trainer.store.migrate import load_migrations
from trainer.store.prompt_files import read_prompt_files


def test_the_prompt_files_are_read_by_id_with_one_trailing_newline(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("Plan the week.\n\n\n", encoding="utf-8")
    (tmp_path / "message.md").write_text("Écris court 💪", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a prompt", encoding="utf-8")
    (tmp_path / "drafts.md").mkdir()
    assert read_prompt_files(tmp_path) == {"plan": "Plan the week.\n", "message": "Écris court 💪\n"}
    assert read_prompt_files(tmp_path / "missing") == {}


def test_every_agent_prompt_ships_as_a_file() -> None:
    assert {
        "chat",
        "fitness_plan",
        "microcycle",
        "week_messages",
        "workout_message",
        "workout_structure",
    } <= set(read_prompt_files())


def test_no_migration_holds_a_prompt_text() -> None:
    """A prompt change is a diff of its file: a migration that copied a prompt's text in would be a
    second source for it (and a whole copy per change)."""
    openings = {prompt_id: text.splitlines()[0] for prompt_id, text in read_prompt_files().items()}
    copies = [
        (migration.name, prompt_id)
        for migration in load_migrations()
        for prompt_id, opening in openings.items()
        if opening in migration.sql
    ]
    assert not copies, f"migrations holding prompt texts: {copies}"
