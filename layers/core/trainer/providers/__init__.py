"""Model ports and adapters: Anthropic main agent, OpenAI initializer, offline policies."""
