"""The offline coach's onboarding: profile facts read from a sentence, saved with
update_profile, then the next missing fact asked for - one question, with its options.

  "I'm 34, male, intermediate, 82 kg"              -> update_profile, then "What are you training for?"
  "My goal is to lose some fat and get stronger"   -> update_profile (goals in words)
  "I can train Monday, Wednesday and Friday, about 45 minutes a session" -> update_profile (days, length)
  "I have a bad left knee" / "No injuries"         -> record_injury (the one injury path) / update_profile
  "Let's set up my profile"                        -> the first missing fact, asked with options
A bare answer to one of the coach's questions ("Intermediate (1-3 years)", "45 minutes", "Knee", "34")
is read as that question's answer.
"""

from __future__ import annotations

import re
from typing import Any

from trainer.domain.onboarding import QUESTIONS, ProfileField, ProfileQuestion, next_question
from trainer.domain.weekdays import WEEKDAYS
from trainer.domain.workout_checks import muscles_in_text
from trainer.offline.dates import available_days
from trainer.offline.goal_parsing import goal_weights
from trainer.offline.patterns import INJURY, wants_workout
from trainer.offline.turn import REPLY_TOOLS, IntentName, Step, Turn, ask, finished, notify
from trainer.tools.base import ToolInvocation
from trainer.tools.communication import AskResult
from trainer.tools.injuries import RecordInjuryArgs
from trainer.tools.profile import UpdateProfile, UpdateProfileArgs, UpdateProfileResult


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


START = rx(
    r"\b(set ?up my profile|(?:complete|fill in|finish|update) my profile|i'?m new(?: here)?|new here|"
    r"get(?:ting)? started|let'?s (?:get )?start(?:ed)?|onboard\w*|"
    r"what (?:else )?do you (?:need|want) to know(?: about me)?|ask me (?:some |your )?questions)\b"
)
SELF = rx(r"\b(i'?m|i am|about me|myself|me:)\b")
AGE = rx(
    r"\b(?:i'?m|i am|age[d:]?)\s+(\d{2})\b(?!\s*(?:kg|kgs|kilos?|lbs?|pounds|min|mins|minutes|%|cm|'|ft))"
    r"|\b(\d{2})[\s-]*(?:years?|yrs?)[\s-]*old\b|\b(\d{2})\s*(?:yo|y/o|y\.o\.)(?!\w)"
)
SEX = rx(r"\b(male|female|man|woman|guy|girl|lady|dude|bloke|non[- ]?binary)\b")
SEXES = {"male": "male", "man": "male", "guy": "male", "dude": "male", "bloke": "male", "female": "female",
         "woman": "female", "girl": "female", "lady": "female", "nonbinary": "other", "non-binary": "other",
         "non binary": "other"}  # fmt: skip
BEGINNER = rx(
    r"\b(beginner|novice|newbie|new to (?:lifting|the gym|training|working out|strength training|"
    r"exercise|fitness|weights)|never (?:lifted|trained|worked out|been to a gym)|"
    r"just (?:starting|started)(?: out)?)\b"
)
INTERMEDIATE = rx(r"\bintermediate\b")
ADVANCED = rx(r"\b(advanced|very experienced|experienced lifter|(?:competitive|competing) \w*lifter)\b")
_COUNT = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
TRAINING_FOR = rx(
    rf"\b(?:lifting|training|working out|going to the gym|in the gym|lifted|trained)\s+(?:for\s+)?"
    rf"(?:about |around |over |almost |nearly |roughly )?{_COUNT}\+?\s*(years?|months?)\b"
    rf"|\b{_COUNT}\+?\s*(years?|months?)\s+of\s+(?:lifting|training|experience|gym)\b"
)
_WEIGHT = r"(\d{2,3}(?:\.\d)?)\s*(kg|kgs|kilos?|kilograms?|lbs?|pounds)\b"
WEIGH = rx(
    r"\b(?:weigh(?:s|ing)?|body ?weight(?: is)?|bw)\s*(?:is\s+|of\s+|about\s+|around\s+|roughly\s+|"
    r"approx(?:imately)?\s+|in at\s+)*" + _WEIGHT
)
WEIGHT_ONLY = rx(r"^\s*(?:about |around |roughly |i'?m |i am )?" + _WEIGHT + r"\s*[.!]?\s*$")
ANY_WEIGHT = rx(r"\b" + _WEIGHT)
HEIGHT_CM = rx(r"\b(1\d{2}|2[0-4]\d)\s*cm\b")
HEIGHT_FT = rx(r"\b([4-7])\s*(?:'|ft|foot|feet)\s*(\d{1,2})?\s*(?:\"|''|in(?:ches)?)?")
_DAY = (r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
        r"s?\b")  # fmt: skip
