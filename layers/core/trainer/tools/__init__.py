"""The trainer's tools, one module per family."""
