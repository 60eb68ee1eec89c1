import json
from importlib import resources

import pytest
from trainer.domain.catalog import load_catalog
from trainer.domain.muscles import MUSCLES
from trainer.domain.workout import Exercise

from scripts.build_catalog import derive_entry, derive_equipment, derive_muscles


def test_packaged_catalog_is_compact_and_complete() -> None:
    raw = json.loads(resources.files("trainer.domain").joinpath("data/catalog.json").read_text())
    assert len(raw["exercises"]) == 873
    assert all(
        set(e) == {"id", "name", "muscles", "equipment", "level", "mechanic", "force", "category"}
        for e in raw["exercises"]
    )


def test_every_entry_becomes_a_valid_exercise() -> None:
    for entry in load_catalog().entries:
        assert {m for m, _ in entry.muscles} <= set(MUSCLES)
        Exercise.model_validate(
            {
                "exercise_name": entry.name,
                "exercise_type": "reps",
                "order": 1,
                "sets": 1,
                "reps": [5],
                "rest_sec": 0,
                "muscles_utilized": [{"muscle": m, "share": s} for m, s in entry.muscles],
                "goals_addressed": [{"goal": "Strength", "share": 1}],
                "reasoning": "r",
                "equipment": list(entry.equipment),
            }
        )


def test_muscle_map_and_shares() -> None:
    assert derive_muscles(["lats"], ["middle back", "biceps"]) == [("Back", 0.6), ("Biceps", 0.4)]
    assert derive_muscles(["abdominals"], []) == [("Abs", 1.0)]
    shares = derive_muscles(["traps"], ["shoulders", "neck", "forearms"])
    assert shares[0][0] == "Trapezius" and shares[0][1] >= 0.6 and [s for _, s in shares[1:]] == [0.13] * 3
    assert sum(s for _, s in shares) == pytest.approx(1.0)


def test_equipment_overrides() -> None:
    assert derive_equipment("Barbell Bench Press - Medium Grip", "barbell") == ["barbell", "bench"]
    assert derive_equipment("Pullups", "body only") == ["pull-up bar"]
    assert derive_equipment("Chin-Up", "body only") == ["pull-up bar"]
    assert derive_equipment("Dips - Triceps Version", "body only") == ["dip station"]
    assert derive_equipment("Bench Dips", "body only") == ["bench"]
    assert derive_equipment("Pushups", "body only") == []
    assert derive_equipment("Chin To Chest Stretch", None) == []


def test_derive_entry_drops_instructions_and_images() -> None:
    entry = derive_entry(
        {
            "name": "Plank",
            "primaryMuscles": ["abdominals"],
            "secondaryMuscles": [],
            "equipment": "body only",
            "level": "beginner",
            "mechanic": "isolation",
            "force": "static",
            "category": "strength",
            "instructions": ["..."],
            "images": ["a.jpg"],
            "id": "Plank",
        }
    )
    assert "instructions" not in entry and "images" not in entry and entry["equipment"] == []


def test_search_get_and_filters() -> None:
    catalog = load_catalog()
    assert load_catalog() is catalog
    assert catalog.get("pullups") is not None
    assert catalog.search("barbell squat")[0].name == "Barbell Squat"
    home = catalog.filter(equipment={"bodyweight", "dumbbell"}, muscle="chest")
    assert home and all(set(e.equipment) <= {"dumbbell"} and e.share_of("Chest") > 0 for e in home)
    assert all(e.primary_muscle == "Back" for e in catalog.filter(muscle="Back", primary_only=True))
    with pytest.raises(ValueError, match="unknown muscle"):
        catalog.filter(muscle="wings")
