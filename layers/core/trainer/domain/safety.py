"""Red flags: what a user may say about their body that a coach must not train through, and the words
that send them to a professional. Pain that is sharp, shooting or radiating, or getting worse; chest
pain; dizziness or fainting; pregnancy; a recent operation or a question about training after one.

A red flag is never a workout to adjust: the answer is to stop and see a doctor or physiotherapist
(emergency services for chest pain that is severe or spreads), and only then, for an injured body part,
to keep it out of the workouts. The chat agent's system prompt states the rule for a live model; the
injury tool (trainer.tools.injuries) and the offline coach read the same flags from the user's words
here, so every mode answers a red flag the same way."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

RedFlag = Literal["sharp_pain", "radiating_pain", "worsening_pain", "chest_pain", "dizziness", "pregnancy",
                  "surgery"]  # fmt: skip


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_PAIN = r"(?:pain|hurt\w*|twinge|ache|aching|sore)"
_RECENT = (
    r"(?:\d+|a|one|two|three|four|five|six|a few|a couple of)\s+(?:days?|weeks?|months?)\s+ago|"
    r"last (?:week|month)|this (?:week|month)|just had|recent(?:ly)?|yesterday"
)
_ASKS = r"\?|\b(?:can|could|should|may|when can|is it (?:ok|okay|safe|fine)) i\b"
PAIN_SAID = re.compile(rf"\b{_PAIN}", re.IGNORECASE)
ASKED_OR_RECENT = re.compile(rf"{_ASKS}|\b(?:{_RECENT})\b", re.IGNORECASE)


@dataclass(frozen=True)
class Flag:
    kind: RedFlag
    label: str
    """What the user reported, in words a user reads ('sharp pain')."""
    said: re.Pattern[str]
    advice: str
    """What to do, in words a user reads: stop, and who to see."""
    only_with: re.Pattern[str] | None = None
    """What the message must also say for the words to be a red flag: pain, for 'getting worse'
    (a squat getting worse is not one); a question or a recent date, for an operation (an old one is a
    limitation to work around, a recent one or a question about training after it is a red flag)."""

    def found_in(self, text: str) -> bool:
        return bool(self.said.search(text)) and (self.only_with is None or bool(self.only_with.search(text)))


PAIN_ADVICE = (
    "Please stop any exercise that brings that pain on, and have it checked by a doctor or "
    "physiotherapist before you train it again - pain like that is a signal to stop, not to push through."
)
FLAGS: tuple[Flag, ...] = (
    Flag(
        "chest_pain",
        "chest pain",
        _rx(
            r"\bchest (?:pain|tightness|pressure)|\bpains? in (?:my|the) chest|\bchest (?:hurts|is hurting|"
            r"feels tight|was tight|got tight)|\btight(?:ness)? in (?:my|the) chest"
        ),
        "Please stop training now and get checked by a doctor before you exercise again. If the chest pain "
        "is severe, spreads to your arm, jaw or back, or comes with breathlessness, sweating or nausea, "
        "call emergency services straight away.",
    ),
    Flag(
        "dizziness",
        "dizziness",
        _rx(
            r"\bdizz(?:y|iness)|\blight-?headed|\bfaint(?:ed|ing|)\b|\bpassed out\b|\bblack(?:ed)? out\b|"
            r"\bvertigo\b"
        ),
        "Please stop, sit or lie down until it passes, and see a doctor before you train hard again - "
        "dizziness or fainting during exercise needs checking first.",
    ),
    Flag(
        "pregnancy",
        "pregnancy",
        _rx(
            r"\bpregnan\w*|\bexpecting a baby\b|\b(?:first|second|third) trimester\b|\bpost-?partum\b|"
            r"\bjust gave birth\b"
        ),
        "Please check with your doctor or midwife before you carry on or change your training - they "
        "know what is safe for you and the baby right now, and I'll keep your workouts within what they "
        "advise.",
    ),
    Flag(
        "surgery",
        "a recent operation",
        _rx(
            r"\bsurger(?:y|ies)\b|\boperation\b|\boperated on\b|\bpost-?op\b|\b(?:acl|meniscus|rotator cuff|"
            r"hernia|hip|knee|shoulder) (?:repair|reconstruction|replacement)\b"
        ),
        "After an operation, your surgeon or physiotherapist decides when and how you load that area "
        "again - please get their go-ahead first, and I'll keep it out of your workouts until then.",
        only_with=ASKED_OR_RECENT,
    ),
    Flag(
        "radiating_pain",
        "pain that shoots or spreads",
        _rx(
            r"\bradiat\w*|\bshoot\w* (?:down|up|into|through|along)"
            r"|\b(?:down|into) my (?:arm|leg|butt|buttock)s?\b"
            r"|\bpins and needles\b|\bnumb(?:ness)?\b|\btingl\w*"
        ),
        PAIN_ADVICE,
    ),
    Flag(
        "worsening_pain",
        "pain that is getting worse",
        _rx(
            rf"\b(?:getting|gets|got|keeps getting|growing|gotten) worse\b|\bworse and worse\b|\bworsening\b|"
            rf"\b{_PAIN} (?:is|keeps) (?:getting )?worse\b|\bhurts more (?:and more|each|every|after)\b|"
            r"\bmore (?:and more )?painful\b"
        ),
        PAIN_ADVICE,
        only_with=PAIN_SAID,
    ),
    Flag(
        "sharp_pain",
        "sharp pain",
        _rx(
            rf"\b(?:sharp|stabbing|shooting|searing|sudden)\b(?:\W+\w+){{0,3}}?\W+{_PAIN}|\b{_PAIN}\b(?:\W+\w+){{0,3}}?"
            r"\W+(?:sharp|stabbing)\b|\b(?:felt|heard) (?:a |something )?(?:pop|snap|tear)\b"
        ),
        PAIN_ADVICE,
    ),
)
BY_KIND: dict[RedFlag, Flag] = {flag.kind: flag for flag in FLAGS}
BODY_PART_FLAGS: frozenset[RedFlag] = frozenset({"sharp_pain", "radiating_pain", "worsening_pain", "surgery"})
"""Flags about a body part that workouts must then leave alone (recorded as an injury); the others are
about the whole person (chest pain, dizziness, pregnancy): no workout tweak answers them."""


def red_flags(text: str) -> list[RedFlag]:
    """The red flags a message raises, most urgent first."""
    return [flag.kind for flag in FLAGS if flag.found_in(text)]


def safety_advice(flags: list[RedFlag]) -> str:
    """What to do about them, in words a user reads: each distinct piece of advice once, most urgent
    first; '' without a flag."""
    seen: list[str] = []
    for kind in flags:
        advice = BY_KIND[kind].advice
        if advice not in seen:
            seen.append(advice)
    return " ".join(seen)


def flag_labels(flags: list[RedFlag]) -> list[str]:
    return [BY_KIND[kind].label for kind in flags]
