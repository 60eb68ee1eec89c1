"""The offline coach editing a saved location's equipment from a sentence:

  "Add a kettlebell to my home gym"                 -> update_location (add Kettlebell)
  "My home gym has a squat rack now"                -> update_location (add Squat Rack)
  "Remove the treadmill from the hotel gym"         -> update_location (remove Treadmill)
  "My garage gym now has dumbbells up to 30 kg"     -> update_location (the dumbbell pairs replaced)
The place is the saved location the sentence names, else the current one."""

from __future__ import annotations

import re

from trainer.domain.equipment import normalise_equipment
from trainer.offline.checkins import DUMBBELLS_UP_TO, EQUIPMENT_WORD, PLATES, _unit
from trainer.offline.references import named_location
from trainer.offline.turn import Step, Turn, ask, notify
from trainer.tools.base import ToolInvocation
from trainer.tools.location import UpdateLocation, UpdateLocationArgs


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


PLACE = rx(r"\b(gym|home|studio|garage|basement|location|place|room|office|club)\b")
ADDS = rx(
    r"\b(add(?:ed)?|put|bought|got (?:a|an|some|new)|now (?:has|have)|has (?:a|an|some|new)\b.*\bnow|"
    r"there'?s (?:a|an|now a) (?:new )?\w+ (?:at|in))\b"
)
REMOVES = rx(
    r"\b(remove[ds]?|take (?:out|away)|took (?:out|away)|no longer (?:has|have)|(?:doesn'?t|does not) have|"
    r"got rid of|sold|broke|is broken|gone from|delete)\b"
)
WORKOUT_WORDS = rx(r"\b(workout|exercise|session|sets?|reps?)\b")


def edits_location(text: str) -> bool:
    """Equipment added to or taken from a place ('add a kettlebell to my home gym')."""
    if WORKOUT_WORDS.search(text) or not (EQUIPMENT_WORD.search(text) and PLACE.search(text)):
        return False
    return bool(ADDS.search(text) or REMOVES.search(text))


def parse_location_edit(text: str, place: str | None, user_unit: str) -> UpdateLocationArgs:
    names: list[str] = []
    for found in EQUIPMENT_WORD.finditer(text):
        canonical = normalise_equipment(found.group(0).lower())
        if canonical not in names:
            names.append(canonical)
    removing = bool(REMOVES.search(text))
    fields: dict[str, object] = {"location_name": place}
    if not removing and (d := DUMBBELLS_UP_TO.search(text)) and d.group(1):
        fields["unit"], fields["dumbbells_up_to"] = _unit(d.group(2)), float(d.group(1))
        names = [n for n in names if n != "dumbbell"]
    if not removing and (p := PLATES.search(text)):
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", p.group(1) or p.group(3) or "")]
        fields["unit"], fields["plates"] = _unit(p.group(2) or p.group(4)), numbers
        names = [n for n in names if not n.startswith("plate")]
    fields["remove_equipment" if removing else "add_equipment"] = names
    fields.setdefault("unit", user_unit)
    return UpdateLocationArgs.model_validate(fields)


async def edit_location(turn: Turn, step: Step) -> ToolInvocation:
    records = await turn.records()
    known = [loc.name for loc in records.locations]
    if not known:
        return notify(
            "You have no saved locations yet, so there's nothing to change. Tell me where you train and "
            "what it has, for example 'I'm at a hotel gym with a treadmill and dumbbells up to 25 kg'."
        )
    place = named_location(turn.text, known) or records.current_location
    if place is None:
        return ask("Which location should I change?", known[:8])
    args = parse_location_edit(turn.text, place, records.weight_unit)
    if not (args.add_equipment or args.remove_equipment or args.plates or args.dumbbells_up_to):
        return ask(f"What should I add to or remove from {place}?")
    return UpdateLocation().call(args)
