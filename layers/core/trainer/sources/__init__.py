"""User data sources: what the initializer can add to the agent's context, and the user-data block."""
