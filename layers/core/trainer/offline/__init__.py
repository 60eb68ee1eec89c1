"""The offline coach: a deterministic rule-based agent behind the model ports (ARCHITECTURE §4), chosen
by the composition root when no key is set (trainer.container); the provider adapters never import it.

model: the chat agent's model (`OfflineAgentModel`); intents: the one intent table (what a message
asks for, the data it needs, the handler of each intent); patterns: the words it reads by; handlers:
what it does for each intent; turn: one decision's state; conversation: what it reads from a request;
parsing: the user's words as the tools' argument models; replies: what it tells the user, from typed
results; records and planner: what it reads about the user; selector: the initializer's deterministic
rules; structured: the registry agents' offline backend.
"""

from trainer.offline.conversation import Conversation, PastCall, read_conversation
from trainer.offline.intents import classify
from trainer.offline.model import OfflineAgentModel
from trainer.offline.parsing import parse_plan
from trainer.offline.records import UserRecords
from trainer.offline.turn import OfflinePlanner, workout_from_conversation

__all__ = [
    "Conversation",
    "OfflineAgentModel",
    "OfflinePlanner",
    "PastCall",
    "UserRecords",
    "classify",
    "parse_plan",
    "read_conversation",
    "workout_from_conversation",
]
