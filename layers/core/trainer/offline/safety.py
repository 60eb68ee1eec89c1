"""The offline coach's answer to a red flag (trainer.domain.safety) and its one injury path.

  "I felt a sharp pain in my knee during squats"   -> record_injury (knee), then stop and see a physio
  "I get chest pain when I run, should I go on?"   -> stop, see a doctor (emergency services if severe)
  "I'm pregnant - can I keep lifting?"             -> check with a doctor or midwife first

A red flag is read before anything else the message asks: a workout asked for in the same breath is
not built. An injured body part is recorded (never final: the reply is the coach's own, the advice
first), whatever else is about."""

from __future__ import annotations

import re

from trainer.domain.safety import BODY_PART_FLAGS, RedFlag, red_flags, safety_advice
from trainer.offline.turn import REPLY_TOOLS, IntentName, Step, Turn, finished, notify
from trainer.offline.vocabulary import BODY_PARTS
from trainer.tools.base import ToolInvocation
from trainer.tools.injuries import RecordInjury, RecordInjuryArgs, RecordInjuryResult

INJURY_WORDS: dict[RedFlag, str] = {
    "sharp_pain": "Sharp pain in the {part}",
    "radiating_pain": "Pain shooting from the {part}",
    "worsening_pain": "{Part} pain getting worse",
    "surgery": "Recent operation on the {part}",
}
"""How the injury a body-part red flag stands for is recorded, in words the user reads back."""


def raises_red_flag(text: str) -> bool:
    return bool(red_flags(text))


def injured_part(text: str) -> str | None:
    lowered = text.lower()
    return next((part for part in BODY_PARTS if re.search(rf"\b{part}s?\b", lowered)), None)


async def red_flag_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """The injured body part recorded first when the flag is about one, then the advice."""
    flags = red_flags(turn.text)
    part = injured_part(turn.text)
    steps: list[Step] = []
    body_flags = [flag for flag in flags if flag in BODY_PART_FLAGS]
    if body_flags and part is not None and part != "chest":
        words = INJURY_WORDS[body_flags[0]].format(part=part, Part=part.capitalize())
        steps.append(Step("injury", RecordInjuryArgs(injury=words)))
    return [*steps, Step("red_flag")]


async def record_injury(turn: Turn, step: Step) -> ToolInvocation:
    args: RecordInjuryArgs = step.payload
    return RecordInjury().call(args)


async def safety_reply(turn: Turn, step: Step) -> ToolInvocation:
    """Stop and see a professional, with what was recorded: the injury's own words when one was (its
    result carries the advice), else the advice for the flags the message raises."""
    calls = [c for c in turn.convo.calls if c.name not in REPLY_TOOLS]
    recorded = [c for c in finished(calls) if isinstance(c.result, RecordInjuryResult)]
    if recorded:
        ctx = await turn.reply_context()
        return notify("\n".join(c.result.say(ctx, c.arguments) for c in recorded))
    return notify(safety_advice(red_flags(turn.text)))
