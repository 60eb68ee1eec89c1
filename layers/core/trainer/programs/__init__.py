"""Training programs: the plan -> week -> day pipeline behind the program agents (docs/programs.md).

`plan` builds a 4-16-week plan (methodology, phases, deloads, weekly pattern), `microcycle` a week of
structured workouts with loads from the user's history, `messages` a day's text message, `structure`
a pasted workout parsed into the app's schema, `inputs` loads what they read, `agents` defines the
four agents, `tools` the chat agent's training-plan tools. Models may draft the structure and the
words; the numbers are always computed here.
"""
