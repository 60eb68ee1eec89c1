"""A movement restriction the user stated ('please, nothing with jumps') holds in the plan's weeks too:
the plan's exercise selection reads the same preference constraints as the workout composer."""

from __future__ import annotations

from trainer.domain.catalog import CatalogEntry, load_catalog
from trainer.programs.selection import allowed, constraints_for


def entry(name: str) -> CatalogEntry:
    return next(e for e in load_catalog().entries if e.name == name)


def test_the_plans_weeks_leave_out_what_a_restriction_rules_out() -> None:
    said = {"type": "other", "description": "please, nothing with jumps, my knees are shot"}
    rules = constraints_for([], [said], "intermediate", permanent_only=True)
    assert not allowed(entry("Knee Tuck Jump"), rules)
    assert not allowed(entry("Freehand Jump Squat"), rules)
    assert allowed(entry("Bodyweight Squat"), rules)


def test_without_the_restriction_the_jumps_are_allowed() -> None:
    rules = constraints_for([], [], "intermediate", permanent_only=True)
    assert allowed(entry("Knee Tuck Jump"), rules)
