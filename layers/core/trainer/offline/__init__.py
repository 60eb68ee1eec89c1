"""The offline model: a deterministic rule-based agent behind the AgentModel port (ARCHITECTURE §4).

conversation: what it reads from a request; intents: what the user asks for; parsing: the user's words
as the tools' argument models; replies: what it tells the user, from typed results; records: what the
planner reads about the user for it; policy: the next call.
"""

from trainer.offline.conversation import Conversation, PastCall, read_conversation
from trainer.offline.intents import classify
from trainer.offline.parsing import parse_plan
from trainer.offline.policy import OfflineAgentModel, OfflinePlanner, workout_from_conversation
from trainer.offline.records import UserRecords

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
