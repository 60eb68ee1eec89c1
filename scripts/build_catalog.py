"""Build the compact exercise catalog shipped with the package.

Reads free-exercise-db (public domain) and writes two files: `catalog.json` with the structured fields
(name, muscles, equipment, level, mechanic, force, category), read by every workout and logging path,
and `instructions.json` with the instruction steps by exercise id, read only when an exercise is
explained (trainer.domain.catalog loads it lazily). Images are left out (not free).

    python scripts/build_catalog.py --source path/to/free-exercise-db/exercises.json
                                    [--out layers/core/trainer/domain/data/catalog.json]
                                    [--instructions-out layers/core/trainer/domain/data/instructions.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "layers" / "core" / "trainer" / "domain" / "data" / "catalog.json"
DEFAULT_INSTRUCTIONS_OUT = DEFAULT_OUT.with_name("instructions.json")
SOURCE = "free-exercise-db (public domain, github.com/yuhonas/free-exercise-db)"

MUSCLE_MAP: dict[str, str] = {
    "abdominals": "Abs", "abductors": "Abductors", "adductors": "Adductors", "biceps": "Biceps",
    "calves": "Calves", "chest": "Chest", "forearms": "Forearms", "glutes": "Glutes",
    "hamstrings": "Hamstrings", "lats": "Back", "lower back": "Lower Back", "middle back": "Back",
    "neck": "Neck", "quadriceps": "Quadriceps", "shoulders": "Shoulders", "traps": "Trapezius",
    "triceps": "Triceps",
}  # fmt: skip

EQUIPMENT_MAP: dict[str | None, list[str]] = {
    None: [], "body only": [], "barbell": ["barbell"], "dumbbell": ["dumbbell"], "cable": ["cable"],
    "machine": ["machine"], "kettlebells": ["kettlebell"], "bands": ["bands"],
    "medicine ball": ["medicine ball"], "exercise ball": ["exercise ball"], "foam roll": ["foam roll"],
    "e-z curl bar": ["ez curl bar"],
    "other": ["other"],
}  # fmt: skip

PRIMARY_SHARE = 0.6
"""With secondary muscles, the primary muscle takes 60% and the secondaries split the other 40%."""

_NEEDS_BENCH_FROM = {"barbell", "dumbbell", "e-z curl bar", "cable", "body only", None}
_BENCH_WORDS = re.compile(r"\b(bench|incline|decline|preacher)\b", re.I)
_NOT_BENCH = re.compile(r"no hyperextension bench|bench sprint|bench jump", re.I)
_PULL_UP = re.compile(r"pull-?ups?\b|chin-?ups?\b|\bchins?\b|hanging|muscle up|scapular pull", re.I)

EQUIPMENT_OVERRIDES: list[tuple[re.Pattern[str], list[str]]] = [
    (re.compile(r"^bench dips$", re.I), ["bench"]),
    (re.compile(r"^(dips - (chest|triceps) version|parallel bar dip|ring dips)$", re.I), ["dip station"]),
    (re.compile(r"knee/hip raise on parallel bars", re.I), ["dip station"]),
    (re.compile(r"^band assisted pull-up$", re.I), ["pull-up bar", "bands"]),
    (re.compile(r"treadmill", re.I), ["treadmill"]),
    (re.compile(r"^(bicycling, stationary|recumbent bike)$", re.I), ["stationary bike"]),
    (re.compile(r"^bicycling$", re.I), ["bicycle"]),
    (re.compile(r"^elliptical trainer$", re.I), ["elliptical"]),
    (re.compile(r"^rowing, stationary$", re.I), ["rowing machine"]),
    (re.compile(r"^(stairmaster|step mill)$", re.I), ["stair climber"]),
    (re.compile(r"^rope jumping$", re.I), ["jump rope"]),
    (re.compile(r"box (jump|skip)|^front box jump|^lateral box jump", re.I), ["box"]),
    (re.compile(r"^inverted row$", re.I), ["rack"]),
]
"""Exact equipment for exercises the source describes too coarsely (first match wins)."""


MUSCLE_OVERRIDES: dict[str, list[tuple[str, float]]] = {
    "Romanian Deadlift": [("Hamstrings", 0.5), ("Glutes", 0.35), ("Lower Back", 0.15)],
    "Barbell Squat": [("Quadriceps", 0.55), ("Glutes", 0.25), ("Adductors", 0.1), ("Lower Back", 0.1)],
    "Dumbbell Squat": [("Quadriceps", 0.55), ("Glutes", 0.25), ("Adductors", 0.1), ("Lower Back", 0.1)],
    "Smith Machine Squat": [("Quadriceps", 0.6), ("Glutes", 0.3), ("Adductors", 0.1)],
    "Goblet Squat": [("Quadriceps", 0.55), ("Glutes", 0.25), ("Adductors", 0.1), ("Abs", 0.1)],
    "Front Barbell Squat": [("Quadriceps", 0.6), ("Glutes", 0.2), ("Abs", 0.1), ("Lower Back", 0.1)],
    "Leg Press": [("Quadriceps", 0.6), ("Glutes", 0.3), ("Hamstrings", 0.1)],
    "Hack Squat": [("Quadriceps", 0.65), ("Glutes", 0.25), ("Adductors", 0.1)],
    "Dumbbell Lunges": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Dumbbell Rear Lunge": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Barbell Lunge": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Barbell Walking Lunge": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Bodyweight Walking Lunge": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Split Squats": [("Quadriceps", 0.5), ("Glutes", 0.35), ("Hamstrings", 0.15)],
    "Dumbbell Step Ups": [("Quadriceps", 0.5), ("Glutes", 0.4), ("Hamstrings", 0.1)],
    "Barbell Hip Thrust": [("Glutes", 0.7), ("Hamstrings", 0.3)],
    "Barbell Glute Bridge": [("Glutes", 0.7), ("Hamstrings", 0.3)],
    "Inverted Row": [("Back", 0.6), ("Biceps", 0.2), ("Shoulders", 0.2)],
    "Hammer Curls": [("Biceps", 0.6), ("Forearms", 0.4)],
}
"""Muscle shares for common exercises whose source muscles are wrong or misleading (a Romanian deadlift
does not train the calves; a split squat is a quadriceps and glute exercise, not a hamstring one);
the first muscle is the primary one. tests/unit/domain/test_catalog_muscles.py checks the packaged catalog."""


def derive_equipment(name: str, equipment: str | None) -> list[str]:
    for pattern, items in EQUIPMENT_OVERRIDES:
        if pattern.search(name):
            return sorted(items)
    items = list(EQUIPMENT_MAP.get(equipment, [equipment or "other"]))
    lowered = name.lower()
    machine_free = "machine" not in items and "smith" not in lowered and "leverage" not in lowered
    bar_exercise = equipment in ("body only", "other", None) and machine_free and "stretch" not in lowered
    bench_exercise = equipment in _NEEDS_BENCH_FROM and not _NOT_BENCH.search(name)
    if _PULL_UP.search(name) and bar_exercise:
        items = [i for i in items if i != "other"] + ["pull-up bar"]
    elif (_BENCH_WORDS.search(name) and bench_exercise) or re.search(r"step[- ]?ups?\b", name, re.I):
        items.append("bench")
    return sorted(set(items))


def derive_muscles(primary: list[str], secondary: list[str]) -> list[tuple[str, float]]:
    """Shares that sum to exactly 1.0: primary muscles share 60% (all of it without secondaries),
    secondary muscles split the rest; duplicates after mapping merge into the first occurrence."""
    prim = list(dict.fromkeys(MUSCLE_MAP[m] for m in primary))
    sec = [m for m in dict.fromkeys(MUSCLE_MAP[m] for m in secondary) if m not in prim]
    if not prim:
        raise ValueError("exercise without primary muscles")
    prim_total = PRIMARY_SHARE if sec else 1.0
    shares: list[tuple[str, float]] = [(m, round(prim_total / len(prim), 2)) for m in prim]
    shares += [(m, round((1.0 - prim_total) / len(sec), 2)) for m in sec]
    remainder = round(1.0 - sum(s for _, s in shares), 2)
    first, share = shares[0]
    shares[0] = (first, round(share + remainder, 2))
    return shares


def derive_entry(record: dict[str, Any]) -> dict[str, Any]:
    name = " ".join(str(record["name"]).split())
    muscles = MUSCLE_OVERRIDES.get(name) or derive_muscles(
        record.get("primaryMuscles") or [], record.get("secondaryMuscles") or []
    )
    return {
        "id": record.get("id") or re.sub(r"\W+", "_", name),
        "name": name,
        "muscles": [[m, s] for m, s in muscles],
        "equipment": derive_equipment(name, record.get("equipment")),
        "level": record.get("level") or "beginner",
        "mechanic": record.get("mechanic"),
        "force": record.get("force"),
        "category": record.get("category") or "strength",
    }


def build(records: list[dict[str, Any]]) -> dict[str, Any]:
    entries = sorted((derive_entry(r) for r in records), key=lambda e: e["name"].lower())
    return {
        "source": SOURCE,
        "fields": ["id", "name", "muscles", "equipment", "level", "mechanic", "force", "category"],
        "exercises": entries,
    }


TEXT_CORRECTIONS: dict[str, str] = {
    "A 150 lb person will burn over 450 calories running 8 miles per hour for 30 minutes.":
        "A 150 lb person will burn about 400 calories running 8 miles per hour for 30 minutes.",
    "A 150 lb person will burn almost 250 calories jogging for 30 minutes, compared to more than 450 "
    "calories running.":
        "A 150 lb person will burn almost 250 calories jogging for 30 minutes, compared to about 400 "
        "calories running at 8 miles per hour.",
    "A 150 lb person will burn about 230 calories cycling at a moderate rate for 30 minutes, compared to "
    "450 calories or more running.":
        "A 150 lb person will burn about 230 calories cycling at a moderate rate for 30 minutes, compared "
        "to about 400 calories running at 8 miles per hour.",
    "A 150 lb person will burn about 350 calories jumping rope for 30 minutes, compared to over 450 "
    "calories running.":
        "A 150 lb person will burn about 300 calories jumping rope slowly for 30 minutes and about 400 at "
        "a moderate pace, about what running at 8 miles per hour burns.",
    "If running the trail, a 150 lb person can burn well over 500 calories in 30 minutes.":
        "If running the trail, a 150 lb person can burn about 300 calories in 30 minutes.",
    "A 150 lb person will burn about 175 calories walking 4 miles per hour for 30 minutes, compared to 450 "
    "calories running twice as fast.":
        "A 150 lb person will burn about 175 calories walking 4 miles per hour for 30 minutes, compared to "
        "about 400 calories running twice as fast.",
}  # fmt: skip
"""The source's calorie figures the 2011 Compendium of Physical Activities (Ainsworth et al., Med Sci
Sports Exerc 43(8)) contradicts, corrected: kcal = METs x kg x hours, a 150 lb person is 68 kg, so 30
minutes of running at 8 mph (11.8 METs) is 401 kcal, jogging (7.0) 238, stationary cycling at a
moderate effort (6.8) 231, rope jumping slowly (8.8) 299 and at a moderate pace (11.8) 401,
cross-country running (9.0) 306, walking at 4 mph (5.0) 170."""


def derive_steps(record: dict[str, Any]) -> list[str]:
    """The instruction steps, whitespace collapsed, empty steps dropped, TEXT_CORRECTIONS applied."""
    steps = [" ".join(str(step).split()) for step in record.get("instructions") or [] if str(step).strip()]
    return [corrected(step) for step in steps]


def corrected(step: str) -> str:
    for wrong, right in TEXT_CORRECTIONS.items():
        step = step.replace(wrong, right)
    return step


def build_instructions(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Instruction steps by catalog id (the ids of `build`), for exercises that have any."""
    steps = {derive_entry(r)["id"]: derive_steps(r) for r in records}
    return {"source": SOURCE, "instructions": {k: v for k, v in sorted(steps.items()) if v}}


