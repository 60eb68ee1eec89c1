"""The `<user_data>` block (docs/architecture.md#context-and-the-prompt-cache): units, body stats, current
location with equipment, the profile facts still unknown with the next question
(docs/api.md#onboarding-and-profile), and an example exercise in the user's units
(trainer.sources.example_exercise).

Fetched fresh on every context build; deterministic (same rows, same day -> byte-identical text) so the
prompt-cache breakpoint after it keeps hitting. Its location sections keep to the prompt budget
(trainer.sources.budget): the current location's equipment is cut from the bottom with a note, as is
the list of the other locations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

from trainer.domain.onboarding import BY_FIELD, ProfileField, missing_fields, next_question
from trainer.services.scope import UserRef
from trainer.services.user_data import UserDataService
from trainer.sources.budget import CURRENT_LOCATION_TOKENS, OTHER_LOCATIONS_TOKENS, fit_lines
from trainer.sources.example_exercise import example_lines
from trainer.sources.formatters import body_stat_lines, esc, location_lines, zone
from trainer.store.db import Database


async def build_user_data_xml(db: Database, user_id: UserRef, *, today: date | None = None) -> str:
    """Profile, settings, locations and active injuries, read in turn on one pooled connection."""
    async with UserDataService(db).for_user(user_id).reading() as data:
        profile_row = await data.profile.get()
        settings = await data.settings.get()
        location_rows = await data.locations.all()
        injuries = [p for p in await data.preferences.active() if p["type"] == "injury"]
    if today is None:
        today = datetime.now(UTC).astimezone(zone(settings.timezone)).date()
    missing = missing_fields(profile_row, settings.preferred_days, len(injuries))
    return render_user_data(profile_row, settings.model_dump(), location_rows, today, missing)


def render_user_data(
    profile: Mapping[str, Any] | None,
    settings_row: Mapping[str, Any],
    location_rows: Sequence[Mapping[str, Any]],
    today: date,
    missing: Sequence[ProfileField] = (),
) -> str:
    parts = [
        "<user_data>",
        "<unit_preferences>",
        f"Weight: {settings_row['weight_unit']}",
        f"Distance: {settings_row['distance_unit']}",
        "</unit_preferences>",
        "",
        "<body_stats>",
    ]
    if profile and profile.get("display_name"):
        parts.append(f"Name: {esc(profile['display_name'])}")
    stats = body_stat_lines(profile, settings_row, today)
    parts.extend(stats or ["Not provided"])
    parts += ["</body_stats>", "", "<current_location>"]
    ordered = sorted(
        location_rows, key=lambda r: (not r.get("is_current"), str(r["name"]).lower(), str(r["id"]))
    )
    current = ordered[0] if ordered and ordered[0].get("is_current") else None
    if current:
        first, *rest = location_lines(current)
        kept, _ = fit_lines([first, f"Location id: {current['id']}", *rest], CURRENT_LOCATION_TOKENS)
        parts.extend(kept)
    else:
        parts.append("None set")
    parts.append("</current_location>")
    others = [loc for loc in ordered if loc is not current]
    if others:
        listed = [
            f"  - {esc(loc['name'])} ({len(loc.get('equipment') or [])} equipment items) [id: {loc['id']}]"
            for loc in others
        ]
        kept, _ = fit_lines(listed, OTHER_LOCATIONS_TOKENS, what="locations")
        parts += ["", "<other_locations>", *kept, "</other_locations>"]
    parts.extend(profile_gap_lines(missing))
    parts.extend(example_lines(settings_row["weight_unit"], settings_row["distance_unit"], today))
    parts.append("</user_data>")
    return "\n".join(parts)


def profile_gap_lines(missing: Sequence[ProfileField]) -> list[str]:
    """What the coach still needs to know, the next question with its options, and where an answer
    goes: facts, not an order (when to ask is the system prompt's <turn_end>)."""
    question = next_question(list(missing))
    if question is None:
        return []
    labels = ", ".join(BY_FIELD[name].label for name in missing)
    options = " | ".join(question.options)
    lines = [
        "",
        "<profile_to_complete>",
        f"Still unknown: {labels}.",
        f"Next question: {question.question}",
    ]
    if options:
        lines.append(f"Options: {options}")
    lines += [
        "Facts the user gives go to update_profile (several at once too), an injury to record_injury.",
        "</profile_to_complete>",
    ]
    return lines
