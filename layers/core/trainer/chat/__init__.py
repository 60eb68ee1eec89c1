"""The chat turn: the chat agent (agent.py) run on the agents' step engine with its event-backed
conversation (turn.py): lease, context from the session's events, initializer, one tool per step,
events and SSE frames, checkpoints, hooks and the daily budget."""
