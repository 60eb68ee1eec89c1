"""The packaged exercise catalog (derived from free-exercise-db by scripts/build_catalog.py).

The structured fields (catalog.json, 200 KB) are parsed once per process for every workout and logging
path; the instruction steps (instructions.json, 600 KB) only when an exercise is explained."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

from trainer.domain.equipment import missing_equipment
from trainer.domain.muscles import canonical_muscle

LEVELS: tuple[str, ...] = ("beginner", "intermediate", "expert")


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    name: str
    muscles: tuple[tuple[str, float], ...]
    """(muscle, share) with the primary muscle first; shares sum to 1.0."""
    equipment: tuple[str, ...]
    """Canonical equipment names, all required; () for bodyweight."""
    level: str
    mechanic: str | None
    force: str | None
    category: str

    @cached_property
    def primary_muscle(self) -> str:
        return max(self.muscles, key=lambda m: m[1])[0]

    def share_of(self, muscle: str) -> float:
        return next((s for m, s in self.muscles if m == muscle), 0.0)

    def worked_muscles(self, threshold: float) -> set[str]:
        return {m for m, s in self.muscles if s >= threshold}


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


class Catalog:
    def __init__(self, entries: Iterable[CatalogEntry]) -> None:
        self.entries: tuple[CatalogEntry, ...] = tuple(entries)
        self._by_key = {_key(e.name): e for e in self.entries}

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, name: str) -> CatalogEntry | None:
        """Exact lookup, ignoring case and punctuation."""
        return self._by_key.get(_key(name))

    def search(self, query: str, limit: int = 10) -> list[CatalogEntry]:
        """Entries whose name contains every word of the query (a trailing plural 's' is ignored),
        exact matches first, then shorter names."""
        words = [w.rstrip("s") if len(w) > 3 else w for w in _key(query).split()]
        if not words:
            return []
        exact = _key(query)
        hits = [e for e in self.entries if all(w in _key(e.name) for w in words)]
        hits.sort(key=lambda e: (_key(e.name) != exact, len(e.name), e.name))
        return hits[:limit]

    def filter(
        self,
        *,
        equipment: Iterable[str] | None = None,
        muscle: str | None = None,
        primary_only: bool = False,
        categories: Iterable[str] | None = None,
        max_level: str | None = None,
    ) -> list[CatalogEntry]:
        """Entries doable with `equipment` (None: any), working `muscle`, in `categories`,
        at or below `max_level`."""
        available = set(equipment) if equipment is not None else None
        wanted = canonical_muscle(muscle) if muscle else None
        if muscle and wanted is None:
            raise ValueError(f"unknown muscle '{muscle}'")
        cats = set(categories) if categories is not None else None
        level_rank = LEVELS.index(max_level) if max_level else len(LEVELS) - 1
        result = []
        for e in self.entries:
            if available is not None and missing_equipment(e.equipment, available):
                continue
            if wanted and (e.primary_muscle != wanted if primary_only else e.share_of(wanted) == 0):
                continue
            if cats is not None and e.category not in cats:
                continue
            if LEVELS.index(e.level) > level_rank:
                continue
            result.append(e)
        return result


@cache
def load_catalog() -> Catalog:
    """The packaged catalog, parsed once per process."""
    raw = resources.files("trainer.domain").joinpath("data/catalog.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    entries = (
        CatalogEntry(
            id=e["id"],
            name=e["name"],
            muscles=tuple((m, float(s)) for m, s in e["muscles"]),
            equipment=tuple(e["equipment"]),
            level=e["level"] if e["level"] in LEVELS else "beginner",
            mechanic=e.get("mechanic"),
            force=e.get("force"),
            category=e["category"],
        )
        for e in data["exercises"]
    )
    return Catalog(entries)


@cache
def _instructions() -> dict[str, tuple[str, ...]]:
    raw = resources.files("trainer.domain").joinpath("data/instructions.json").read_text(encoding="utf-8")
    return {key: tuple(steps) for key, steps in json.loads(raw)["instructions"].items()}


def instructions(entry: CatalogEntry) -> tuple[str, ...]:
    """The exercise's instruction steps, in order; () when the source has none. The steps are loaded
    on the first call, not with the catalog."""
    return _instructions().get(entry.id, ())
