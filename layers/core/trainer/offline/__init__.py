"""The offline coach: a deterministic rule-based stand-in for the models behind their ports, the local
default and the CI model when no key is set. Only the composition root (trainer.container) chooses it;
nothing of a live turn imports it (tests/unit/project/test_layers.py).

model: the chat agent's model (`OfflineAgentModel`); intents: the one intent table (what a message
asks for, the data it needs, the handler of each intent); patterns: the words it reads by; handlers,
requests, calendar_turns, checkins, location_edits, onboarding: what it does for each intent; turn:
one decision's state; conversation: what it reads from a request. The user's words as the tools'
argument models: vocabulary (shared words), dates, references (which exercise, session or place),
set_parsing (sets, loads, effort), goal_parsing (goals, preferences, milestones), plan_parsing.
replies: what it says besides what the results say of themselves (its last message is the closing
reply of trainer.agents.closing); records and planner: what it reads about the user; selector: the
initializer's deterministic rules; structured: the registry agents' offline backend.
"""

from trainer.offline.conversation import Conversation, PastCall, read_conversation
from trainer.offline.intents import classify
from trainer.offline.model import OfflineAgentModel, degraded_coach
from trainer.offline.plan_parsing import parse_plan
from trainer.offline.records import UserRecords
from trainer.offline.turn import OfflinePlanner, workout_from_conversation

__all__ = [
    "Conversation",
    "OfflineAgentModel",
    "OfflinePlanner",
    "PastCall",
    "UserRecords",
    "classify",
    "degraded_coach",
    "parse_plan",
    "read_conversation",
    "workout_from_conversation",
]
