"""The agent core: loop, context builder, initializer, prompts and the tool registry."""
