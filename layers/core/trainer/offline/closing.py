"""`ResultReplies`, the writer of a turn's closing reply, lives in trainer.agents.closing (the live
turn uses it; nothing of the offline coach's). Kept here only for the test harnesses that still import
it from this module (tests/fakes)."""

from trainer.agents.closing import ResultReplies

__all__ = ["ResultReplies"]
