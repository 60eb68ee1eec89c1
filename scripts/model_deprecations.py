"""Compares the model catalogue's end-of-life dates with the installed SDKs' deprecation data, and the
default models with today's date. `make upgrade` runs it after the locks move, so an upstream change
(a model added to or dropped from an SDK's table) shows up there, on purpose, and never in an unrelated
test run: the suite checks the catalogue alone, at fixed dates (tests/unit/providers/test_models_cost.py).

Exit 1 when a default model retires within SHUTDOWN_WARNING_DAYS of today, or when an SDK deprecates a
catalogue model the catalogue gives no end of life. Dropped entries (a model past its end of life leaves
the anthropic SDK's table) are reported, not failed.

    .venv/bin/python scripts/model_deprecations.py
"""

from __future__ import annotations

import re
import sys
from datetime import date, datetime
from pathlib import Path

from trainer.providers.models import CATALOGUE_CHECKED_ON, MODELS, retiring
from trainer.settings import Settings


def anthropic_deprecations() -> dict[str, date | None]:
    """The anthropic SDK's table of deprecated models (model id -> end of life). It is the table behind
    the SDK's own deprecation warning; private, so read here only, where a change is expected."""
    try:
        from anthropic._data import DEPRECATED_MODELS
    except ImportError:
        print("note: the anthropic SDK has no deprecated-models table any more; compare by hand")
        return {}
    found: dict[str, date | None] = {}
    for model_id, when in DEPRECATED_MODELS.items():
        cleaned = re.sub(r"(\d+)(st|nd|rd|th)", r"\1", when)
        try:
            found[model_id] = datetime.strptime(cleaned, "%B %d, %Y").date()
        except ValueError:
            found[model_id] = None
    return found


def openai_shutdowns() -> dict[str, date | None]:
    """Every model id in the openai SDK's chat-model deprecation notes, with its shutdown date."""
    from openai.types.shared import chat_model

    text = Path(chat_model.__file__).read_text()
    if '"""Deprecated values:' not in text:
        print("note: the openai SDK's chat-model notes have no deprecation list any more; compare by hand")
        return {}
    notes = text[text.index('"""Deprecated values:') :]
    found: dict[str, date | None] = {}
    for entry in re.split(r"\n- ", notes)[1:]:
        ids = re.findall(r'"([^"]+)"', entry.split(":")[0] if ":" in entry else entry)
        when = re.search(r"shutdown\s+date:\s+(\d{4}-\d{2}-\d{2})", entry.replace("\n", " "))
        for model_id in ids:
            found[model_id] = date.fromisoformat(when.group(1)) if when else None
    return found


def main() -> int:
    settings = Settings.model_construct()
    defaults = {
        "TRAINER_MODEL": settings.model,
        "TRAINER_LIGHT_MODEL": settings.light_model,
        "TRAINER_INITIALIZER_MODEL": settings.initializer_model,
        "TRAINER_OPENAI_AGENT_MODEL": settings.openai_agent_model,
    }
    failures = [f"default retiring: {problem}" for problem in retiring(defaults, date.today())]
    notes = []
    tables = {"anthropic": anthropic_deprecations(), "openai": openai_shutdowns()}
    for model in MODELS.values():
        table = tables[model.provider]
        ids = {model.id, *model.aliases}
        listed = next((table[i] for i in ids if i in table), None) if ids & set(table) else None
        if ids & set(table):
            if model.end_of_life is None:
                failures.append(
                    f"{model.id}: the {model.provider} SDK deprecates it (end {listed}); "
                    "the catalogue has no end of life"
                )
            elif listed is not None and listed != model.end_of_life:
                notes.append(
                    f"{model.id}: catalogue end {model.end_of_life}, the {model.provider} SDK {listed}"
                )
        elif model.end_of_life is not None and model.provider == "anthropic":
            notes.append(
                f"{model.id}: catalogue end {model.end_of_life}; no longer in the anthropic SDK's table "
                "(past its end of life, or the date moved: check the deprecations page)"
            )
    print(f"model catalogue last checked on {CATALOGUE_CHECKED_ON}; {len(MODELS)} models")
    for line in notes:
        print(f"note: {line}")
    for line in failures:
        print(f"FAIL: {line}")
    if failures:
        print(
            "update trainer/providers/models.py (end_of_life, CATALOGUE_CHECKED_ON) before the new locks land"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