def render_instructions(data: dict[str, Any]) -> str:
    """One exercise per line, like the catalog."""
    lines = [
        f"{json.dumps(k, ensure_ascii=False)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
        for k, v in data["instructions"].items()
    ]
    head = json.dumps({"source": data["source"]}, ensure_ascii=False, separators=(",", ":"))[:-1]
    return f'{head},"instructions":{{\n' + ",\n".join(lines) + "\n}}\n"


def render(catalog: dict[str, Any]) -> str:
    """One exercise per line: small, stable, reviewable diffs."""
    head = {k: v for k, v in catalog.items() if k != "exercises"}
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in catalog["exercises"]]
    body = ",\n".join(lines)
    header = json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1]
    return f'{header},"exercises":[\n{body}\n]}}\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--source", type=Path, required=True, help=f"exercises.json of a checkout of {SOURCE}"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--instructions-out", type=Path, default=DEFAULT_INSTRUCTIONS_OUT)
    args = parser.parse_args(argv)
    if not args.source.exists():
        print(f"source not found: {args.source}", file=sys.stderr)
        return 1
    records = json.loads(args.source.read_text(encoding="utf-8"))
    catalog = build(records)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(catalog), encoding="utf-8")
    print(f"wrote {len(catalog['exercises'])} exercises to {args.out}")
    instructions = build_instructions(records)
    args.instructions_out.parent.mkdir(parents=True, exist_ok=True)
    args.instructions_out.write_text(render_instructions(instructions), encoding="utf-8")
    print(f"wrote instructions for {len(instructions['instructions'])} exercises to {args.instructions_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