DAY_RANGE = rx(r"\b" + _DAY + r"\s*(?:-|to|through|thru|till|until)\s*" + _DAY)
DAYS_CUE = rx(
    r"\b(i can (?:train|work ?out|lift|exercise|make it|get to the gym|go|do)|i'?m (?:free|available)|"
    r"available|free on|train(?:ing)? (?:on|days)|my (?:training )?days|days i can|work(?:s)? for me|"
    r"days? a week)\b"
)
RESHAPE = rx(r"\b(from now on|instead|any ?more|no longer|change|switch|move|reschedul\w*|plan)\b")
MINUTES = rx(r"\b(\d{2,3})\s*(?:-|to)?\s*(?:min(?:ute)?s?)\b")
HOURS = rx(r"\b(an|one|1|1\.5|two|2)\s*hours?\b|\b(half an hour|an hour and a half|hour and a half)\b")
SESSION_CUE = rx(
    r"\b(sessions?|per (?:workout|session|day)|each (?:time|workout|session|day)|at a time|a day|"
    r"usually|normally|typically|can (?:spend|give|train for|do)|"
    r"i have (?:about |around |roughly )?(?:\d|an?\b|half))"
)
NOW = rx(r"\b(today|tonight|this (?:morning|evening|afternoon)|right now)\b")
GOAL = rx(
    r"\b(?:(?:my|the|main) (?:main |big |biggest |only |primary )?goals? (?:is|are|would be|:)\s*(?:to\s+)?|"
    r"(?:^|[,;]\s*|\band\s+|\bi (?:really )?)(?:want|wanna) to|i'?d (?:really )?like to|i would like to|"
    r"i'?m (?:trying|looking|hoping|aiming) to|i (?:hope|aim|need) to|(?:i'?m )?training (?:for|to)\s)"
    r"\s*(?P<goal>[^.!?\n]+)"
)
GOAL_WORDS = rx(
    r"\b(lose|losing|drop|shed|build|gain|bulk|tone|toned|stronger|strength|fit|fitter|fitness|shape|lean|"
    r"muscle|muscular|fat|weight|endurance|stamina|healthy|health|mobility|flexib\w*|athletic|look better|"
    r"feel better|ski\w*|hik\w*|compete|powerlift\w*|bodybuild\w*)\b"
)
WEIGHTING = rx(r"%|\bpercent\b|\bfocus (?:more )?on\b|\bprioriti[sz]e\b|\bemphasi[sz]e\b")
"""Goal weights (set_goals), not goals in words."""
NO_INJURY = rx(
    r"\b(no (?:injuries|injury|limitations?|issues|problems|niggles)|injury[- ]free|not injured|"
    r"(?:don'?t|do not) have any (?:injuries|limitations|issues)|nothing (?:wrong|to work around))\b"
)
SOFT_INJURY = rx(
    r"\b(?:bad|dodgy|weak|dicky|gammy|wonky|stiff|arthritic|creaky|unstable)\s+(?:left |right )?"
    r"(?:knees?|shoulders?|back|lower back|hips?|ankles?|wrists?|elbows?|neck)\b"
    r"|\b(?:knee|shoulder|hip|back|ankle|wrist|elbow)\s+(?:surgery|operation|reconstruction|replacement|"
    r"problems?|issues?)\b|\b(?:acl|meniscus|rotator cuff) (?:tear|surgery|reconstruction|repair)\b"
    r"|\btorn (?:acl|meniscus|rotator cuff)\b|\barthritis in my \w+"
)
LEAD = rx(r"^(?:and |also |plus )?(?:i (?:have|had|got)|i'?ve (?:got|had)|there'?s)\s+(?:a |an )?")
BARE_NUMBER = rx(r"^\s*(\d{2})\s*[.!]?\s*$")
BARE_NO = rx(r"^\s*(no|none|nope|nothing|not really|no,? (?:i'?m|all) (?:good|fine))\s*[.!]?\s*$")


