"""τ-bench style conversation scenarios: data in tests/scenarios/data, played by tests/scenarios/runner.py."""
