"""Model ports (ports.py), the model catalogue and prices (models.py), and one SDK adapter per
provider serving both the chat loop and structured output: anthropic.py, openai.py."""