def _answer_key(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split("(")[0].strip()


def _option_answers() -> dict[str, tuple[ProfileField, str]]:
    answers: dict[str, tuple[ProfileField, str]] = {}
    for question in QUESTIONS:
        for option in question.options:
            for key in {_answer_key(option), _answer_key(option.split("(")[0])}:
                answers[" ".join(key.split())] = (question.field, option)
    return answers


OPTION_ANSWERS = _option_answers()


def option_answer(text: str) -> tuple[ProfileField, str] | None:
    """The question and option a bare answer picks ('intermediate', 'Knee', '45 minutes')."""
    return OPTION_ANSWERS.get(" ".join(_answer_key(text).split()))


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS.get(word.lower(), 0)


TRAINING_FOR_YEARS = rx(
    r"\b(?:lifting|training|working out|going to the gym|lifted|trained)\b[^.!?]{0,20}?"
    r"\bfor (?:many |several |a few |some |a couple of )?years\b"
)
"""Training 'for years', however many ('on and off for years'): at least intermediate."""


def _experience(text: str) -> str | None:
    if INTERMEDIATE.search(text):
        return "intermediate"
    if ADVANCED.search(text):
        return "advanced"
    if BEGINNER.search(text):
        return "beginner"
    if m := TRAINING_FOR.search(text):
        amount, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        years = _count(amount) / (12 if unit.lower().startswith("month") else 1)
        return "beginner" if years < 1 else "intermediate" if years < 3 else "advanced"
    if TRAINING_FOR_YEARS.search(text):
        return "intermediate"
    return None


def _weekday(word: str) -> int:
    word = word.lower()
    return next(i for i, d in enumerate(WEEKDAYS) if d.lower().startswith(word[:3]))


def parse_days(text: str) -> list[str]:
    """Weekdays a sentence names (trainer.offline.dates.available_days), ranges ('Monday to Friday'),
    'weekdays' and 'weekends' included."""
    found: set[str] = set(available_days(text))
    for m in DAY_RANGE.finditer(text):
        first, last = _weekday(m.group(1)), _weekday(m.group(2))
        found.update(WEEKDAYS[i % 7] for i in range(first, last + 1 if last >= first else last + 8))
    if re.search(r"\bweekdays\b", text, re.I):
        found.update(WEEKDAYS[:5])
    if re.search(r"\bweekends?\b", text, re.I):
        found.update(WEEKDAYS[5:])
    return [d for d in WEEKDAYS if d in found]


def _session_minutes(text: str) -> int | None:
    if m := MINUTES.search(text):
        return int(m.group(1))
    if m := HOURS.search(text):
        said = (m.group(1) or m.group(2)).lower()
        return (
            30
            if said == "half an hour"
            else 90
            if "half" in said or said == "1.5"
            else 60 * (2 if said in ("two", "2") else 1)
        )
    return None


def _injuries(text: str) -> list[str]:
    """Injuries said in words the preference reading leaves to onboarding ('a bad left knee')."""
    if INJURY.search(text):
        return []
    found: list[str] = []
    for clause in re.split(r"[.;,!?]|\bbut\b|\band\b", text):
        if SOFT_INJURY.search(clause) and muscles_in_text(clause, include_joints=True):
            said = LEAD.sub("", " ".join(clause.split()))
            found.append(said[:1].upper() + said[1:300])
    return found


def without_no_injury(text: str) -> str:
    """The message without 'no injuries' phrases (so saying so is not read as an injury)."""
    return NO_INJURY.sub(" ", text)


def goal_in_words(text: str) -> str | None:
    """The goals a sentence states in words ('lose some fat and get stronger'), not a workout request."""
    m = GOAL.search(text)
    if m is None or wants_workout(text) or NOW.search(text) or WEIGHTING.search(text):
        return None
    goal = " ".join(m.group("goal").split()).strip(" ,;:-")
    return goal[:500] if goal and GOAL_WORDS.search(goal) else None


def profile_facts(text: str, asked: ProfileField | None = None) -> dict[str, Any]:
    """The profile facts a message states, as update_profile's arguments, and its injuries as
    `injuries` (record_injury's, one call each; empty: none); `asked` is the question the coach asked
    last (a bare number answers 'How old are you?', a bare 'no' the injuries question)."""
    picked = option_answer(text)
    if picked is not None:
        field, option = picked
        return _from_option(field, option)
    facts: dict[str, Any] = {}
    if asked == "age" and (m := BARE_NUMBER.search(text)):
        return {"age": int(m.group(1))}
    if asked == "injuries" and BARE_NO.search(text):
        return {"no_injuries": True}
    if m := WEIGHT_ONLY.search(text):
        return {"body_weight": float(m.group(1)), "body_weight_unit": _weight_unit(m.group(2))}
    if m := AGE.search(text):
        facts["age"] = int(next(g for g in m.groups() if g))
    self_described = bool(SELF.search(text)) or "age" in facts
    if self_described and (m := SEX.search(text)):
        facts["sex"] = SEXES[m.group(1).lower()]
    if experience := _experience(text):
        facts["experience"] = experience
    weight = WEIGH.search(text) or (ANY_WEIGHT.search(text) if {"age", "sex"} & facts.keys() else None)
    if weight:
        facts["body_weight"], facts["body_weight_unit"] = (
            float(weight.group(1)),
            _weight_unit(weight.group(2)),
        )
    if self_described and (m := HEIGHT_CM.search(text)):
        facts["height_cm"] = float(m.group(1))
    elif self_described and (m := HEIGHT_FT.search(text)) and "body_weight" in facts:
        facts["height_cm"] = round((int(m.group(1)) * 12 + int(m.group(2) or 0)) * 2.54, 1)
    if goal := goal_in_words(text):
        facts["goals"] = goal
    if DAYS_CUE.search(text) and not RESHAPE.search(text) and (days := parse_days(text)):
        facts["available_days"] = days
    if SESSION_CUE.search(text) and not (wants_workout(text) or NOW.search(text)):
        minutes = _session_minutes(text)
        if minutes is not None and 15 <= minutes <= 180:
            facts["session_minutes"] = minutes
    if NO_INJURY.search(text):
        facts["no_injuries"] = True
    elif injuries := _injuries(text):
        facts["injuries"] = injuries
    return facts


def _weight_unit(word: str) -> str:
    return "kg" if word.lower().startswith("k") else "lbs"


def _from_option(field: ProfileField, option: str) -> dict[str, Any]:
    match field:
        case "experience":
            return {"experience": _experience(option)}
        case "goals":
            return {"goals": option}
        case "available_days":
            return {"available_days": parse_days(option)}
        case "session_minutes":
            return {"session_minutes": _session_minutes(option)}
        case "injuries":
            return {"no_injuries": True} if option == "No injuries" else {"injuries": [option.lower()]}
        case "sex":
            return {"sex": option.lower()}
    return {}


def states_profile(text: str) -> bool:
    """A message that gives profile facts, or may answer the coach's last question (a bare number
    or 'no'; the handler reads the question)."""
    return bool(profile_facts(text) or BARE_NUMBER.search(text) or BARE_NO.search(text))


def answers_a_question(text: str) -> bool:
    """A bare answer to one of the coach's profile questions: an offered option, a number or a 'no'."""
    return option_answer(text) is not None or bool(BARE_NUMBER.search(text) or BARE_NO.search(text))


def starts_onboarding(text: str) -> bool:
    return bool(START.search(text)) and not profile_facts(text)


def asked_field(turn: Turn) -> ProfileField | None:
    """The profile question the coach asked just before this message, if it was one."""
    earlier = turn.convo.history[: len(turn.convo.history) - len(turn.convo.calls)]
    for call in reversed(earlier):
        if isinstance(call.result, AskResult):
            return next((q.field for q in QUESTIONS if q.question in call.result.question), None)
        if call.name not in REPLY_TOOLS and call.name != "idle":
            return None
    return None


# --- acting ---------------------------------------------------------------------------------------

PROFILE_TURN: frozenset[IntentName] = frozenset({"profile", "profile_next", "preference", "goals"})
"""A turn only about the profile: it ends by asking for the next missing fact."""


async def profile_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    """The profile facts saved in one update_profile call, then each injury with record_injury."""
    facts = profile_facts(turn.text, asked_field(turn))
    injuries: list[str] = facts.pop("injuries", [])
    saved = [Step("profile", facts)] if facts or not injuries else []
    weights = goal_weights(facts["goals"]) if facts.get("goals") and "goals" not in intents else None
    # a goal said in words sets the goal weights of a user who has none yet (the workouts are built
    # from them); weights the user already set are theirs, kept. Its own call sets weights, so the plan
    # stays the same on every call of the turn by counting that call as not yet made.
    set_now = any(call.name == "set_goals" for call in turn.convo.calls)
    new = weights is not None and (set_now or not (await turn.records()).category_goals)
    goals = [Step("goals", weights)] if new else []
    return saved + goals + [Step("injury", RecordInjuryArgs(injury=injury)) for injury in injuries]


async def next_steps(turn: Turn, intents: list[IntentName]) -> list[Step]:
    return [Step("profile_next")] if set(intents) <= PROFILE_TURN else []


async def save_profile(turn: Turn, step: Step) -> ToolInvocation:
    facts: dict[str, Any] = step.payload or {}
    if not facts:
        from trainer.offline.handlers import clarify

        return await clarify(turn, step)
    return UpdateProfile().call(UpdateProfileArgs.model_validate(facts))


def _question(question: ProfileQuestion, lead: str = "") -> ToolInvocation:
    return ask(f"{lead}{question.question}".strip(), list(question.options))


async def start(turn: Turn, step: Step) -> ToolInvocation:
    """The first fact still missing, asked with its options."""
    question = next_question((await turn.records()).profile_missing)
    if question is None:
        return notify(
            "I already have your whole profile - experience, goals, training days, session length, "
            "injuries and body stats. Ask me for a workout or a training plan, or tell me what changed."
        )
    return _question(question, "Let's set up your profile, one question at a time. ")


async def ask_next(turn: Turn, step: Step) -> ToolInvocation:
    """What the turn saved, then the next missing fact asked with its options (or that none is)."""
    calls = [c for c in turn.convo.calls if c.name not in REPLY_TOOLS]
    ctx = await turn.reply_context()
    said = "\n".join(line for line in (c.result.say(ctx, c.arguments) for c in finished(calls)) if line)
    saved = [c.result for c in calls if isinstance(c.result, UpdateProfileResult)]
    if saved:
        asked = saved[-1].next_question
        question = next((q for q in QUESTIONS if asked is not None and q.field == asked.field), None)
    else:
        question = next_question((await turn.records()).profile_missing)
    if question is None:
        return notify(f"{said}\nThat's everything I need - your plans and workouts will use it.".strip())
    return _question(question, f"{said}\n" if said else "")
